"""A suite's criteria read and tied to the plan before anything runs.

Every rule is parsed (verdict/rules.py) and, when it names a figure by its key, checked
against the planned steps: a key whose kind or parameters no planned step has is refused
now, with file:line:field, rather than found NOT MEASURED after an hour of load. A rule
written under a step applies to the steps that step became (its sweep), a suite-level
rule to the whole run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stackprobe.report.compare import workload_key
from stackprobe.report.figure_keys import FigureKey
from stackprobe.spec.planned import PlannedStep
from stackprobe.suite.loader import LoadedSuite, SuiteError
from stackprobe.suite.yaml_lines import line_for, load_with_lines
from stackprobe.verdict.registry import all_checks
from stackprobe.verdict.rules import Rule, RuleError, parse_rule


@dataclass(frozen=True)
class BoundRule:
    rule: Rule
    origin: str  # 'suite.yaml:42'
    steps: tuple[str, ...] | None  # the step ids it judges; None: the whole run


def bind_criteria(loaded: LoadedSuite, plan: Sequence[PlannedStep]) -> list[BoundRule]:
    """The suite's rules, parsed and placed; SuiteError (file:line: field: why) otherwise."""
    filename = suite_filename(loaded.source)
    _, lines = load_with_lines(loaded.text)
    bound = []
    checks = all_checks()
    for i, text in enumerate(loaded.suite.criteria):
        path = ("criteria", i)
        rule = _parse(text, checks, False, filename, lines, path)
        if rule.figure is not None:
            _check_planned(rule.figure, plan, filename, lines, path)
        bound.append(BoundRule(rule, f"{filename}:{line_for(lines, path) or 1}", None))
    for n, step in enumerate(loaded.suite.steps, start=1):
        ids = tuple(p.id for p in plan if p.suite_step == n)
        for i, text in enumerate(step.criteria):
            path = ("steps", n - 1, "criteria", i)
            rule = _parse(text, checks, True, filename, lines, path)
            if rule.figure is not None and rule.figure.kind:
                _check_planned(rule.figure, [p for p in plan if p.suite_step == n],
                               filename, lines, path)
            bound.append(BoundRule(rule, f"{filename}:{line_for(lines, path) or 1}", ids))
    return bound


def suite_filename(source: str) -> str:
    """The name errors give a suite: its path, or '<name>.yaml' for a built-in one."""
    return f"{source.removeprefix('builtin:')}.yaml" if source.startswith("builtin:") else source


def _parse(text, checks, in_step, filename, lines, path) -> Rule:
    try:
        return parse_rule(text, checks, in_step=in_step)
    except RuleError as exc:
        raise SuiteError(f"{filename}:{line_for(lines, path) or 1}: {_field(path)}: {exc}") from None


def _check_planned(key: FigureKey, plan: Sequence[PlannedStep], filename, lines, path) -> None:
    """Refuse a key no planned step can answer: an unknown kind, or parameters none has."""
    where = f"{filename}:{line_for(lines, path) or 1}: {_field(path)}"
    kinds = {p.kind for p in plan}
    if key.kind not in kinds:
        raise SuiteError(f"{where}: no {key.kind} step in this suite measures '{key.text}'"
                         f" (its kinds: {', '.join(sorted(kinds))})")
    wanted = {(k, v) for k, v in key.params if k != "hosts"}  # hosts are known at run time
    for step in plan:
        if step.kind == key.kind and wanted <= set(workload_key(step)[2]):
            return
    shown = FigureKey(kind=key.kind, params=tuple(sorted(wanted))).workload.partition(":")[2]
    raise SuiteError(f"{where}: no {key.kind} step has {shown or 'these parameters'}"
                     " (a key names a step's workload: see `stackprobe plan` and docs/verdicts.md)")


def _field(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p)
                   for i, p in enumerate(path))
