"""Run advmath's metric SQL files in DuckDB and compare with DataFusion's results.

Usage:
  duckdb_parity.py TABLES_DIR SQL_DIR DATAFUSION_JSON
      DATAFUSION_JSON maps metric name (or `report/<name>` for sql/report/*.sql) -> {"columns":
      [...], "rows": [[...], ...]}, written by the Rust test from DataFusion. Every sql/*.sql file,
      and each sql/report/*.sql file with a result in DATAFUSION_JSON, runs unchanged in DuckDB over the same
      Parquet files; the column names must be equal, the row sets equal (compared in order after
      sorting both sides), numbers within 1e-9 (absolute or relative), everything else exactly.
      Prints one line per metric, exits 1 on the first mismatch.
  duckdb_parity.py --bench [--materialise] TABLES_DIR SQL_DIR
      Runs every SQL file once and prints {"seconds": ..., "peak_rss_mib": ..., "rows": {...}}
      as JSON (the metrics benchmark times DuckDB with it). With --materialise the shared views
      are created as tables (CREATE TABLE ... AS), once, inside the timed span, as advmath
      computes them once per metrics run. The peak RSS is this process's own (VmHWM): ru_maxrss
      would carry the parent's peak over fork and exec.

The views mirror advmath::metrics::SqlEngine: responses recursed over its model folders, hive
partitions for variants, generation_stats and features (partition values kept as text), flat
files for problems, coefficients, efficient_responses and annotations. A table without Parquet files
gets no view, except an optional one (efficient_responses, annotations), which gets an empty table of
its schema. Then, as
SqlEngine does, the `attacks` catalogue (SQL_DIR/views/00_attacks.sql) always, and when `responses`
exists an empty `model_order(model, position)` table (no --model-order: models by name) and the
other shared views of SQL_DIR/views/*.sql, in file order.
"""
import glob
import json
import math
import os
import sys
import time

import duckdb  # noqa: E402

TOLERANCE = 1e-9

# name -> (glob under TABLES_DIR, hive partitioned)
TABLES = {
    "problems": ("problems/*.parquet", False),
    "variants": ("variants/**/*.parquet", True),
    "generation_stats": ("generation_stats/**/*.parquet", True),
    "responses": ("responses/**/*.parquet", False),
    "features": ("features/**/*.parquet", True),
    "coefficients": ("coefficients/**/*.parquet", False),
    "efficient_responses": ("efficient_responses/**/*.parquet", False),
    "annotations": ("annotations/**/*.parquet", False),
}

# Tables only some runs make: SqlEngine registers them empty (their schema, src/schema.rs) when
# absent, and so does this script, so a metric over them gives no row instead of an error.
RESPONSES_COLUMNS = (
    "response_key VARCHAR, model VARCHAR, template VARCHAR, run VARCHAR, variant_id VARCHAR, problem_id VARCHAR, "
    "dataset VARCHAR, attack VARCHAR, noise_level INTEGER, question VARCHAR, response VARCHAR, "
    "extracted VARCHAR, extraction_rule VARCHAR, gold VARCHAR, correct BOOLEAN, correct_exact BOOLEAN, "
    "latency_ms DOUBLE, prompt_tokens BIGINT, completion_tokens BIGINT, finish_reason VARCHAR, "
    "source VARCHAR, simulated BOOLEAN, error VARCHAR"
)
OPTIONAL = {
    "efficient_responses": RESPONSES_COLUMNS
    + ", cheap_model VARCHAR, efficient_protocol VARCHAR, top_problems INTEGER, per_problem INTEGER, "
    "plan_attack VARCHAR, problem_rank INTEGER, step INTEGER, candidates INTEGER, "
    "problem_variants INTEGER, attack_problems INTEGER, attack_variants INTEGER",
    "annotations": "kind VARCHAR, sheet VARCHAR, annotator VARCHAR, item VARCHAR, model VARCHAR, "
    "template VARCHAR, dataset VARCHAR, attack VARCHAR, problem_id VARCHAR, variant_id VARCHAR, "
    "criterion VARCHAR, value INTEGER",
}


