"""Regression gates: every figure a baseline run measured, checked in a later run.

Why: a cluster that was fast last week and is 20% slower today fails no acceptance
criterion written in absolute numbers, yet something changed. A gate compares each figure
with the baseline's, paired exactly as `compare` pairs rows (report/compare.py: workload
keys, the headline figure, Welch's test on the repetitions), so what `compare` shows and
what the gate decides never disagree.

A figure fails its gate when it is worse than the baseline's by more than the threshold
AND, when both runs repeated the step, beyond noise: a change the repetitions cannot tell
from scatter is not called a regression, however large. A run measured once has no
spread: the threshold alone decides, and the item says so. A gated figure this run does not
have (the step is gone, failed, or measured nothing) fails: it never passes silently.
"""

from __future__ import annotations

import math
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.report.compare import (
    BEYOND_NOISE,
    NO_ROW_SPREAD,
    NOT_IN_RUN,
    SINGLE_RUN,
    WITHIN_NOISE,
    MatchedRow,
    Side,
    match_rows,
)
from stackprobe.report.compare_inventory import inventory_differences
from stackprobe.report.figure_keys import UNITS, Figure, run_figures, value_text
from stackprobe.schema.results import RunResults
from stackprobe.schema.verdict import CheckItem, Verdict
from stackprobe.verdict.codes import EXIT_OK, EXIT_REGRESSION

DEFAULT_MAX_REGRESSION_PCT = 10.0
# lines of inventory_differences that are there whatever the machines are
_NOT_MACHINE = ("Suite", "Target", "Machines", "Inventory", "stackprobe")


def parse_pct(text: str, option: str = "--max-regression") -> float:
    """'10%', '10' or '7.5 %' -> the percentage; a one-line error otherwise."""
    try:
        value = float(str(text).strip().removesuffix("%").strip())
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise UserError(f"{option} {text}: expected a percentage of 0 or more, e.g. 10%")
    return value


def regression_items(results: RunResults, baseline: RunResults, label: str,
                     max_regression_pct: float, *, path: str | Path | None = None
                     ) -> tuple[list[CheckItem], dict]:
    """One gate per figure of the baseline (its headline figure of each row compare
    matches), and the Verdict.baseline info: differences first, then name, run, path,
    threshold. `path` is the baseline's run directory, when the caller knows it."""
    baseline_figures = run_figures(baseline)
    used: set[int] = set()
    items = []
    gated = 0  # figures of the baseline gated (the rest of `items`: figures it lacks)
    figures: list[Figure] | None = None  # this run's, read when a figure is not in the baseline
    used_here: set[int] = set()
    for matched in match_rows([baseline, results]):
        base, side = matched.sides
        if base.row is None or base.value is None:
            if side.row is not None and side.value is not None:
                figures = figures if figures is not None else run_figures(results)
                own = _figure_of(figures, side.row, matched.headline, used_here)
                items.append(_not_in_baseline(matched, side, label, own.text if own else None))
            continue  # the baseline has no such figure: nothing to gate
        gated += 1
        figure = _figure_of(baseline_figures, base.row, matched.headline, used)
        key = figure.text if figure else f"{matched.workload}:{matched.headline}"
        items.append(_gate(key, matched, side, label, max_regression_pct))
    if not gated:
        items.append(CheckItem(kind="regression", rule=f"figures of {baseline.run.id}",
                               origin=f"--against {label}", status="fail",
                               detail="the baseline has no figure to gate (no step measured one)"))
    differences = inventory_differences([baseline, results])
    info = {
        "differences": [list(line) for line in differences],
        "other_machine": any(what not in _NOT_MACHINE and not what.startswith("Tool ")
                             for what, _ in differences),
        "name": label,
        "run": baseline.run.id,
        "path": str(path) if path is not None else "",
        "max_regression_pct": max_regression_pct,
    }
    return items, info


def _figure_of(figures: list[Figure], row, headline: str, used: set[int]) -> Figure | None:
    """The figure of a matched row's side: that row's headline figure, found among its
    run's figures (rows compare by value, as both come from the same keyed rows of the
    run; `used` keeps two equal rows from taking the same figure)."""
    for i, fig in enumerate(figures):
        if i not in used and fig.key.figure == headline and fig.row == row:
            used.add(i)
            return fig
    return None


def _gate(key: str, matched: MatchedRow, side: Side, label: str, max_pct: float) -> CheckItem:
    base = matched.sides[0]
    headline = matched.headline
    steps = [s.row.step for s in (base, side) if s.row is not None]
    item = dict(kind="regression", rule=key, origin=f"--against {label}", unit=UNITS[headline],
                sources=list(dict.fromkeys([key, *steps])))
    was = f"{base.label}: {value_text(base.value, UNITS[headline])}"
    if side.row is None or side.value is None:
        why = side.absent or f"no {headline} figure"
        return CheckItem(**item, status="fail", measured=f"{side.label}: {why} vs {was}",
                         detail=f"gated figure missing from this run ({why})")
    change = side.change_pct if side.change_pct is not None else 0.0
    worse_pct = change if headline == "lat" else -change
    measured = f"{side.label}: {value_text(side.value, UNITS[headline])} vs {was} ({change:+.1f}%)"
    over = worse_pct > max_pct
    noise = _noise_text(side)
    if not over:
        status, detail = "pass", f"within the {max_pct:g}% gate"
    elif side.verdict == WITHIN_NOISE:
        status, detail = "pass", f"worse by {worse_pct:.1f}% (gate {max_pct:g}%) but not a regression"
    else:
        status, detail = "fail", f"worse by {worse_pct:.1f}% (gate {max_pct:g}%)"
    return CheckItem(**item, status=status, measured=measured, value=side.value,
                     detail=f"{detail}; {noise}")


def _not_in_baseline(matched: MatchedRow, side: Side, label: str, key: str | None) -> CheckItem:
    """A figure this run has and the baseline lacks. Where the baseline's step failed, the
    gate on it fails (the figure is missing from one of the runs, never a silent pass);
    where the baseline never ran the workload (a step added since), nothing was gated:
    NOT MEASURED, a failure only under --strict."""
    base = matched.sides[0]
    key = key or f"{matched.workload}:{matched.headline}"
    failed = base.absent not in ("", NOT_IN_RUN)
    measured = f"{side.label}: {value_text(side.value, UNITS[matched.headline])} vs {base.label}: {base.absent}"
    return CheckItem(kind="regression", rule=key, origin=f"--against {label}",
                     status="fail" if failed else "not measured", measured=measured,
                     value=side.value, unit=UNITS[matched.headline],
                     sources=[side.row.step] if side.row is not None else [],
                     detail=("gated figure missing from the baseline" if failed else
                             "not in the baseline: a workload it never ran is not gated"))


def _noise_text(side: Side) -> str:
    if side.verdict == BEYOND_NOISE:
        return "beyond noise (Welch's t-test, 5%)"
    if side.verdict == WITHIN_NOISE:
        return "within noise (Welch's t-test, 5%)"
    if side.verdict == NO_ROW_SPREAD:
        return "no per-row spread of the repetitions: threshold only"
    if side.verdict == SINGLE_RUN:
        return "single run: threshold only"
    return "no noise test"


def gate_verdict(items: list[CheckItem], info: dict) -> Verdict:
    """The verdict of gates alone (`compare --against`): regression when one failed."""
    failed = any(i.status == "fail" for i in items)
    return Verdict(status="regression" if failed else "pass",
                   exit_code=EXIT_REGRESSION if failed else EXIT_OK, items=items, baseline=info)
