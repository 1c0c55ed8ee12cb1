"""The verdict of a run: the criteria judged, the regression gates, and every flagged
finding no rule covers — one checklist and one exit status (verdict/codes.py).

Findings without a rule (a slow node, a flagged link, a stall) are warnings: the run says
them, but only the suite's criteria decide acceptance. `strict` makes every warning and
every NOT MEASURED criterion a failure, for pipelines that accept nothing unexplained.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.kinds.checks import NoFailedStep
from stackprobe.report.figure_keys import run_figures
from stackprobe.schema.results import RunResults
from stackprobe.schema.verdict import CheckItem, Verdict
from stackprobe.verdict.bind import BoundRule
from stackprobe.verdict.codes import (
    EXIT_CRITERIA_FAILED,
    EXIT_INTERRUPTED,
    EXIT_REGRESSION,
    EXIT_STEP_FAILED,
    winning,
)
from stackprobe.verdict.judge import judge
from stackprobe.verdict.registry import all_checks
from stackprobe.verdict.step_criteria import step_criteria


def build_verdict(results: RunResults, rules: Sequence[BoundRule], *, strict: bool = False,
                  regressions: Sequence[CheckItem] = (), baseline: dict | None = None) -> Verdict:
    figures = run_figures(results)
    items = [judge(results, bound, figures) for bound in rules]
    items += step_criteria(results)  # criteria a step stated (a settings profile's)
    items += list(regressions)
    items += unruled_findings(results, rules, strict)
    codes = set()
    if results.run.status == "interrupted":
        codes.add(EXIT_INTERRUPTED)
    elif results.run.status == "failed":
        codes.add(EXIT_STEP_FAILED)
    criteria_failed = any(_fails(i, strict) for i in items if i.kind != "regression")
    regressed = any(i.status == "fail" for i in items if i.kind == "regression")
    if criteria_failed:
        codes.add(EXIT_CRITERIA_FAILED)
    if regressed:
        codes.add(EXIT_REGRESSION)
    code = winning(codes)
    status = ("incomplete" if code in (EXIT_INTERRUPTED, EXIT_STEP_FAILED) else
              "fail" if criteria_failed else "regression" if regressed else "pass")
    return Verdict(status=status, exit_code=code, strict=strict, items=items, baseline=baseline)


def _fails(item: CheckItem, strict: bool) -> bool:
    return item.status == "fail" or (strict and item.status in ("not measured", "warn"))


def unruled_findings(results: RunResults, rules: Sequence[BoundRule], strict: bool) -> list[CheckItem]:
    """A 'warn' item (a 'fail' under strict) for each place a yes/no check finds wrong that
    no rule of the same check already judged. Failed steps are left to the run's status."""
    covered: dict[str, set[str] | None] = {}
    for bound in rules:
        check = bound.rule.check
        if check is None:
            continue
        if bound.steps is None or covered.get(check.phrase, set()) is None:
            covered[check.phrase] = None
        else:
            covered.setdefault(check.phrase, set()).update(bound.steps)
    out = []
    for check in all_checks().checks:
        if check.unit is not None or isinstance(check, NoFailedStep):
            continue
        scope = covered.get(check.phrase, set())
        if scope is None:
            continue
        for outcome in check.outcomes(results, [s for s in results.steps if s.id not in scope]):
            if outcome.ok:
                continue
            out.append(CheckItem(kind="finding", rule=check.phrase, origin="analysis",
                                 status="fail" if strict else "warn", measured=outcome.measured,
                                 sources=list(outcome.sources), detail=outcome.detail))
    return out
