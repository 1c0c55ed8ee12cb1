"""Criteria a step states itself: checklist items stored in its findings['criteria'].

Why: some acceptance lists come with the step, not the suite — a settings profile is a
list of expected settings, each one a criterion with its own file and line. The step judges
them where it measured (it knows the hosts and values) and stores CheckItem-shaped dicts;
here they join the checklist like the suite's criteria: a fail fails the run (exit 3), a
NOT MEASURED fails it under --strict. Any kind may state criteria this way.

An entry that is not a valid CheckItem (an older or damaged results.json) is kept as NOT
MEASURED, never dropped and never a pass.
"""

from __future__ import annotations

from pydantic import ValidationError

from stackprobe.schema.results import RunResults
from stackprobe.schema.verdict import CheckItem


def step_criteria(results: RunResults) -> list[CheckItem]:
    out = []
    for step in results.steps:
        stated = step.findings.get("criteria") or []
        for raw in stated if isinstance(stated, list) else [stated]:
            try:
                item = CheckItem.model_validate({**raw, "kind": "criterion"})
            except (ValidationError, TypeError):
                rule = raw.get("rule") if isinstance(raw, dict) else None
                item = CheckItem(kind="criterion", rule=str(rule or f"criterion of {step.id}"),
                                 origin=step.id, status="not measured",
                                 detail="the criterion stored by the step is unreadable")
            if step.id not in item.sources:
                item.sources.append(step.id)
            out.append(item)
    return out
