"""The `ceph_inventory` kind: the cluster as it is before the load (seeds 001-003 begin
with its shape: OSD count, device classes, replication or EC profile of the pools).

A plan that loads a Ceph cluster records it first: this kind is the prelude of the Ceph
session, placed before the first step that needs one unless the suite has it already.
"""

from __future__ import annotations

from typing import Literal

from stackprobe.kinds.ceph.ceph_inventory_sources import (
    INVENTORY_SOURCES,
    ec_profile_argv,
    ec_profile_source,
)
from stackprobe.kinds.ceph.common import CEPH, CEPH_CLI_S
from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.kinds.contract import CephNeeds, Kind
from stackprobe.parsers.ceph.ceph_inventory import erasure_profiles_in_use, parse_ceph_inventory
from stackprobe.schema.records import CephInventoryRecord
from stackprobe.spec.steps import StepSpec


class CephInventoryStep(StepSpec):
    """The cluster as it is: ceph -s, osd tree, df, pool details, versions."""

    kind: Literal["ceph_inventory"]


class CephInventoryRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        assert ctx.ceph is not None, "the Ceph inventory needs the run's Ceph session"
        cli = ctx.ceph.target.cli()
        outputs: dict[str, str] = {}
        missing = []
        results = ctx.execute_reads([(f"ceph-{name}", ["ceph", *cli, *args])
                                     for name, args in INVENTORY_SOURCES.items()])
        if any(r.interrupted for r in results):
            return StepOutcome.stopped()
        for name, result in zip(INVENTORY_SOURCES, results):
            if result.ok:
                outputs[name] = result.stdout
            else:
                missing.append(name)
        profiles = erasure_profiles_in_use(outputs.get("pools", ""))
        results = ctx.execute_reads([(f"ceph-ec-profile-{p}", ["ceph", *cli, *ec_profile_argv(p)])
                                     for p in profiles])
        for profile, result in zip(profiles, results):
            if result.ok:
                outputs[ec_profile_source(profile)] = result.stdout
        try:
            record = parse_ceph_inventory(outputs)
        except ValueError as exc:
            return StepOutcome("failed", [], f"ceph inventory: {exc}")
        warnings = [f"ceph inventory source failed: {', '.join(missing)}"] if missing else []
        return StepOutcome("ok", [record], None, warnings)

    def cleanup(self, ctx: StepContext) -> None:
        pass


class CephInventory(Kind):
    name = "ceph_inventory"
    spec = CephInventoryStep
    layer = "cluster"
    family = "ceph"
    tools = (CEPH,)
    records = (CephInventoryRecord,)
    prelude_of = "ceph"

    def title(self, spec, name):
        return "Ceph cluster inventory"

    def estimate_s(self, spec, hosts):
        return 6 * CEPH_CLI_S

    def ceph(self, spec):
        return CephNeeds()

    def runner(self):
        return CephInventoryRunner()


KIND = CephInventory()
