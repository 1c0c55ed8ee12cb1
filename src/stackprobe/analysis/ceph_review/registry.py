"""The review's rules, in the order the report lists them, and the review itself."""

from __future__ import annotations

from stackprobe.analysis.ceph_review.autoscaler import Autoscaler
from stackprobe.analysis.ceph_review.bluestore import DbPlacement, DbSize
from stackprobe.analysis.ceph_review.capacity import FullRatios
from stackprobe.analysis.ceph_review.clock import ClockSkew
from stackprobe.analysis.ceph_review.colocation import Colocation
from stackprobe.analysis.ceph_review.device_class import DeviceClass
from stackprobe.analysis.ceph_review.finding import Rule, RuleResult
from stackprobe.analysis.ceph_review.memory import OsdMemory
from stackprobe.analysis.ceph_review.placement_groups import PgsPerOsd, PoolPgNum
from stackprobe.analysis.ceph_review.redundancy import PoolRedundancy
from stackprobe.analysis.ceph_review.scrub import ScrubRunning
from stackprobe.analysis.ceph_review.versions import MixedVersions
from stackprobe.parsers.ceph.cluster_config import ClusterConfig

RULES: tuple[Rule, ...] = (
    DbPlacement(), DbSize(), PgsPerOsd(), PoolPgNum(), Autoscaler(), PoolRedundancy(),
    Colocation(), OsdMemory(), FullRatios(), MixedVersions(), ClockSkew(), ScrubRunning(),
    DeviceClass(),
)


def review(config: ClusterConfig) -> list[RuleResult]:
    return [rule.run(config) for rule in RULES]
