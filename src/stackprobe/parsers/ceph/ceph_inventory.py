"""The JSON of a few read-only `ceph` commands -> CephInventoryRecord.

A result is only comparable with another if one knows what cluster gave it: how many OSDs
on how many hosts, of which device class, which pool (replicated or erasure, size,
pg_num) and which release. The commands are listed in runners/ceph_inventory_sources.py;
the outputs come keyed by source name:

- "status"   `ceph -s -f json`: fsid, health, checks, active MDS (via parsers/ceph_status.py);
- "osd_tree" `ceph osd tree -f json`: OSDs with host, device class, up/in, CRUSH weight;
- "df"       `ceph df -f json`: raw and used bytes, stored bytes and objects per pool;
- "pools"    `ceph osd pool ls detail -f json`: type, size, min_size, pg_num, applications;
- "versions" `ceph versions -f json`: daemon type -> version string -> count;
- "ec_profiles" `ceph osd erasure-code-profile ls -f json` and "ec_profile.<name>"
  `ceph osd erasure-code-profile get <name> -f json`, for the profiles erasure pools use
  (`erasure_profiles_in_use` names them from the "pools" output).

Any source may be missing: its fields stay empty. A source that is present but not the
JSON expected raises ValueError naming it, so a broken collection is not stored as an
empty cluster.

Body: osds [{id, name, host, device_class, up, in, crush_weight, reweight}] (`in` is
reweight > 0, as Ceph marks an OSD out by setting it to 0; OSDs without a device class
count as "none" in device_classes, stray OSDs have host None); pools [{name, id, type,
size, min_size, pg_num, crush_rule, applications, ec_profile {name, k, m, plugin,
crush-failure-domain, ...}, stored_bytes, objects, used_bytes}] in pool id order.
"""

from __future__ import annotations

from typing import Any

from stackprobe.parsers.bad_input import guard, load_json
from stackprobe.parsers.ceph.ceph_status import parse_ceph_status
from stackprobe.schema.records import CephInventoryRecord

SOURCES = ("status", "osd_tree", "df", "pools", "versions", "ec_profiles")
EC_PROFILE_PREFIX = "ec_profile."
_POOL_TYPES = {1: "replicated", 3: "erasure", "replicated": "replicated", "erasure": "erasure"}
_PROFILE_INTS = ("k", "m", "l", "c", "d", "w")


@guard("ceph inventory")
def parse_ceph_inventory(outputs: dict[str, str]) -> CephInventoryRecord:
    """CephInventoryRecord from the stdout of the inventory commands, keyed by source name."""
    unknown = [k for k in outputs if k not in SOURCES and not k.startswith(EC_PROFILE_PREFIX)]
    if unknown:
        raise ValueError(f"ceph inventory: unknown source(s) {sorted(unknown)}")
    rec = CephInventoryRecord()
    if "status" in outputs:
        try:
            status = parse_ceph_status(outputs["status"])
        except ValueError as exc:
            raise ValueError(f"ceph inventory: source 'status': {exc}") from None
        rec.fsid, rec.health, rec.checks = status.fsid, status.health, status.checks
        rec.mds_active = status.mds_active
    if "osd_tree" in outputs:
        rec.osds = _osds(_load(outputs, "osd_tree", dict))
        rec.hosts = sorted({o["host"] for o in rec.osds if o["host"]})
        for osd in rec.osds:
            cls = osd["device_class"] or "none"
            rec.device_classes[cls] = rec.device_classes.get(cls, 0) + 1
    df = _load(outputs, "df", dict) if "df" in outputs else {}
    stats = df.get("stats") or {}
    rec.raw_bytes = _opt_int(stats.get("total_bytes"))
    rec.raw_used_bytes = _opt_int(stats.get("total_used_raw_bytes", stats.get("total_used_bytes")))
    pools = _load(outputs, "pools", list) if "pools" in outputs else []
    if "ec_profiles" in outputs:
        _load(outputs, "ec_profiles", list)  # only checked: the per-profile sources carry the facts
    rec.pools = _pools(pools, df.get("pools") or [], _profiles(outputs))
    if "versions" in outputs:
        rec.versions = _versions(_load(outputs, "versions", dict))
    # Fields were set one by one, which pydantic does not check: a host name or a device
    # class that is not a string must not reach results.json.
    return CephInventoryRecord.model_validate(rec.model_dump(warnings=False))


