"""The tables kinds draw over their own steps (per-OSD bench, the rados bench matrix, RBD
against CephFS), in the ladder's order of what each table is about."""

from __future__ import annotations

from stackprobe.kinds import registry
from stackprobe.schema.results import RunResults, StepResult
from stackprobe.tables.text_table import TextTable


def kind_tables(results: RunResults) -> list[TextTable]:
    by_kind: dict[str, list[StepResult]] = {}
    for step in results.steps:
        by_kind.setdefault(step.kind, []).append(step)
    tables = [t for name, steps in by_kind.items() for t in registry.kind(name).tables(steps)]
    return sorted(tables, key=lambda t: registry.layer_order(t.layer or ""))
