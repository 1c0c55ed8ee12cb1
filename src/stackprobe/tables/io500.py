"""IO500 tables: every phase of an io500 or io500-like step, and its score.

The score is shown as recomputed with IO500's formula (analysis/io500_score.py); when the
run's own result files stated a score, it stands beside ours and any disagreement is named
under the table. An io500-like step's table says in its title that it is not an official
IO500 score — the label travels with the figure wherever it is shown.
"""

from __future__ import annotations

from stackprobe.schema.records import Io500Record, Io500Score
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.tables.text_table import TextTable

HEADERS = ["Phase", "Kind", "Value", "Time", "Scored"]


def io500_records(step: StepResult) -> list[Io500Record]:
    return [r for r in step.records if isinstance(r, Io500Record)]


def io500_tables(results: RunResults) -> list[TextTable]:
    return [phase_table(f"IO500 phases: {step.title}", rec)
            for step in results.steps for rec in io500_records(step)]


def phase_table(title: str, rec: Io500Record) -> TextTable:
    """Each phase with its figure in its own unit (as a file printed it, up to 6 digits),
    its time and whether it is scored; the score and any mismatch under it."""
    label = f" — {rec.label}" if rec.label else ""
    table = TextTable(title=f"{title}{label}", headers=HEADERS, left=(0, 1))
    for ph in rec.phases:
        time = f"{ph.time_s:.1f} s" if ph.time_s is not None else "-"
        table.rows.append([ph.name, ph.kind, f"{ph.value:g} {ph.unit}", time,
                           "yes" if ph.scored else "no"])
    table.notes.append(score_sentence(rec))
    table.notes += rec.mismatches
    return table


def score_text(s: Io500Score) -> str:
    """The score's figures, as the file printed them when it did (no false digits)."""
    shown = s.printed or {}
    bw, md, total = (shown.get(k) or f"{getattr(s, k):.4f}" for k in ("bw", "md", "total"))
    return f"{total} (bandwidth {bw} {s.bw_unit}, metadata {md} {s.md_unit})"


def score_sentence(rec: Io500Record) -> str:
    """'Score 1.23 (…)' — ours, and the file's own beside it when there is one."""
    parts = []
    if rec.score_computed is not None:
        parts.append(f"Score {score_text(rec.score_computed)}, recomputed as {rec.formula}")
    else:
        parts.append("No score: a bandwidth or metadata phase has no figure")
    if rec.score_reported is not None:
        agree = "" if rec.mismatches else ", the same within rounding"
        parts.append(f"the run reported {score_text(rec.score_reported)}{agree}")
    if not rec.official:
        parts.append(rec.label or "not an official IO500 score")
    return "; ".join(parts) + "."
