"""The feature study's fits against numpy and scikit-learn, on the tables `advmath regress` wrote.

Usage: check_regression.py TABLES_DIR LINEAR_COEFFICIENTS LOGISTIC_COEFFICIENTS

For every (model, template) fit in the two coefficient files (Parquet, the `coefficients` table
of a `--method linear` and of a `--method logistic` run, both on `features_xie2024`, attack m3,
raw features, alpha 1), rebuilds the matrix advmath fitted: the model's graded responses joined
to `features_xie2024` (attack=m3) on variant_id. Then:

* linear: `numpy.linalg.lstsq([X, 1], y, rcond=None)`, the minimum-norm least-squares solution
  (statsmodels' OLS on the same columns, as the authors' `--regression_method linear`); every
  coefficient must agree to 1e-8 (relative to max(1, |b|));
* logistic: scikit-learn `LogisticRegression(C=1, solver="newton-cholesky", tol=1e-12)` on the
  columns that vary (advmath reports a constant column as not estimable); every coefficient must
  agree to 1e-6 (lbfgs, scikit-learn's default solver, stops far from the optimum on raw
  features, so a second-order solver is the reference).

Prints one JSON line per fit with the largest difference; exits 1 when one is over its bound.
"""
import glob
import json
import os
import sys

import numpy as np
import pyarrow.dataset as ds
import pyarrow.parquet as pq
from sklearn.linear_model import LogisticRegression


def matrices(tables):
    feats = ds.dataset(
        os.path.join(tables, "features_xie2024"), format="parquet", partitioning="hive"
    ).to_table(filter=ds.field("attack") == "m3")
    names = [f.name for f in feats.schema if str(f.type) == "double"]
    index = {v: i for i, v in enumerate(feats.column("variant_id").to_pylist())}
    matrix = np.column_stack([feats.column(c).to_numpy() for c in names])
    groups = {}
    for folder in sorted(glob.glob(os.path.join(tables, "responses", "*"))):
        files = sorted(glob.glob(os.path.join(folder, "*.parquet")))
        if not files:
            continue
        t = ds.dataset(files, format="parquet").to_table(
            columns=["model", "template", "variant_id", "correct"]
        )
        for m, tp, v, c in zip(*(t.column(n).to_pylist() for n in t.column_names)):
            if c is None or v not in index:
                continue
            rows, ys = groups.setdefault((m, tp), ([], []))
            rows.append(index[v])
            ys.append(1.0 if c else 0.0)
    return names, {k: (matrix[r], np.array(y)) for k, (r, y) in groups.items()}


def fitted(path):
    t = pq.read_table(path).to_pylist()
    out = {}
    for r in t:
        out.setdefault((r["model"], r["template"]), {})[r["feature"]] = r
    return out


def main(tables, linear_path, logistic_path):
    names, data = matrices(tables)
    worst = 0
    for method, path in (("linear", linear_path), ("logistic", logistic_path)):
        for key, terms in sorted(fitted(path).items()):
            x, y = data[key]
            assert all(t["method"] == method for t in terms.values()), key
            if method == "linear":
                design = np.column_stack([x, np.ones(len(y))])
                beta = np.linalg.lstsq(design, y, rcond=None)[0]
                expected = dict(zip(names + ["intercept"], beta))
                bound = 1e-8
            else:
                varies = [j for j in range(x.shape[1]) if np.var(x[:, j]) > 1e-12]
                fit = LogisticRegression(
                    C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=1000
                ).fit(x[:, varies], y)
                expected = {names[j]: c for j, c in zip(varies, fit.coef_[0])}
                expected["intercept"] = fit.intercept_[0]
                bound = 1e-6
            diff = 0.0
            for name, want in expected.items():
                got = terms[name]["coefficient"]
                diff = max(diff, abs(got - want) / max(1.0, abs(want)))
            compared = len(expected)
            ok = bool(diff <= bound)
            worst |= not ok
            print(json.dumps({
                "method": method, "model": key[0], "template": key[1], "rows": int(len(y)),
                "coefficients": compared, "largest_relative_difference": float(diff), "ok": bool(ok),
            }))
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
