"""A run's figures as CSV: one row per figure, for a spreadsheet or a script.

Unlike `report --format csv` (the summary table as people read it, one row per table row
with its figures in columns), this is one figure per row under its figure key, in base
units (IOPS, B/s, ns) — the shape a script filters and joins without knowing the kinds.
"""

from __future__ import annotations

import csv
import io

from stackprobe.report.export_labels import exported
from stackprobe.schema.results import RunResults

COLUMNS = ("run", "suite", "host", "step", "key", "workload", "direction", "figure", "value",
           "unit")


def to_figures_csv(results: RunResults) -> str:
    """Header row, then every figure of the run; values with every digit (repr)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for item in exported(results):
        row = {name: item.labels[name] for name in COLUMNS if name in item.labels}
        writer.writerow({**row, "value": repr(item.value), "unit": item.unit})
    return buf.getvalue()
