"""`ceph -s -f json` -> CephStatus: health, checks, OSD/PG/MDS/mgr state.

Used twice: the lab waits until its cluster is usable, and a run refuses a HEALTH_ERR
cluster before any load. Handles the osdmap shape of Pacific and later (flat) and of
earlier releases (nested under a second 'osdmap').
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stackprobe.parsers.bad_input import guard, load_json


@dataclass
class CephStatus:
    fsid: str | None
    health: str  # HEALTH_OK / HEALTH_WARN / HEALTH_ERR
    checks: dict[str, str] = field(default_factory=dict)  # code -> message
    num_osds: int = 0
    up_osds: int = 0
    in_osds: int = 0
    num_pgs: int = 0
    pgs_by_state: dict[str, int] = field(default_factory=dict)
    mds_active: int = 0
    mgr_available: bool = False
    num_pools: int = 0
    bytes_total: int | None = None
    bytes_used: int | None = None

    @property
    def clean_pgs(self) -> int:
        return self.pgs_by_state.get("active+clean", 0)


@guard("ceph -s")
def parse_ceph_status(text: str) -> CephStatus:
    doc = load_json(text, "ceph -s", dict)
    if "health" not in doc:
        raise ValueError("ceph -s: no 'health' in the document")
    health = doc["health"]
    osdmap: dict[str, Any] = doc.get("osdmap") or {}
    osdmap = osdmap.get("osdmap", osdmap)  # before Pacific the figures sit one level down
    pgmap = doc.get("pgmap") or {}
    fsmap = doc.get("fsmap") or {}
    active = sum(1 for r in fsmap.get("by_rank", []) if r.get("status") == "up:active")
    return CephStatus(
        fsid=_optional(doc.get("fsid"), str, "fsid"),
        health=_optional(health.get("status") or health.get("overall_status", "HEALTH_UNKNOWN"),
                         str, "health.status"),
        checks={code: str((c.get("summary") or {}).get("message", code))
                for code, c in (health.get("checks") or {}).items()},
        num_osds=int(osdmap.get("num_osds", 0)),
        up_osds=int(osdmap.get("num_up_osds", 0)),
        in_osds=int(osdmap.get("num_in_osds", 0)),
        num_pgs=int(pgmap.get("num_pgs", 0)),
        pgs_by_state={str(s["state_name"]): int(s["count"]) for s in pgmap.get("pgs_by_state", [])},
        mds_active=active,
        mgr_available=bool((doc.get("mgrmap") or {}).get("available", False)),
        num_pools=int(pgmap.get("num_pools", 0)),
        bytes_total=_optional(pgmap.get("bytes_total"), int, "pgmap.bytes_total"),
        bytes_used=_optional(pgmap.get("bytes_used"), int, "pgmap.bytes_used"),
    )


def _optional(value: Any, kind: type, where: str) -> Any:
    """`value` when it is None or of `kind` (a bool is no count), else ValueError."""
    if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
        return value
    raise ValueError(f"ceph -s: {where} is not a {kind.__name__}: {str(value)[:40]!r}")
