"""The OSD bench runner: `ceph tell osd.N bench` on every OSD that is up, one at a time
(at the same time they would share the host and the network), then the outlier verdict."""

from __future__ import annotations

from stackprobe.analysis.osd_outliers import judge_osds
from stackprobe.parsers.ceph.ceph_inventory import parse_ceph_inventory
from stackprobe.parsers.ceph.osd_bench import parse_osd_bench
from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.units import parse_size


class OsdBenchRunner:
    kind = "osd_bench"

    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None, "osd bench needs the run's Ceph session"
        cli = ctx.ceph.target.cli()
        p = ctx.step.params
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
                str(parse_size(p["bytes"])), str(parse_size(p["block_size"])), "-f", "json"])
            if result.interrupted:
                return StepOutcome("interrupted", records, "stopped by the user", warnings)
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
        for verdict in judge_osds(records, float(p["threshold_pct"])):
            if verdict.slow:
                warnings.append(verdict.sentence())
        return StepOutcome("ok", records, None, warnings)

    def cleanup(self, ctx: StepContext) -> None:
        pass  # `ceph tell osd.N bench` removes its own objects
