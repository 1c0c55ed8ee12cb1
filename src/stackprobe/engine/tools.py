"""Every external tool stackprobe can drive, gathered from where each is declared: the step
kinds (kinds/registry.py), the monitor (sadc/sadf), the fleet (`ss`) and the target
guard's device probes. `stackprobe doctor` lists them; the pre-flight check names the
apt-get line for the missing ones, so a missing fio is one line, not a failure ten
minutes in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

from stackprobe.kinds import registry
from stackprobe.monitor.sampler import SYSSTAT
from stackprobe.safety.guard import PROBE_TOOLS
from stackprobe.spec.tools import AnyOf, Need, Tool
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


def apt_line(names: list[str], tools: Iterable[Tool] | None = None) -> str:
    """The apt-get line installing the tools `names` (found among `tools`, else all)."""
    known = {t.name: t for t in tools} if tools is not None else by_name()
    packages = sorted({known[n].package for n in names if n in known})
    return "apt-get install -y " + " ".join(packages)


def unmet(needs: Iterable[Need], present: Callable[[str], bool]) -> list[str]:
    """The needs `present` does not meet, once each: a tool, or an AnyOf none of whose
    tools is there (named by its first)."""
    out: list[str] = []
    for need in needs:
        names = need.names if isinstance(need, AnyOf) else (need,)
        if not any(present(n) for n in names) and names[0] not in out:
            out.append(names[0])
    return out