def connect(tables_dir, sql_dir, materialise=False):
    con = duckdb.connect()
    for name, (pattern, hive) in TABLES.items():
        full = os.path.join(tables_dir, pattern)
        if not glob.glob(full, recursive=True):
            if name in OPTIONAL:
                con.execute(f"CREATE TABLE {name} ({OPTIONAL[name]})")
            continue
        options = "union_by_name = true"
        if hive:
            options += ", hive_partitioning = true, hive_types_autocast = false"
        else:
            options += ", hive_partitioning = false"
        path = full.replace("'", "''")
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}', {options})")
    views = sorted(glob.glob(os.path.join(sql_dir, "views", "*.sql")))
    # The attacks catalogue reads no table: SqlEngine creates it whatever the folder holds.
    attacks = [p for p in views if os.path.basename(p) == "00_attacks.sql"]
    if not glob.glob(os.path.join(tables_dir, TABLES["responses"][0]), recursive=True):
        views = attacks
    else:
        con.execute("CREATE TABLE model_order (model VARCHAR, position BIGINT)")
    for path in views:
        with open(path) as f:
            view = f.read()
        if materialise:
            view = view.replace("CREATE VIEW", "CREATE TABLE", 1)
        con.execute(view)
    return con


def sql_files(sql_dir):
    return sorted(glob.glob(os.path.join(sql_dir, "*.sql")))


def run(con, path):
    with open(path) as f:
        query = f.read()
    cur = con.execute(query)
    columns = [d[0] for d in cur.description]
    return columns, [list(r) for r in cur.fetchall()]


def normalise(v):
    """Numbers as float (bools stay bools), Decimals as float, the rest unchanged."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def sort_key(row):
    key = []
    for v in row:
        if v is None:
            key.append((0, 0, ""))
        elif isinstance(v, bool):
            key.append((1, int(v), ""))
        elif isinstance(v, float):
            # Round so that 1e-12 differences do not reorder rows.
            key.append((2, round(v, 6), ""))
        else:
            key.append((3, 0, str(v)))
    return key


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))
    return a == b


def compare(name, df, duck_columns, duck_rows):
    if df["columns"] != duck_columns:
        return f"columns differ: DataFusion {df['columns']} vs DuckDB {duck_columns}"
    left = sorted(([normalise(v) for v in r] for r in df["rows"]), key=sort_key)
    right = sorted(([normalise(v) for v in r] for r in duck_rows), key=sort_key)
    if len(left) != len(right):
        return f"{len(left)} rows in DataFusion vs {len(right)} in DuckDB"
    for i, (l, r) in enumerate(zip(left, right)):
        for c, (a, b) in enumerate(zip(l, r)):
            if not same(a, b):
                return f"row {i} column {duck_columns[c]}: DataFusion {a!r} vs DuckDB {b!r}\n  DataFusion row {l}\n  DuckDB row     {r}"
    return None


def parity(tables_dir, sql_dir, df_json):
    with open(df_json) as f:
        datafusion = json.load(f)
    con = connect(tables_dir, sql_dir)
    # Every metric, and each query of the HTML report (named by its path, report/examples) that
    # the caller gave a DataFusion result for.
    files = sql_files(sql_dir) + [
        path
        for path in sorted(glob.glob(os.path.join(sql_dir, "report", "*.sql")))
        if os.path.splitext(os.path.relpath(path, sql_dir))[0] in datafusion
    ]
    if not files:
        print(f"no .sql file in {sql_dir}")
        return 1
    failures = 0
    for path in files:
        name = os.path.splitext(os.path.relpath(path, sql_dir))[0]
        if name not in datafusion:
            print(f"FAIL {name}: no DataFusion result")
            failures += 1
            continue
        try:
            columns, rows = run(con, path)
        except Exception as e:  # noqa: BLE001 - report any DuckDB error as a failure
            print(f"FAIL {name}: DuckDB cannot run it: {e}")
            failures += 1
            continue
        problem = compare(name, datafusion[name], columns, rows)
        if problem:
            print(f"FAIL {name}: {problem}")
            failures += 1
        else:
            print(f"ok   {name}: {len(rows)} rows, {len(columns)} columns")
    print(f"{len(files) - failures} passed, {failures} failed")
    return 1 if failures else 0


def peak_rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def bench(tables_dir, sql_dir, materialise):
    start = time.time()
    con = connect(tables_dir, sql_dir, materialise)
    rows = {}
    for path in sql_files(sql_dir):
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            rows[name] = len(run(con, path)[1])
        except duckdb.CatalogException as e:
            # A metric over a table this run lacks is skipped, as `advmath metrics` skips it.
            if "does not exist" not in str(e):
                raise
            rows[name] = None
    seconds = time.time() - start
    print(json.dumps({"seconds": seconds, "peak_rss_mib": peak_rss_mib(), "rows": rows}))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--bench":
        return bench(argv[2], argv[3], False)
    if len(argv) == 5 and argv[1:3] == ["--bench", "--materialise"]:
        return bench(argv[3], argv[4], True)
    if len(argv) == 4:
        return parity(argv[1], argv[2], argv[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
