"""Placement groups: per OSD (how many each holds now) and per pool (pg_num against the
OSDs its rule uses), after the docs' guidance: about mon_target_pg_per_osd (100) PGs per
OSD in all, never above mon_max_pg_per_osd (250: TOO_MANY_PGS, new pools refused).

Fewer than half the target spreads data unevenly over the OSDs (some get more PGs than
others), which a benchmark sees as a few busy disks; a pool whose pg_num x size is below
its OSD count leaves OSDs without any of its data.
"""

from __future__ import annotations

import statistics

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev
from stackprobe.parsers.ceph.cluster_config import ClusterConfig, Pool

TARGET = 100  # mon_target_pg_per_osd's default
MAXIMUM = 250  # mon_max_pg_per_osd's default
MGR_APPS = {"mgr", "mgr_devicehealth"}


def setting_int(config: ClusterConfig, name: str, default: int) -> tuple[int, str]:
    """(value, where it came from) of a mon option: the config database, else Ceph's default."""
    found = config.setting(name, who="mon")
    if found is not None and found[0].isdigit():
        return int(found[0]), f"ceph config dump {found[1]}"
    return default, "Ceph's default"


def is_mgr_pool(pool: Pool) -> bool:
    """The mgr's own pool (.mgr, device_health_metrics): one PG by design."""
    return bool(pool.applications) and set(pool.applications) <= MGR_APPS


def osds_under(config: ClusterConfig, pool: Pool) -> int:
    """OSDs the pool's rule can choose: under the roots it takes ('default', or
    'default~ssd': only that device class there); all OSDs when the rule is unknown."""
    rule = next((r for r in config.rules if r.id == pool.crush_rule), None)
    if rule is None or not rule.takes:
        return len(config.usage)
    taken = [t.split("~", 1) for t in rule.takes]
    return sum(1 for u in config.usage if any(
        u.root == t[0] and (len(t) == 1 or u.device_class == t[1]) for t in taken))


class PgsPerOsd(Rule):
    id = "pgs-per-osd"
    title = "PGs per OSD within the docs' range"
    doc = docs.PG_COUNT
    needs = ("osd_df",)

    def check(self, config):
        target, t_from = setting_int(config, "mon_target_pg_per_osd", TARGET)
        maximum, m_from = setting_int(config, "mon_max_pg_per_osd", MAXIMUM)
        counted = [u for u in config.usage if u.kb > 0]
        if not counted:
            return "no OSD with capacity", []
        median = statistics.median(u.pgs for u in counted)
        over = [u for u in counted if u.pgs > maximum]
        under = [u for u in counted if u.pgs < target / 2]
        out = []
        if over:
            out.append(self.finding(
                "fail", "cluster", f"{len(over)} OSD(s) hold more than mon_max_pg_per_osd "
                f"{maximum} PGs (most: osd.{max(over, key=lambda u: u.pgs).id} with "
                f"{max(u.pgs for u in over)})", [
                    ev("osd_df", f"osd.{u.id} pgs", u.pgs) for u in over[:8]]
                + [ev("config_dump", "mon_max_pg_per_osd", f"{maximum} ({m_from})")],
                docs.TOO_MANY_PGS))
        if under:
            out.append(self.finding(
                "warn", "cluster", f"{len(under)} of {len(counted)} OSDs hold fewer than "
                f"{target // 2} PGs (half of mon_target_pg_per_osd {target}; median "
                f"{median:g}): data spreads unevenly", [
                    ev("osd_df", f"osd.{u.id} pgs", u.pgs) for u in under[:8]]
                + [ev("config_dump", "mon_target_pg_per_osd", f"{target} ({t_from})")]))
        return f"{len(counted)} OSDs, median {median:g} PGs each", out


class PoolPgNum(Rule):
    id = "pool-pg-num"
    title = "Each pool's pg_num against its OSDs and the autoscaler"
    doc = docs.PG_COUNT
    needs = ("pools", "osd_df", "crush_rules")

    def check(self, config):
        target, t_from = setting_int(config, "mon_target_pg_per_osd", TARGET)
        auto = {a.pool: a for a in config.autoscale}
        pools = [p for p in config.pools if not is_mgr_pool(p)]
        out = []
        for p in pools:
            n = osds_under(config, p)
            if n == 0:
                continue
            copies = p.pg_num * p.size
            base = [ev("pools", f"pool {p.name} pg_num / size", f"{p.pg_num} / {p.size}"),
                    ev("osd_df", f"OSDs under rule {p.crush_rule}", n)]
            if copies < n:
                out.append(self.finding(
                    "warn", f"pool {p.name}", f"pool {p.name}: pg_num {p.pg_num} x size "
                    f"{p.size} = {copies} PG copies for {n} OSDs: {n - copies} OSD(s) hold "
                    "none of its data", base))
            elif copies / n > target:
                out.append(self.finding(
                    "warn", f"pool {p.name}", f"pool {p.name} alone puts {copies / n:.0f} PGs "
                    f"on each of its {n} OSDs, more than mon_target_pg_per_osd {target} for "
                    "all pools together", base + [
                        ev("config_dump", "mon_target_pg_per_osd", f"{target} ({t_from})")]))
            a = auto.get(p.name)
            if a is not None and _off_3x(p.pg_num_target, a.pg_num_final):
                out.append(self.finding(
                    "warn", f"pool {p.name}", f"pool {p.name}: pg_num {p.pg_num_target} is more "
                    f"than 3x off the autoscaler's {a.pg_num_final}", base + [
                        ev("autoscale", f"pool {p.name} pg_num_final", a.pg_num_final)],
                    docs.PG_AUTOSCALE))
        return f"{len(pools)} pools (the mgr's own left out)", out


def _off_3x(have: int, want: int) -> bool:
    """The autoscaler's own threshold: it changes pg_num when off by more than 3x."""
    return have > 3 * max(want, 1) or want > 3 * max(have, 1)