@guard("ceph inventory")
def erasure_profiles_in_use(pools_text: str) -> list[str]:
    """Profile names of the erasure pools in `ceph osd pool ls detail -f json`, sorted."""
    pools = _load({"pools": pools_text}, "pools", list)
    return sorted({str(p["erasure_code_profile"]) for p in pools
                   if _pool_type(p) == "erasure" and p.get("erasure_code_profile")})


def _load(outputs: dict[str, str], source: str, kind: type) -> Any:
    return load_json(outputs[source], f"ceph inventory: source '{source}'", kind)


def _osds(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """OSD nodes with the host bucket above them; `stray` OSDs (not in CRUSH) get host None."""
    nodes = tree.get("nodes")
    if not isinstance(nodes, list):
        raise ValueError("ceph inventory: source 'osd_tree' has no 'nodes' list")
    host_of: dict[int, str] = {}
    for node in nodes:
        if node.get("type") == "host":
            for child in node.get("children") or []:
                host_of[child] = node["name"]
    osds = []
    for node in nodes + list(tree.get("stray") or []):
        if not isinstance(node, dict):
            raise ValueError("ceph inventory: source 'osd_tree' has a node that is not an object")
        if node.get("type", "osd") != "osd" or "id" not in node or node["id"] < 0:
            continue
        reweight = float(node.get("reweight", 0))
        osds.append({
            "id": int(node["id"]),
            "name": node.get("name", f"osd.{node['id']}"),
            "host": host_of.get(node["id"]),
            "device_class": node.get("device_class"),
            "up": node.get("status") == "up",
            "in": reweight > 0,
            "crush_weight": float(node.get("crush_weight", 0)),
            "reweight": reweight,
        })
    return sorted(osds, key=lambda o: o["id"])


def _profiles(outputs: dict[str, str]) -> dict[str, dict[str, Any]]:
    profiles = {}
    for source in outputs:
        if source.startswith(EC_PROFILE_PREFIX):
            name = source[len(EC_PROFILE_PREFIX):]
            raw = _load(outputs, source, dict)
            profiles[name] = {"name": name, **{k: _profile_value(k, v) for k, v in raw.items()}}
    return profiles


def _profile_value(key: str, value: Any) -> Any:
    """Profiles come as strings ("k": "2"); k, m and the other counts become integers."""
    if key in _PROFILE_INTS:
        try:
            return int(value)
        except (TypeError, ValueError):
            return value
    return value


def _pools(detail: list[dict[str, Any]], df_pools: list[dict[str, Any]],
           profiles: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Pools from `pool ls detail`, with their `df` stats; pools only in df keep name and stats."""
    by_id: dict[int, dict[str, Any]] = {}
    for p in detail:
        if not isinstance(p, dict) or "pool_id" not in p or "pool_name" not in p:
            raise ValueError("ceph inventory: source 'pools' has an entry without pool_id/pool_name")
        pool: dict[str, Any] = {
            "name": p["pool_name"],
            "id": int(p["pool_id"]),
            "type": _pool_type(p),
            "size": p.get("size"),
            "min_size": p.get("min_size"),
            "pg_num": p.get("pg_num"),
            "crush_rule": p.get("crush_rule"),
            "applications": sorted(p.get("application_metadata") or {}),
        }
        if pool["type"] == "erasure" and p.get("erasure_code_profile"):
            name = str(p["erasure_code_profile"])
            pool["ec_profile"] = profiles.get(name, {"name": name})
        by_id[pool["id"]] = pool
    for entry in df_pools:
        if not isinstance(entry, dict) or "id" not in entry:
            raise ValueError("ceph inventory: source 'df' has a pool without an id")
        pool = by_id.setdefault(int(entry["id"]), {"name": entry.get("name"), "id": int(entry["id"])})
        stats = entry.get("stats") or {}
        for key, out in (("stored", "stored_bytes"), ("objects", "objects"),
                         ("bytes_used", "used_bytes")):
            if key in stats:
                pool[out] = int(stats[key])
    return [by_id[i] for i in sorted(by_id)]


def _pool_type(pool: dict[str, Any]) -> str | None:
    value = pool.get("type")
    return _POOL_TYPES.get(value, str(value) if value is not None else None)


def _versions(doc: dict[str, Any]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for daemon, counts in doc.items():
        if not isinstance(counts, dict):
            raise ValueError(f"ceph inventory: source 'versions': '{daemon}' is not an object")
        out[daemon] = {str(v): int(n) for v, n in counts.items()}
    return out


def _opt_int(value: Any) -> int | None:
    return int(value) if value is not None else None
