"""The PG autoscaler: which pools it may adjust, and whether it reports on them at all.

Pools whose CRUSH rules overlap (one takes the root, another a device class of it) make
the autoscaler skip them: `ceph osd pool autoscale-status` then lists none of them, and
pg_num stays where it was set.
"""

from __future__ import annotations

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev
from stackprobe.analysis.ceph_review.placement_groups import is_mgr_pool


class Autoscaler(Rule):
    id = "pg-autoscaler"
    title = "PG autoscaler mode and coverage"
    doc = docs.PG_AUTOSCALE
    needs = ("pools", "autoscale")

    def check(self, config):
        pools = [p for p in config.pools if not is_mgr_pool(p)]
        listed = {a.pool for a in config.autoscale}
        out = []
        on = [p for p in pools if p.autoscale_mode == "on"]
        missing = [p for p in on if p.name not in listed]
        if missing:
            takes = sorted({t for r in config.rules for t in r.takes})
            out.append(self.finding(
                "warn", "cluster", f"{len(missing)} pool(s) with the autoscaler on are not in "
                "its status (overlapping CRUSH roots?): their pg_num is not adjusted", [
                    ev("pools", f"pool {p.name} pg_autoscale_mode", p.autoscale_mode)
                    for p in missing[:6]]
                + [ev("autoscale", "pools listed", len(listed)),
                   ev("crush_rules", "rules take", ", ".join(takes))]))
        for p in pools:
            if p.autoscale_mode in ("off", "warn"):
                out.append(self.finding(
                    "info", f"pool {p.name}", f"pool {p.name}: autoscaler mode "
                    f"{p.autoscale_mode}: pg_num stays {p.pg_num} whatever the pool holds",
                    [ev("pools", f"pool {p.name} pg_autoscale_mode", p.autoscale_mode)]))
        return f"{len(pools)} pools, {len(listed)} in the autoscaler's status", out
