"""The `hpl` kind: HPL's Gflops from Debian's hpcc under Open MPI, on each host.

Seed 004 ran LINPACK on every server of a Lustre cluster: eight OSS agreed within 0.3%,
the two MDS were more than 10% apart. The figure is hpcc's HPL test (the summary's, its
fastest) with its N, NB and P x Q; it counts only when HPL's scaled residual check PASSED:
a FAILED (or missing) check is a failed step, its rate kept in the record as untrusted,
never shown as a result — a wrong answer fast says nothing about a machine. How hpcc is
sized and run: kinds/hpc/hpcc_common.py, hpcc_run.py; docs/hpc-node.md.
"""

from __future__ import annotations

from typing import Literal

from stackprobe.kinds.context import StepOutcome
from stackprobe.kinds.host.stress_ng import STRESS_NG
from stackprobe.kinds.hpc.hpcc_common import HpccKind, HpccRunner, HpccSpec, others_failed, sizes_text
from stackprobe.kinds.hpc.hpcc_fallback import (
    CPU_TOOLS,
    FallsBack,
    cpu_fallback,
    fallback_needs,
    fallback_rows,
)
from stackprobe.schema.hpc_records import HpccRecord
from stackprobe.schema.records import CpuRecord
from stackprobe.tables.rows import Row, base, status_row


class HplStep(HpccSpec, FallsBack):
    """HPL (and, with it, every HPC Challenge test) on each host: Gflops with N, NB, P x Q."""

    kind: Literal["hpl"]


def decide(record: HpccRecord, sizes) -> StepOutcome:
    record.focus = "hpl"
    hpl = record.hpl
    if hpl is None:
        return StepOutcome("failed", [record], f"hpcc: no HPL result in its summary ({sizes_text(sizes)})")
    if hpl.passed is not True:
        check = "FAILED" if hpl.passed is False else "not shown"
        residual = f" (scaled residual {hpl.residual:g}, threshold {hpl.residual_threshold:g})" \
            if hpl.residual is not None and hpl.residual_threshold is not None else ""
        return StepOutcome("failed", [record], f"HPL residual check {check}{residual}: "
                           "its Gflops are not a result")
    return StepOutcome("ok", [record], warnings=others_failed(record, ("HPL",)))


def hpl_rows(step) -> list[Row]:
    found = [r for r in step.records if isinstance(r, HpccRecord) and r.hpl is not None]
    rows = fallback_rows(step)
    if not found and not rows:
        return [status_row(step, "")]
    for r in found:
        t = r.hpl
        where = f" ({r.host})" if step.hosts and r.host else ""
        check = "residual PASSED" if t.passed else "residual FAILED" if t.passed is False else "no check"
        text = f"N={t.n} NB={t.nb} P x Q={t.p}x{t.q}, {r.procs} processes"
        rows.append(Row(test=f"HPL, N={t.n} NB={t.nb} P x Q={t.p}x{t.q}{where}", direction="",
                        iops=t.flops_per_s,
                        ops_unit="flop/s", headline="iops", status=step.status,
                        note="; ".join(x for x in (check, r.blas or "", step.error or "") if x),
                        **base(step, text)))
    return rows


class Hpl(HpccKind):
    name = "hpl"
    spec = HplStep
    tools = (*HpccKind.tools, STRESS_NG)
    records = (HpccRecord, CpuRecord)

    def title(self, spec, name):
        return "HPL (hpcc)"

    def headline(self, spec):
        return "ops"

    def runner(self):
        return HpccRunner(decide, cpu_fallback)

    def needs(self, spec):
        return fallback_needs(spec, CPU_TOOLS)

    def rows(self, step):
        return hpl_rows(step)


KIND = Hpl()
