"""What `stackprobe doctor` finds on this machine, as plain data (the table, the JSON and
the exit status are made from it): every tool stackprobe can drive with its version, and
for each built-in suite whether the tools its steps need are here."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class ToolFinding:
    name: str
    version: str | None  # None: missing
    package: str
    purpose: str


@dataclass
class SuiteFinding:
    name: str
    missing: list[str]  # the tools it needs that are not here (an AnyOf by its first name)

    @property
    def can_run(self) -> bool:
        return not self.missing

    def as_json(self) -> dict:
        return {**asdict(self), "can_run": self.can_run}


def local_tools() -> list[ToolFinding]:
    from stackprobe.engine.tools import all_tools
    from stackprobe.transport.local import LocalTransport
    from stackprobe.transport.tools import tool_version

    transport = LocalTransport()
    return [ToolFinding(t.name, tool_version(transport, t), t.package, t.purpose)
            for t in all_tools()]


def suite_findings(found: dict[str, bool]) -> list[SuiteFinding]:
    """Each built-in suite, planned for this machine, and the tools it would miss here."""
    from stackprobe.engine.preflight import required_tools
    from stackprobe.engine.tools import unmet
    from stackprobe.plan.expand import expand
    from stackprobe.suite.loader import builtin_names, load_suite

    out = []
    for name in builtin_names():
        plan = [s for s in expand(load_suite(name).suite) if s.skip is None]
        out.append(SuiteFinding(name, unmet(required_tools(plan), found.get)))
    return out
