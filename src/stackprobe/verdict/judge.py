"""Each rule against what the run measured: PASS, FAIL or NOT MEASURED, with the value
and where it came from.

A figure rule judges every figure it names (a step's rows; a fleet step's all-clients row
when it has one, not each client) and is as good as the worst of them: '>= 150k' fails
when any named figure is below 150k and shows that one. A finding rule fails on any place
its check found wrong, naming them all. Nothing measured answers the rule — a figure no
step produced, a step that failed, a check with nothing to look at — is NOT MEASURED,
never a pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.report.figure_keys import Figure, FigureKey, matching, value_text
from stackprobe.schema.results import RunResults
from stackprobe.schema.verdict import CheckItem
from stackprobe.verdict.bind import BoundRule
from stackprobe.verdict.rules import Rule


def judge(results: RunResults, bound: BoundRule, figures: Sequence[Figure]) -> CheckItem:
    rule = bound.rule
    steps = [s for s in results.steps if bound.steps is None or s.id in bound.steps]
    base = dict(kind="criterion", rule=rule.text, origin=bound.origin)
    if rule.figure is not None:
        named = _named(rule.figure, figures, bound.steps)
        if not named:
            return CheckItem(**base, status="not measured", sources=[s.id for s in steps],
                             detail=_why_missing(steps))
        worst = _worst(rule, [(f.value, f) for f in named])
        value, fig = worst
        failing = [f for f in named if not rule.holds(f.value)]
        return CheckItem(**base, status="fail" if failing else "pass",
                         measured=value_text(value, fig.unit), value=value,
                         unit=rule.unit, sources=sorted({f.text for f in named}),
                         detail=_detail(failing, named))
    assert rule.check is not None
    outcomes = rule.check.outcomes(results, steps, rule.argument)
    if not outcomes:
        return CheckItem(**base, status="not measured", sources=[s.id for s in steps],
                         detail=f"nothing in the run answers '{rule.check.phrase}'")
    sources = sorted({src for o in outcomes for src in o.sources})
    if rule.op is None:
        bad = [o for o in outcomes if not o.ok]
        measured = ("; ".join(o.measured for o in bad[:6])
                    + (f" (+{len(bad) - 6} more)" if len(bad) > 6 else "")
                    if bad else rule.check.all_well(outcomes))
        return CheckItem(**base, status="fail" if bad else "pass", measured=measured,
                         sources=sources, detail="; ".join(o.detail for o in bad if o.detail))
    valued = [(o.value, o) for o in outcomes if o.value is not None]
    value, worst_outcome = _worst(rule, valued)
    bad = [o for v, o in valued if not rule.holds(v)]
    return CheckItem(**base, status="fail" if bad else "pass", measured=worst_outcome.measured,
                     value=value, unit=rule.unit, sources=sources,
                     detail="; ".join(o.measured for o in bad[1:]))


def _named(key: FigureKey, figures: Sequence[Figure], steps: tuple[str, ...] | None) -> list[Figure]:
    return matching(key, [f for f in figures if steps is None or f.step in steps])


def _worst(rule: Rule, values: list[tuple[float, object]]):
    """The value that most nearly breaks (or breaks most) the rule."""
    if rule.op in (">=", ">"):
        return min(values, key=lambda v: v[0])
    return max(values, key=lambda v: v[0])


def _detail(failing: list[Figure], named: list[Figure]) -> str:
    if len(named) == 1:
        return f"from {named[0].step}"
    text = f"worst of {len(named)} figures"
    if failing:
        text += "; failing: " + ", ".join(
            f"{f.text} = {value_text(f.value, f.unit)}" for f in failing[:4])
    return text


def _why_missing(steps) -> str:
    bad = [f"{s.id} {s.status}" for s in steps if s.status != "ok"]
    return ("no such figure in the run" + (f" ({', '.join(bad[:4])})" if bad else ""))
