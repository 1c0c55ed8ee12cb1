"""`ceph osd metadata` and `ceph osd df tree` (-f json) -> the review's OSDs.

The metadata says where BlueStore keeps its data, DB and WAL (bluefs_dedicated_db,
bluefs_db_size, bluestore_bdev_rotational ...), on which host and how much memory the host
has; `osd df tree` says how many PGs each OSD holds now and under which host and device
class CRUSH places it.
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.ceph.cluster_config import OsdMeta, OsdUsage
from stackprobe.parsers.ceph.json_fields import flag, integer, ips, items, load, obj, optional_int, text

META = "ceph osd metadata"
DF = "ceph osd df tree"


@guard(META)
def parse_osd_metadata(stdout: str) -> list[OsdMeta]:
    out = []
    for i, m in enumerate(load(stdout, META, list)):
        m = obj(m, META, f"entry {i}")
        osd = integer(m.get("id"), META, f"entry {i} id")
        where = f"osd.{osd}"
        mem_kb = optional_int(m.get("mem_total_kb"), META, f"{where} mem_total_kb")
        out.append(OsdMeta(
            id=osd,
            host=text(m.get("hostname"), META, f"{where} hostname"),
            objectstore=text(m.get("osd_objectstore"), META, f"{where} osd_objectstore"),
            data_type=text(m.get("bluestore_bdev_type"), META, f"{where} bluestore_bdev_type"),
            data_rotational=flag(m.get("bluestore_bdev_rotational", m.get("rotational")),
                                 META, f"{where} bluestore_bdev_rotational"),
            data_bytes=optional_int(m.get("bluestore_bdev_size"), META,
                                    f"{where} bluestore_bdev_size"),
            dedicated_db=flag(m.get("bluefs_dedicated_db"), META, f"{where} bluefs_dedicated_db"),
            dedicated_wal=flag(m.get("bluefs_dedicated_wal"), META,
                               f"{where} bluefs_dedicated_wal"),
            db_type=text(m.get("bluefs_db_type"), META, f"{where} bluefs_db_type"),
            db_rotational=flag(m.get("bluefs_db_rotational"), META, f"{where} bluefs_db_rotational"),
            db_bytes=optional_int(m.get("bluefs_db_size"), META, f"{where} bluefs_db_size"),
            mem_total_bytes=None if mem_kb is None else mem_kb * 1024,
            ips=ips(m.get("front_addr"), m.get("back_addr")),
            version=text(m.get("ceph_version_short") or m.get("ceph_version"), META,
                         f"{where} ceph_version"),
        ))
    return out


@guard(DF)
def parse_osd_df_tree(stdout: str) -> list[OsdUsage]:
    doc = load(stdout, DF, dict)
    nodes = items(doc, "nodes", DF) + items(doc, "stray", DF)
    host_of: dict[int, str] = {}
    parent: dict[int, int] = {}
    names: dict[int, str] = {}
    for n in nodes:
        node = integer(n.get("id"), DF, "node id")
        names[node] = text(n.get("name"), DF, f"node {node} name")
        children = n.get("children") or []
        if not isinstance(children, list):
            raise ValueError(f"{DF}: node {node} children is not a list")
        for child in children:
            child = integer(child, DF, f"node {node} child")
            parent[child] = node
            if n.get("type") == "host":
                host_of[child] = names[node]
    out = []
    for n in nodes:
        if n.get("type") != "osd":
            continue
        osd = integer(n.get("id"), DF, "osd id")
        out.append(OsdUsage(
            id=osd,
            device_class=text(n.get("device_class"), DF, f"osd.{osd} device_class"),
            host=host_of.get(osd, ""),
            pgs=integer(n.get("pgs", 0), DF, f"osd.{osd} pgs"),
            kb=integer(n.get("kb", 0), DF, f"osd.{osd} kb"),
            root=_root(osd, parent, names),
        ))
    return out


def _root(node: int, parent: dict[int, int], names: dict[int, str]) -> str:
    """The name of the topmost bucket above a node ('' when it has no parent)."""
    seen = {node}
    while node in parent and parent[node] not in seen:
        node = parent[node]
        seen.add(node)
    return names.get(node, "") if len(seen) > 1 else ""
