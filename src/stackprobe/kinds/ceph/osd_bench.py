"""The `osd_bench` kind: `ceph tell osd.N bench` on every OSD that is up, one at a time
(at the same time they would share the host and the network), then the outlier verdict."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from stackprobe.analysis.osd_outliers import judge_osds
from stackprobe.kinds.ceph.common import ASSUMED_OSDS, CEPH, CEPH_CLI_S, CLUSTER_BYTES_PER_S
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import CephNeeds, Kind
from stackprobe.parsers.ceph.ceph_inventory import parse_ceph_inventory
from stackprobe.parsers.ceph.osd_bench import parse_osd_bench
from stackprobe.schema.records import OsdBenchRecord
from stackprobe.schema.results import StepResult
from stackprobe.spec.fields import Size
from stackprobe.spec.steps import MeasuredSpec
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_iops


class OsdBenchStep(MeasuredSpec):
    """`ceph tell osd.N bench` on every OSD; flags OSDs slower than their class's median."""

    kind: Literal["osd_bench"]
    bytes: Size = Size.of("1G")
    block_size: Size = Size.of("4M")
    threshold_pct: float = Field(default=20.0, gt=0, lt=100)


class OsdBenchRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None, "osd bench needs the run's Ceph session"
        cli = ctx.ceph.target.cli()
        spec: OsdBenchStep = ctx.step.spec
        tree = ctx.execute("osd-tree", ["ceph", *cli, "osd", "tree", "-f", "json"])
        if not tree.ok:
            return StepOutcome("failed", [], failure_message(tree, "ceph"))
        try:
            osds = parse_ceph_inventory({"osd_tree": tree.stdout}).osds
        except ValueError as exc:
            return StepOutcome("failed", [], f"ceph osd tree: {exc}")
        records, warnings = [], []
        for osd in osds:
            if not osd.get("up"):
                warnings.append(f"osd.{osd['id']} is down: not benchmarked")
                continue
            result = ctx.execute(f"osd.{osd['id']}-bench", [
                "ceph", *cli, "tell", f"osd.{osd['id']}", "bench",
                str(spec.bytes.bytes), str(spec.block_size.bytes), "-f", "json"])
            if result.interrupted:
                return StepOutcome.stopped(records, warnings)
            try:
                if not result.ok:
                    raise ValueError(failure_message(result, "ceph"))
                rec = parse_osd_bench(result.stdout, int(osd["id"]))
            except ValueError as exc:
                warnings.append(f"osd.{osd['id']}: {exc}")
                continue
            rec.host, rec.device_class = osd.get("host"), osd.get("device_class")
            records.append(rec)
        if not records:
            return StepOutcome("failed", [], "no OSD could be benchmarked", warnings)
        for verdict in judge_osds(records, spec.threshold_pct):
            if verdict.slow:
                warnings.append(verdict.sentence())
        return StepOutcome("ok", records, None, warnings)

    def cleanup(self, ctx: StepContext) -> None:
        pass  # `ceph tell osd.N bench` removes its own objects


def osd_table(steps: list[StepResult]) -> TextTable:
    """Every OSD benched (seed 002's per-OSD dd), its class median, the slow ones named."""
    table = TextTable("Per-OSD bench (ceph tell osd.N bench)",
                      ["OSD", "Host", "Class", "Bandwidth", "IOPS", "vs class median", "Verdict"],
                      layer="daemon")
    for step in steps:
        recs = [r for r in step.records if isinstance(r, OsdBenchRecord)]
        threshold = float(step.params.get("threshold_pct", 20))
        by_osd = {r.osd: r for r in recs}
        for v in judge_osds(recs, threshold):
            r = by_osd[v.osd]
            dev = f"{v.deviation_pct:+.0f}%" if v.deviation_pct is not None else "n/a"
            verdict = f"SLOW (> {threshold:.0f}% below)" if v.slow else "ok"
            table.rows.append([f"osd.{r.osd}", r.host or "", r.device_class or "",
                               fmt_bw(r.bw_bytes), fmt_iops(r.iops), dev, verdict])
        if recs and len(recs) < 3:
            table.notes.append("fewer than 3 OSDs in a class: no median to compare with")
    return table


class OsdBench(Kind):
    name = "osd_bench"
    spec = OsdBenchStep
    layer = "daemon"
    family = "ceph"
    tools = (CEPH,)
    records = (OsdBenchRecord,)
    verdict_fields = ("threshold_pct",)
    titled_rows = False

    def title(self, spec, name):
        return "OSD bench (ceph tell osd.N bench)"

    def headline(self, spec):
        return "bw"

    def estimate_s(self, spec: OsdBenchStep, hosts):
        per_osd = spec.bytes.bytes / CLUSTER_BYTES_PER_S + CEPH_CLI_S
        return CEPH_CLI_S + ASSUMED_OSDS * per_osd

    def ceph(self, spec):
        return CephNeeds()

    def runner(self):
        return OsdBenchRunner()

    def tables(self, steps):
        table = osd_table([s for s in steps if s.records])
        return [table] if table.rows else []


KIND = OsdBench()
