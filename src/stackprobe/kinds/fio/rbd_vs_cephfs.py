"""RBD vs CephFS (seed 003): the same fio workload through librbd and on CephFS, side by side."""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.schema.results import StepResult
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_iops, fmt_ns


def rbd_vs_cephfs(steps: Sequence[StepResult]) -> TextTable:
    """Pairs of fio steps identical but for target rbd / cephfs."""
    table = TextTable("RBD vs CephFS (same fio workload)",
                      ["Test", "Figure", "RBD", "CephFS", "CephFS / RBD"], layer="client")
    by_key: dict[tuple, dict[str, StepResult]] = {}
    for step in steps:
        target = step.params.get("target")
        if target in ("rbd", "cephfs") and step.records:
            key = tuple(sorted((k, str(v)) for k, v in step.params.items() if k != "target"))
            by_key.setdefault(key, {})[target] = step
    for pair in by_key.values():
        if set(pair) != {"rbd", "cephfs"}:
            continue
        rbd, fs = pair["rbd"], pair["cephfs"]
        a, b = _headline(rbd), _headline(fs)
        if a is None or b is None:
            continue
        (value_a, unit), (value_b, _) = a, b
        title = rbd.title.removesuffix(" on RBD")
        fmt = {"IOPS": fmt_iops, "B/s": fmt_bw, "ns": fmt_ns}.get(unit, str)
        label = {"IOPS": "IOPS", "B/s": "bandwidth", "ns": "mean latency"}.get(unit, unit)
        ratio = f"{value_b / value_a:.2f}" if value_a else "-"
        table.rows.append([title, label, fmt(value_a), fmt(value_b), ratio])
    return table


def _headline(step: StepResult) -> tuple[float, str] | None:
    s = step.summary
    if s is None or s.headline_value is None or step.status != "ok":
        return None
    return s.headline_value, s.headline_unit or ""
