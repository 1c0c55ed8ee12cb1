"""osd_memory_target x OSDs per host against the host's RAM. Each BlueStore OSD grows its
caches up to osd_memory_target (4 GiB by default); the host needs that for every OSD and
room for the kernel, the page cache and other daemons. Above the RAM, OSDs are killed or
swap under load; above 80% of it the rest of the host is squeezed.
"""

from __future__ import annotations

from collections import defaultdict

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev
from stackprobe.parsers.ceph.cluster_config import CONFIG_SHOW, ClusterConfig, OsdMeta
from stackprobe.units import fmt_bytes

DEFAULT_TARGET = 4 * 1024**3
HEADROOM = 0.8  # of the RAM, for all the OSDs of a host together


def target_of(config: ClusterConfig, host: str, osds: list[OsdMeta]) -> tuple[int, object]:
    """(bytes, evidence) of osd_memory_target on a host: what a running OSD there uses
    (`ceph config show`), else the config database, else Ceph's default."""
    for o in osds:
        value = config.running.get(f"osd.{o.id}", {}).get("osd_memory_target")
        if value and value.isdigit():
            return int(value), ev(f"{CONFIG_SHOW}osd.{o.id}", "osd_memory_target", value)
    found = config.setting("osd_memory_target", "osd", host)
    if found is not None and found[0].isdigit():
        return int(found[0]), ev("config_dump", f"osd_memory_target ({found[1]})", found[0])
    return DEFAULT_TARGET, ev("config_dump", "osd_memory_target", f"{DEFAULT_TARGET} "
                              "(not set: Ceph's default)")


class OsdMemory(Rule):
    id = "osd-memory"
    title = "osd_memory_target x OSDs per host within the host's RAM"
    doc = docs.BLUESTORE_CACHE
    needs = ("osd_metadata",)

    def check(self, config):
        by_host: dict[str, list[OsdMeta]] = defaultdict(list)
        for o in config.osds:
            by_host[o.host].append(o)
        out = []
        for host, osds in sorted(by_host.items()):
            ram = next((o.mem_total_bytes for o in osds if o.mem_total_bytes), None)
            if not ram:
                continue
            target, where = target_of(config, host, osds)
            total = target * len(osds)
            evidence = [ev("osd_metadata", f"host {host} mem_total_kb", ram // 1024),
                        ev("osd_metadata", f"OSDs on {host}", len(osds)), where]
            text = (f"host {host}: {len(osds)} OSDs x osd_memory_target {fmt_bytes(target)} = "
                    f"{fmt_bytes(total)}, {total / ram:.0%} of its {fmt_bytes(ram)} RAM")
            if total > ram:
                out.append(self.finding("fail", f"host {host}", text, evidence, docs.HW_MEMORY))
            elif total > HEADROOM * ram:
                out.append(self.finding("warn", f"host {host}", text + " (above 80%)", evidence,
                                        docs.HW_MEMORY))
        return f"{len(by_host)} OSD hosts", out
