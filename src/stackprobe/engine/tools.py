"""Every external tool stackprobe can drive, gathered from where each is declared: the step
kinds (kinds/registry.py), the monitor (sadc/sadf), the fleet (`ss`) and the target
guard's device probes. `stackprobe doctor` lists them; the pre-flight check names the
apt-get line for the missing ones, so a missing fio is one line, not a failure ten
minutes in.
"""

from __future__ import annotations

from functools import cache

from stackprobe.kinds import registry
from stackprobe.monitor.sampler import SYSSTAT
from stackprobe.safety.guard import PROBE_TOOLS
from stackprobe.spec.tools import Tool
from stackprobe.transport.fleet import SS

PLATFORM_TOOLS: tuple[Tool, ...] = (SYSSTAT, SS, *PROBE_TOOLS)


@cache
def all_tools() -> tuple[Tool, ...]:
    """The kinds' tools, then the platform's, once each by name."""
    out: dict[str, Tool] = {}
    for t in (*registry.tools(), *PLATFORM_TOOLS):
        out.setdefault(t.name, t)
    return tuple(out.values())


def by_name() -> dict[str, Tool]:
    return {t.name: t for t in all_tools()}


def apt_line(names: list[str]) -> str:
    tools = by_name()
    packages = sorted({tools[n].package for n in names if n in tools})
    return "apt-get install -y " + " ".join(packages)
