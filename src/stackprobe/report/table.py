"""The summary table of a run: every step's rows, in the ladder's order (hardware -> disk
-> ... -> client), as plain rows every output format renders.

Which rows a step has is its kind's (`Kind.rows`, built from tables/rows.py); here they
are put in order and marked with what holds for the whole step: its repetitions (runs,
95% CI, CoV, noisy) and its steady state.
"""

from __future__ import annotations

from stackprobe.kinds import registry
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.spec.steps import LAYERS
from stackprobe.tables.rows import Row

__all__ = ["Row", "summary_rows", "workload_text"]


def summary_rows(results: RunResults) -> list[Row]:
    rows: list[Row] = []
    order = {layer: i for i, layer in enumerate(LAYERS)}
    steps = sorted(results.steps, key=lambda s: (order.get(s.layer, 99), s.index))
    for step in steps:
        rows.extend(_step_rows(step))
    return rows


def workload_text(step: StepResult) -> str:
    """What the step loads, in a few words, as its kind says it."""
    return registry.kind(step.kind).workload_text(step.params)


def _step_rows(step: StepResult) -> list[Row]:
    rows = registry.kind(step.kind).rows(step)
    steady = _steady_text(step.summary.steady) if step.summary and step.summary.steady else None
    for row in rows:
        row.steady = steady
    rep = step.summary.repeat if step.summary is not None else None
    if rep is not None and rep.mean:
        for row in rows:
            row.runs = rep.n
            row.ci95_pct = (rep.ci95_high - rep.mean) / rep.mean * 100 if rep.ci95_high else None
            row.cov_pct = rep.cov * 100 if rep.cov is not None else None
            row.noisy = rep.noisy
    return rows


def _steady_text(s: dict) -> str:
    if not s.get("steady"):
        return "not steady"
    at = s.get("reached_at_s")
    text = f"steady from {at:.0f} s" if at is not None else "steady"
    if s.get("stopped_early"):
        text = f"steady at {at:.0f} s, stopped: {s.get('saved_s', 0):.0f} s saved"
    return text
