"""What differs between the machines of compared runs: suite, target, host, CPU, memory,
kernel, OS and tool versions — listed before any figure, because a change in a figure means
little until the reader knows what else changed (seed 001 compared ARM with x86 servers).
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.schema.records import InventoryRecord
from stackprobe.schema.results import RunResults
from stackprobe.units import fmt_bytes


def run_labels(count: int) -> list[str]:
    """A, B, C, ... for the runs in the order given (the first is the baseline)."""
    return [chr(ord("A") + i) if i < 26 else f"R{i + 1}" for i in range(count)]


def inventory_differences(runs: Sequence[RunResults]) -> list[tuple[str, str]]:
    """(what, values) for suite and target always, then only what differs between the runs:
    controller host, each host's CPU, architecture, logical CPUs, memory, kernel, OS (host
    by host when the runs have several), stackprobe's and the tools' versions."""
    labels = run_labels(len(runs))
    lines = [("Suite", values_text(labels, [r.run.suite for r in runs])),
             ("Target", values_text(labels, [r.run.target for r in runs]))]
    # None: not known for that run (no inventory), left out of the comparison
    compared: list[tuple[str, list[str | None]]] = [("Host", [r.run.host for r in runs])]
    inventories = [[rec for s in r.steps for rec in s.records if isinstance(rec, InventoryRecord)]
                   for r in runs]
    compared += _inventory_fields(inventories)
    compared.append(("stackprobe", [r.run.stackprobe_version for r in runs]))
    tools = sorted({t for r in runs for t in r.run.tool_versions})
    # a tool only some runs used is no version difference (the rows show what was measured)
    compared += [(f"Tool {t}", [r.run.tool_versions.get(t) for r in runs]) for t in tools]
    differing = [(what, values_text(labels, values)) for what, values in compared
                 if len({v for v in values if v is not None}) > 1]
    lines += differing
    without = [label for label, invs in zip(labels, inventories) if not invs]
    if without:
        lines.append(("Inventory", f"none in {', '.join(without)} (no inventory step): "
                                   "CPU, memory, kernel and OS not compared there"))
    elif not differing:
        lines.append(("Machines", "no difference in host, CPU, memory, kernel, OS or tool "
                                  "versions"))
    return lines


_FIELD_NAMES = ("CPU", "Architecture", "Logical CPUs", "Memory", "Kernel", "OS")


def _host_fields(inv: InventoryRecord) -> dict[str, str]:
    cpu, total = inv.cpu, inv.memory.get("total_bytes")
    return {
        "CPU": str(cpu.get("model") or "?"),
        "Architecture": str(cpu.get("architecture") or "?"),
        "Logical CPUs": str(cpu.get("logical_cpus") or "?"),
        "Memory": fmt_bytes(total) if total else "?",  # as people read it: 23.5 GiB
        "Kernel": inv.kernel or "?",
        "OS": inv.os or "?",
    }


def _inventory_fields(inventories: Sequence[Sequence[InventoryRecord]]
                      ) -> list[tuple[str, list[str | None]]]:
    """(field, value per run; None for a run without inventory). One host per run: compared
    whatever the hosts are called (two machines compared are usually named differently);
    several: host by host, by name ('absent' where a run did not have that host)."""
    per_run = [{inv.host or "?": _host_fields(inv) for inv in invs} for invs in inventories]
    known = [hosts for hosts in per_run if hosts]
    if len(known) < 2:
        return []
    single = all(len(hosts) == 1 for hosts in known)
    names = [""] if single else list(dict.fromkeys(h for hosts in known for h in hosts))
    out: list[tuple[str, list[str | None]]] = []
    for name in names:
        for field in _FIELD_NAMES:
            values: list[str | None] = []
            for hosts in per_run:
                found = next(iter(hosts.values()), None) if single else hosts.get(name)
                values.append(None if not hosts else found[field] if found else "absent")
            out.append((f"{name} {field}".strip(), values))
    return out


def values_text(labels: Sequence[str], values: Sequence[str | None]) -> str:
    """'quick' when every run has it; 'A: quick · B: standard' otherwise (None left out)."""
    shown = [(label, v) for label, v in zip(labels, values) if v is not None]
    if len({v for _, v in shown}) == 1:
        return shown[0][1]
    return " · ".join(f"{label}: {v}" for label, v in shown)
