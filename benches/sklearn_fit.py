"""The feature-study fit in scikit-learn, for `cargo bench --bench study`.

Usage: sklearn_fit.py TABLES_DIR OUT_DIR

Builds the matrix `advmath regress` fits by default for the model with the most graded M3
answers: its responses joined to `features_xie2024` (attack=m3) on variant_id, in the table's
order. Times `LogisticRegression(C=1, max_iter=1000)` (the authors' `generation/regression.py`,
raw features) on it, writes the matrix as OUT_DIR/x.f64 (row-major little-endian float64) and
OUT_DIR/y.u8, and prints JSON: model, rows, features, seconds, iterations, coefficients,
intercept.
"""
import glob
import json
import os
import sys
import time

import numpy as np
import pyarrow.dataset as ds
from sklearn.linear_model import LogisticRegression


def main(tables, out):
    feats = ds.dataset(
        os.path.join(tables, "features_xie2024"), format="parquet", partitioning="hive"
    ).to_table(filter=ds.field("attack") == "m3")
    names = [f.name for f in feats.schema if str(f.type) == "double"]
    index = {v: i for i, v in enumerate(feats.column("variant_id").to_pylist())}
    matrix = np.column_stack([feats.column(c).to_numpy() for c in names])

    best = None
    for folder in sorted(glob.glob(os.path.join(tables, "responses", "*"))):
        files = sorted(glob.glob(os.path.join(folder, "*.parquet")))
        if not files:
            continue
        t = ds.dataset(files, format="parquet").to_table(columns=["variant_id", "correct"])
        rows, ys = [], []
        for v, c in zip(t.column("variant_id").to_pylist(), t.column("correct").to_pylist()):
            if c is None or v not in index:
                continue
            rows.append(index[v])
            ys.append(c)
        y = np.array(ys, dtype=np.uint8)
        if 0 < y.sum() < len(y) and (best is None or len(y) > len(best[2])):
            best = (os.path.basename(folder), rows, y)
    model, rows, y = best
    x = np.ascontiguousarray(matrix[rows])
    start = time.time()
    fit = LogisticRegression(C=1.0, max_iter=1000, random_state=0).fit(x, y)
    seconds = time.time() - start
    x.astype("<f8").tofile(os.path.join(out, "x.f64"))
    y.tofile(os.path.join(out, "y.u8"))
    print(json.dumps({
        "model": model,
        "rows": int(len(y)),
        "features": names,
        "seconds": seconds,
        "iterations": int(fit.n_iter_[0]),
        "coefficients": [float(c) for c in fit.coef_[0]],
        "intercept": float(fit.intercept_[0]),
    }))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
