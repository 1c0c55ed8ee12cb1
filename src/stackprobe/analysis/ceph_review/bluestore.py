"""BlueStore's DB/WAL: where it is (seed 003's advice: a fast DB/WAL for HDD OSDs) and how
large against the data device.

The docs: a DB (and WAL) device helps only when faster than the data device; with HDDs
and SSDs mixed, the DB belongs on the SSD. A DB smaller than about 1% of the data device
(RBD) or 4% (RGW) spills RocksDB back onto the slow device (health check
BLUEFS_SPILLOVER).
"""

from __future__ import annotations

from collections import defaultdict

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev
from stackprobe.parsers.ceph.cluster_config import ClusterConfig, OsdMeta

DB_LEAST = 0.01  # of the data device: the docs' figure for RBD
DB_RGW = 0.04  # for RGW and mixed workloads


def _bluestore(config: ClusterConfig) -> list[OsdMeta]:
    return [o for o in config.osds if o.objectstore == "bluestore"]


def _names(osds: list[OsdMeta]) -> str:
    shown = ", ".join(f"osd.{o.id}" for o in osds[:8])
    return shown + (f" and {len(osds) - 8} more" if len(osds) > 8 else "")


class DbPlacement(Rule):
    id = "bluestore-db-placement"
    title = "BlueStore DB/WAL on a faster device than the data"
    doc = docs.BLUESTORE_DEVICES
    needs = ("osd_metadata",)

    def check(self, config):
        osds = _bluestore(config)
        shared, slow_db = defaultdict(list), defaultdict(list)
        for o in osds:
            if o.data_rotational and o.dedicated_db is False:
                shared[o.host].append(o)
            elif o.dedicated_db and o.db_rotational and o.data_rotational:
                slow_db[o.host].append(o)
        out = []
        for host, group in shared.items():
            out.append(self.finding(
                "warn", f"host {host}",
                f"{len(group)} OSD(s) on {host} ({_names(group)}) keep DB and WAL on their "
                "rotational data device: no fast DB/WAL", [
                    ev("osd_metadata", f"osd.{o.id} bluefs_dedicated_db / "
                       "bluestore_bdev_rotational", f"0 / 1 ({o.data_type or '?'})")
                    for o in group[:8]]))
        for host, group in slow_db.items():
            out.append(self.finding(
                "warn", f"host {host}",
                f"{len(group)} OSD(s) on {host} ({_names(group)}) have a DB device that is "
                "rotational like the data: no faster than it", [
                    ev("osd_metadata", f"osd.{o.id} bluefs_db_rotational / "
                       "bluestore_bdev_rotational", "1 / 1") for o in group[:8]]))
        return f"{len(osds)} BlueStore OSDs", out


class DbSize(Rule):
    id = "bluestore-db-size"
    title = "BlueStore DB size against the data device"
    doc = docs.BLUESTORE_SIZING
    needs = ("osd_metadata",)

    def check(self, config):
        sized = [o for o in _bluestore(config) if o.dedicated_db and o.db_bytes and o.data_bytes]
        spill = (config.status.checks.get("BLUEFS_SPILLOVER")
                 if config.status is not None else None)
        out = []
        for o in sized:
            ratio = o.db_bytes / o.data_bytes
            if ratio >= DB_RGW:
                continue
            evidence = [ev("osd_metadata", f"osd.{o.id} bluefs_db_size", o.db_bytes),
                        ev("osd_metadata", f"osd.{o.id} bluestore_bdev_size", o.data_bytes)]
            if spill:
                evidence.append(ev("status", "health BLUEFS_SPILLOVER", spill))
            if ratio < DB_LEAST:
                out.append(self.finding(
                    "warn", f"osd.{o.id}",
                    f"osd.{o.id}: DB is {ratio:.1%} of the data device, below the 1% the docs "
                    "give for RBD: RocksDB spills onto the data device", evidence))
            else:
                out.append(self.finding(
                    "info", f"osd.{o.id}",
                    f"osd.{o.id}: DB is {ratio:.1%} of the data device: enough for RBD "
                    "(1-2%), below the 4% for RGW and mixed workloads", evidence))
        return f"{len(sized)} OSDs with a dedicated DB", out
