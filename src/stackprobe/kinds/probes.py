"""What the kinds that read hosts' files share: a probe root, and one probe per host run on
every host at once.

link_state, settings and health each read a host with one POSIX sh script (one round trip
over SSH, its output kept whole in the step's directory), on every host of the step at once,
or on this machine without `hosts:`; rdma reads its ports the same way. `probe_root:` makes
each of them read a recorded tree standing for each host's `/` instead of the live host —
`{host}` in it stands for the host's name — so recorded machines (and trees collected from
machines elsewhere) go through the same code as live ones.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from pydantic import BaseModel, field_validator

from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.spec.hosts import Host
from stackprobe.transport.base import CommandResult, Transport

MAX_PARALLEL = 32  # probes in flight at once: a thousand hosts take a few rounds, not one each


class ReadsTrees(BaseModel):
    """The `probe_root:` field of a kind that can read recorded trees."""

    # a directory standing for / on each host (a recorded tree); '{host}' in it is
    # replaced by each host's name
    probe_root: str | None = None

    @field_validator("probe_root")
    @classmethod
    def _absolute(cls, v):
        if v is not None and (not v.startswith("/") or ".." in v.split("/")):
            raise ValueError(f"{v!r}: an absolute path without '..'")
        return v

    def trees_title(self, title: str) -> str:
        """The step's title, saying when it reads recorded trees rather than live hosts."""
        return title + (" (recorded trees)" if self.probe_root else "")


def root_for(probe_root: str | None, host: str) -> str | None:
    """The host's probe root: `{host}` in the step's probe_root replaced by its name."""
    return probe_root.replace("{host}", host) if probe_root else None


@dataclass(frozen=True)
class Probed:
    """One host's probe: who it was (its hosts-file entry, None for this machine) and what
    the script printed."""

    name: str
    transport: Transport
    host: Host | None
    result: CommandResult


def probe_hosts(ctx: StepContext, label: str,
                argv_for: Callable[[str | None], list[str]]) -> list[Probed] | None:
    """Each host of the step (or this machine) probed at once with `argv_for(its probe
    root)`, the command kept as `<host>-<label>`; None when the run was interrupted."""
    probe_root = getattr(ctx.step.spec, "probe_root", None)
    if ctx.fleet is not None and ctx.step.hosts:
        targets = [(h.name, h.transport, h.host) for h in ctx.fleet.select(ctx.step.hosts)]
    else:
        targets = [(ctx.transport.host, ctx.transport, None)]

    def probe(target) -> CommandResult:
        name, transport, _ = target
        return ctx.execute(f"{name}-{label}", argv_for(root_for(probe_root, name)), on=transport)

    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(targets))) as pool:
        results = list(pool.map(probe, targets))
    if any(r.interrupted for r in results):
        return None
    return [Probed(name, transport, host, result)
            for (name, transport, host), result in zip(targets, results, strict=True)]


def probes_outcome(answered: list[str], records: list, warnings: list[str], findings: dict,
                   notes: list[str] | None = None) -> StepOutcome:
    """ok when at least one host answered its probe (each that did not is a warning
    already); failed, saying so, when none did."""
    if not answered:
        return StepOutcome("failed", records, "no host could be probed", warnings,
                           findings=findings)
    return StepOutcome("ok", records, None, warnings, notes=notes or [], findings=findings)
