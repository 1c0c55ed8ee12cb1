"""What the `hpl` and `stream` steps share: the suite fields sizing hpcc, the runner, the Kind
base — one hpcc run per host (HostMode.EACH: every host at once, all its cores, one mpirun
there), its hosts compared within their roles (engine/per_node.py).

The two kinds differ in the figure they stand for and the check that decides them
(`decide`): HPL's residual, or STREAM's validation. Across hosts (one mpirun over many
hosts) is not offered yet: each node is measured on its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from stackprobe.kinds.compare import ComparesNodes
from stackprobe.kinds.context import StepContext, StepOutcome, remove_work_dir
from stackprobe.kinds.contract import HostMode, Kind
from stackprobe.kinds.hpc.hpcc_inf import DEFAULT_MEMORY_FRACTION, DEFAULT_NB, HpccSizes
from stackprobe.kinds.hpc.hpcc_run import HPCC, MPIRUN, HpccAbsent, HpccFailed, run_hpcc
from stackprobe.schema.hpc_records import HpccRecord
from stackprobe.spec.steps import MeasuredSpec

ALONE = ("n", "nb", "p", "q", "processes", "memory_fraction")  # what a given hpccinf.txt sets


class HpccSpec(MeasuredSpec, ComparesNodes):
    """hpcc's sizes: from the host (N from `memory_fraction` of RAM, one process per CPU,
    a near-square grid), set one by one, or a whole hpccinf.txt run unchanged."""

    n: int | None = Field(default=None, ge=1, le=10_000_000)
    nb: int = Field(default=DEFAULT_NB, ge=1, le=4096)
    p: int | None = Field(default=None, ge=1, le=100_000)
    q: int | None = Field(default=None, ge=1, le=100_000)
    processes: int | Literal["auto"] = "auto"
    memory_fraction: float = Field(default=DEFAULT_MEMORY_FRACTION, gt=0, le=0.9)
    hpccinf: str | None = None  # a file of the suite's: runs unchanged
    blas: Literal["openblas", "default"] = "openblas"  # default: what libblas.so.3 points to
    # Open MPI's --bind-to on each host: `none` where hosts share cores (the lab, VMs)
    bind: Literal["core", "none"] = "core"

    @model_validator(mode="after")
    def _consistent(self):
        if (self.p is None) != (self.q is None):
            raise ValueError("p and q go together (P x Q is the process grid)")
        if self.hpccinf is not None:
            given = [f for f in ALONE if f in self.model_fields_set]
            if given:
                raise ValueError(f"hpccinf runs unchanged: remove {', '.join(given)} "
                                 "(set them in the file)")
        if (self.processes != "auto" and self.p is not None
                and int(self.processes) != self.p * self.q):
            raise ValueError(f"processes {self.processes} is not p x q = {self.p * self.q}")
        return self


class HpccRunner:
    """prepare/run/cleanup of one hpcc run; `decide` says what the kind makes of it,
    `fallback` what is measured instead on a host without hpcc (kinds/hpc/hpcc_fallback.py)
    when the step allows it."""

    def __init__(self, decide, fallback=None):
        self.decide = decide
        self.fallback = fallback

    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: HpccSpec = ctx.step.spec
        try:
            given = Path(spec.hpccinf).read_text(encoding="utf-8", errors="replace") \
                if spec.hpccinf else None
        except OSError as exc:
            return StepOutcome("failed", error=f"hpccinf: {spec.hpccinf}: {exc.strerror}")
        try:
            record, sizes = run_hpcc(ctx, given)
        except HpccAbsent as exc:
            if self.fallback is not None and getattr(spec, "fallback", False):
                return self.fallback(ctx, str(exc))
            return StepOutcome("failed", error=str(exc))
        except HpccFailed as exc:
            if str(exc) == "stopped by the user":
                return StepOutcome.stopped()
            return StepOutcome("failed", error=str(exc))
        return self.decide(record, sizes)

    def cleanup(self, ctx: StepContext) -> None:
        remove_work_dir(ctx)


def others_failed(record: HpccRecord, own: tuple[str, ...]) -> list[str]:
    """Warnings for the checks of hpcc's other tests that failed (their figures untrusted)."""
    bad = [s for s, ok in record.checks.items() if not ok and s not in own]
    return [f"hpcc: the check of {', '.join(bad)} failed (those figures are untrusted)"] if bad else []


def sizes_text(s: HpccSizes) -> str:
    return f"N={s.n} NB={s.nb} P x Q={s.p}x{s.q}"


class HpccKind(Kind):
    """The Kind part both steps share."""

    layer = "hardware"
    family = "hpc"
    hosts = HostMode.EACH
    tools = (HPCC, MPIRUN)
    records = (HpccRecord,)
    titled_rows = False

    def expand(self, spec: HpccSpec, defaults, base_dir):
        """A relative `hpccinf:` is read from the suite's directory."""
        if spec.hpccinf is not None and base_dir is not None and not Path(spec.hpccinf).is_absolute():
            spec = spec.model_copy(update={"hpccinf": str(base_dir / spec.hpccinf)})
        yield from super().expand(spec, defaults, base_dir)

    def estimate_s(self, spec: HpccSpec, hosts):
        if spec.hpccinf is not None or spec.n is None:
            return 1800.0  # sized from the host's memory: known only when it runs
        # HPL's 2/3 N^3 flops at a pessimistic 1 Gflop/s per process, and the other
        # tests, which touch 8 N^2 bytes a few times each
        procs = spec.p * spec.q if spec.p else 1
        return 20.0 + (2 / 3) * spec.n**3 / (procs * 1e9) + 8 * spec.n**2 / 1e8

    def workload_text(self, params):
        if params.get("hpccinf"):
            return f"hpccinf {Path(params['hpccinf']).name}"
        n = params.get("n") or f"{params.get('memory_fraction', DEFAULT_MEMORY_FRACTION):g} of RAM"
        return f"N={n} NB={params.get('nb', DEFAULT_NB)}"
