"""`ceph osd pool stats -f json` -> each pool's client I/O rates, as the manager last saw.

Ceph leaves a rate out of `client_io_rate` when it is zero (an idle pool has `{}`), so a
missing rate reads as 0. Recovery rates are not read: during a benchmark they would be a
finding of their own (the health checks say it), not client load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.parsers.ceph.json_fields import load

WHAT = "ceph osd pool stats"
RATES = {"read_bps": "read_bytes_sec", "write_bps": "write_bytes_sec",
         "read_ops": "read_op_per_sec", "write_ops": "write_op_per_sec"}


@dataclass(frozen=True)
class PoolIo:
    pool: str
    pool_id: int
    read_bps: float
    write_bps: float
    read_ops: float
    write_ops: float


@guard(WHAT)
def parse_pool_stats(text: str) -> list[PoolIo]:
    doc = load(text, WHAT, list)
    return [_pool(p) for p in doc]


def _pool(p: Any) -> PoolIo:
    name, pool_id = p["pool_name"], p["pool_id"]
    if not isinstance(name, str) or not isinstance(pool_id, int) or isinstance(pool_id, bool):
        raise ValueError(f"{WHAT}: a pool without a name or id: {str(name)[:40]!r}")
    io = p.get("client_io_rate") or {}
    if not isinstance(io, dict):
        raise ValueError(f"{WHAT}: pool {name[:40]!r}: client_io_rate is not an object")
    rates = {}
    for field, key in RATES.items():
        value = finite(io.get(key, 0), f"{WHAT}: pool {name[:40]!r} {key}")
        if value < 0:
            raise ValueError(f"{WHAT}: pool {name[:40]!r} {key} is negative")
        rates[field] = float(value)
    return PoolIo(name, pool_id, **rates)
