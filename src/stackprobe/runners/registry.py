"""Step kind -> runner. Adding a tool means adding a module and one line here."""

from __future__ import annotations

from stackprobe.runners.base import Runner
from stackprobe.runners.fio import FioRunner
from stackprobe.runners.inventory import InventoryRunner
from stackprobe.runners.memory import MemoryRunner
from stackprobe.runners.metadata import MetadataRunner

RUNNERS: dict[str, Runner] = {
    "inventory": InventoryRunner(),
    "memory": MemoryRunner(),
    "fio": FioRunner(),
    "metadata": MetadataRunner(),
}


def runner_for(kind: str) -> Runner:
    return RUNNERS[kind]
