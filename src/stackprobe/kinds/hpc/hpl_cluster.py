"""The `hpl_cluster` kind: one HPL (one hpcc run) over all the step's hosts at once.

Why a kind of its own rather than `across: true` on `hpl`: a kind meets its hosts one way
(`HostMode`), and the two are different measurements — `hpl` runs on each host and compares
the hosts (EACH), this one runs one MPI job over all of them from this machine and gives
one figure for the set (FLEET), with nothing to compare. Their suite fields are the same.

How: mpirun runs here and starts the ranks on the hosts over their SSH, its TCP held to
the hosts' network (kinds/mpi_launch.py, shared with `mpi_pairs`). The hostfile
gives each host its slots (`per_host`, else its CPUs). hpcc's first process reads
hpccinf.txt in its working directory, which is made at the same path on every host (the
first host's scratch directory's name and the step's) and removed from each afterwards;
hpccoutf.txt is written there, on the first host.
N fills `memory_fraction` of the smallest host's memory times the hosts.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Literal

from pydantic import model_validator

from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.kinds.contract import HostMode
from stackprobe.kinds.hpc.hpcc_common import HpccKind, HpccSpec
from stackprobe.kinds.hpc.hpcc_inf import HpccSizes, check_given, render, sizes
from stackprobe.kinds.hpc.hpcc_run import HpccFailed, blas_env, host_facts, read_record, write_inf
from stackprobe.kinds.hpc.hpl import decide, hpl_rows
from stackprobe.kinds.mpi_launch import MpiLaunchError, networks, over_hosts, rsh_args, same_ssh
from stackprobe.schema.sentinels import FLEET_HOST

__all__ = ["HplClusterStep", "KIND", "networks", "rsh_args"]  # the launch options' old home


class HplClusterStep(HpccSpec):
    """HPL over all the step's hosts as one MPI job: one figure for the set."""

    kind: Literal["hpl_cluster"]
    per_host: int | Literal["auto"] = "auto"  # processes on each host; auto: its CPUs
    network: str | None = None  # the hosts' network for MPI's TCP; default: /24 of each address

    @model_validator(mode="after")
    def _no_processes(self):
        if self.processes != "auto":
            raise ValueError("processes: set per_host (the processes on each host)")
        if self.network is not None:
            ipaddress.ip_network(self.network, strict=False)
        return self


class HplClusterRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        try:
            record, chosen, ranks = self._run(ctx)
        except HpccFailed as exc:
            if str(exc) == "stopped by the user":
                return StepOutcome.stopped()
            return StepOutcome("failed", error=str(exc))
        outcome = decide(record, chosen)
        if outcome.status == "ok":  # one figure for the job: the hosts its ranks ran on
            outcome.findings = {**(outcome.findings or {}), "reported_hosts": list(ranks)}
        return outcome

    def _run(self, ctx: StepContext):
        spec: HplClusterStep = ctx.step.spec
        fleet = ctx.fleet
        handles = fleet.select(ctx.step.hosts)
        try:
            same_ssh(fleet, handles, "hpl_cluster")
        except MpiLaunchError as exc:
            raise HpccFailed(str(exc)) from None
        facts = {h.name: host_facts(ctx, on=h.transport) for h in handles}
        here = host_facts(ctx)  # mpirun runs here
        slots = {n: (f.cpus if spec.per_host == "auto" else int(spec.per_host)) for n, f in facts.items()}
        procs = sum(slots.values())
        if spec.hpccinf is not None:
            text = Path(spec.hpccinf).read_text(encoding="utf-8", errors="replace")
            try:
                read = check_given(text)
            except ValueError as exc:
                raise HpccFailed(f"{spec.hpccinf}: {exc}") from exc
            chosen = HpccSizes(read.largest_n, read.nbs[0], *read.grids[0], read.threshold)
        else:
            memory = min(f.memory_bytes for f in facts.values()) * len(facts)
            try:
                chosen = sizes(procs, memory, n=spec.n, nb=spec.nb, p=spec.p, q=spec.q,
                               memory_fraction=spec.memory_fraction)
            except ValueError as exc:
                raise HpccFailed(str(exc)) from exc
            text = render(chosen)
        ctx.run_dir.write_text(ctx.step_dir / "hpccinf.txt", text)
        first = handles[0]
        work = _work_dir(ctx)
        for h in handles:
            write_inf(ctx, work, text, on=h.transport)
        env, blas = blas_env(ctx, facts[first.name], on=first.transport)
        hostfile = "".join(f"{h.host.address} slots={slots[h.name]}\n" for h in handles)
        ctx.run_dir.write_text(ctx.step_dir / "hostfile", hostfile)
        try:
            launch = over_hosts(fleet, handles, spec.network, here.root, "hpl_cluster")
        except MpiLaunchError as exc:
            raise HpccFailed(str(exc)) from None
        argv = ["mpirun", "-np", str(chosen.p * chosen.q), "--bind-to", spec.bind,
                "--hostfile", str(ctx.step_dir / "hostfile"), *launch, "--wdir", work]
        for name, value in env.items():
            argv += ["-x", f"{name}={value}"]
        result = ctx.execute("hpcc", [*argv, "hpcc"])
        record = read_record(ctx, result, work, on=first.transport)
        record.host = FLEET_HOST
        record.blas = blas
        return record, chosen, ranks_by_host([h.name for h in handles], slots,
                                             chosen.p * chosen.q)

    def cleanup(self, ctx: StepContext) -> None:
        if ctx.fleet is None:
            return
        for h in ctx.fleet.select(ctx.step.hosts):
            ctx.execute("cleanup", ["rm", "-rf", "--", _work_dir(ctx)], on=h.transport)


def ranks_by_host(names: list[str], slots: dict[str, int], processes: int) -> dict[str, int]:
    """Where mpirun puts `processes` ranks over the hostfile: each host's slots filled in
    the file's order (Open MPI's default with slots given), so a P x Q smaller than the
    slots leaves the last hosts without a rank — and without a figure: they are not
    among the hosts the step reports."""
    out = {}
    left = processes
    for name in names:
        if left <= 0:
            break
        out[name] = min(slots[name], left)
        left -= out[name]
    return out


def _work_dir(ctx: StepContext) -> str:
    """One path on every host, beside the first host's scratch directory (named after it
    and the step): hpcc's processes all start there."""
    first = ctx.fleet.select(ctx.step.hosts)[0]
    return f"{first.scratch}-{ctx.step.id}"


class HplCluster(HpccKind):
    name = "hpl_cluster"
    spec = HplClusterStep
    hosts = HostMode.FLEET

    def title(self, spec, name):
        return "HPL across hosts (hpcc)"

    def headline(self, spec):
        return "ops"

    def controller_needs(self, spec):
        return ("mpirun",)

    def runner(self):
        return HplClusterRunner()

    def rows(self, step):
        return hpl_rows(step)


KIND = HplCluster()
