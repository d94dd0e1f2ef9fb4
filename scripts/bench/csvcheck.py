"""Checks a crawler's CSV export against the demo site's truth (scripts/bench/loop.sh).

    python3 csvcheck.py TRUTH.csv OUT.csv

prints "rows duplicate_rows truth_rows": the rows of OUT, the rows whose url
is already on an earlier row, and the truth's rows found in OUT with all
their fields equal (columns are matched by the header's names, so their
order does not matter; a truth row found twice counts once).
"""

import csv
import sys


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main(truth_path, out_path):
    truth = rows(truth_path)
    fields = list(truth[0].keys()) if truth else []
    out = rows(out_path)
    urls = [r.get("url") for r in out]
    got = {tuple(r.get(k) or "" for k in fields) for r in out}
    matching = sum(tuple(r[k] for k in fields) in got for r in truth)
    print(len(out), len(urls) - len(set(urls)), matching)


if __name__ == "__main__":
    main(*sys.argv[1:])
