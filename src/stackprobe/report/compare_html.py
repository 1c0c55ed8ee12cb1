"""`stackprobe compare … --format html`: the comparison as one self-contained page.

The same legend, machine differences and tables as the terminal and Markdown comparison
(report/compare.py), in the run report's style (the templates share their CSS and table
macro), with nothing loaded from anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from jinja2 import Environment, PackageLoader, StrictUndefined

from stackprobe import __version__
from stackprobe.report.compare import compare
from stackprobe.report.compare_render import comparison_tables
from stackprobe.schema.results import RunResults

TEMPLATE = "compare.html.j2"


def to_compare_html(runs: Sequence[RunResults]) -> str:
    comparison = compare(runs)
    env = Environment(loader=PackageLoader("stackprobe.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    tables = [{"title": t.title, "headers": t.headers, "rows": t.rows, "notes": t.notes}
              for t in comparison_tables(comparison)]
    return env.get_template(TEMPLATE).render(
        version=__version__, labels=comparison.labels, legend=comparison.legend,
        differences=comparison.differences, tables=tables)
