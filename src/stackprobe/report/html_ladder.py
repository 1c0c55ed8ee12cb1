"""The HTML report's ladder: each upper-rung result against the ceiling its lower rungs
allow, as a chart of bar pairs, the model's sentences, and the ladder table.

Everything comes from analysis/ceilings.py (`ladder`); the table is the one the terminal
and Markdown report show (report/ladder_tables.py). Rungs have different units (B/s,
IOPS), so each pair is scaled on its own and labelled with its own figures.
"""

from __future__ import annotations

from typing import Any

from stackprobe.analysis.ceilings import OVER_CEILING, Rung
from stackprobe.report.ladder_tables import bottleneck_text, missing_sentences, run_ladder
from stackprobe.report.svg_charts import BarPair, bar_pairs
from stackprobe.schema.results import RunResults

TITLE = "Measured against the ceiling of the lower rungs"
WIDTH = 860


def ladder_figure(rungs: list[Rung]) -> str:
    return bar_pairs(TITLE, [_pair(r) for r in rungs], ref_name="ceiling",
                     value_name="measured", width=WIDTH)


def _pair(r: Rung) -> BarPair:
    ceiling, eff, t = r.ceiling, r.efficiency, r.limiting
    if ceiling is None or eff is None or t is None:
        return BarPair(r.name, r.measured, r.fmt(r.measured),
                       None, "no ceiling", note="missing: " + "; ".join(r.missing or ["lower rungs"]),
                       tip=r.verdict)
    return BarPair(r.name, r.measured, r.fmt(r.measured), ceiling, r.fmt(ceiling),
                   share=f"{eff:.0%}", note=f"bottleneck: {bottleneck_text(r) or t.layer}",
                   tip=r.verdict, over=eff > OVER_CEILING)


def ladder_section(results: RunResults) -> dict[str, Any] | None:
    """The page's ladder section: the chart and the sentences (the table is added by the
    caller, from the same table pool as the other sections); None without upper rungs."""
    rungs = run_ladder(results)
    if not rungs:
        return None
    return {
        "chart": ladder_figure(rungs),
        "verdicts": [r.verdict for r in rungs],
        "missing": missing_sentences(rungs),
        "notes": [f"{r.name}: {n}" for r in rungs for n in r.notes],
        "warnings": [w for r in rungs for w in r.warnings],
    }
