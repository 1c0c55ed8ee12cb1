"""Replication and erasure coding per pool: size 1 keeps one copy (any disk lost loses
data), size 2 loses data on a second failure during recovery, min_size 1 accepts writes
with a single copy; an erasure-coded pool should have min_size k+1, so that a write is
never acknowledged with no redundancy left.
"""

from __future__ import annotations

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev


class PoolRedundancy(Rule):
    id = "pool-redundancy"
    title = "Pool size, min_size and EC profile"
    doc = docs.POOL_REPLICAS
    needs = ("pools",)

    def check(self, config):
        out = []
        for p in config.pools:
            size = ev("pools", f"pool {p.name} size / min_size", f"{p.size} / {p.min_size}")
            if p.replicated:
                if p.size == 1:
                    out.append(self.finding("fail", f"pool {p.name}", f"pool {p.name}: size 1, "
                                            "one copy of each object: no redundancy", [size]))
                elif p.size == 2:
                    out.append(self.finding("warn", f"pool {p.name}", f"pool {p.name}: size 2: "
                                            "a second failure during recovery loses data", [size]))
                if p.min_size == 1 and p.size > 1:
                    out.append(self.finding("fail", f"pool {p.name}", f"pool {p.name}: min_size "
                                            "1 acknowledges writes held by one OSD", [size],
                                            docs.POOL_VALUES))
                continue
            profile = config.ec_profiles.get(p.ec_profile)
            if profile is None:
                continue
            prof = ev(f"ec_profile.{p.ec_profile}", "k / m", f"{profile.k} / {profile.m}")
            if p.min_size <= profile.k:
                out.append(self.finding("warn", f"pool {p.name}", f"pool {p.name}: erasure "
                                        f"k={profile.k} m={profile.m} with min_size "
                                        f"{p.min_size}: below k+1 = {profile.k + 1}",
                                        [size, prof], docs.POOL_VALUES))
        return f"{len(config.pools)} pools", out
