"""A node comparison in words, from what results.json keeps of it.

The same sentences serve the step's warnings when it is judged (analysis/consistency.py)
and the report when it redraws a stored run (report/host_tables.py), so both read the
stored form — a `findings["consistency"]` entry (docs/results-schema.md) — and nothing
is judged again here. Entries stored before pairs, spreads and roles were kept lack those
keys: they get no pair or spread line and no role.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def subject(c: Mapping[str, Any]) -> str:
    """What was compared: 'memory bandwidth (read)', with its role: '… — role mds'."""
    role = c.get("role")
    return f"{c.get('metric', '')} — role {role}" if role else str(c.get("metric", ""))


def pct(x: float) -> str:
    """A percentage as a sentence gives it: '14', '2.1', '0.2', '0.04'."""
    if x >= 10:
        return f"{x:.0f}"
    return f"{x:.1f}" if x >= 1 else f"{x:.2g}"


def pair_line(c: Mapping[str, Any], fmt: Callable[[float], str]) -> str | None:
    """Two nodes: 'memory bandwidth (read) — role mds: mds1 : mds2 = 3 : 2 (60 GB/s and
    40 GB/s): they differ by 33% of the better, more than 10%'; None without a pair."""
    p = c.get("pair")
    if not p:
        return None
    values = {f.get("node"): f.get("value") for f in c.get("figures", [])}
    limit = (c.get("limits") or {}).get("differ_pct")
    head = f"{subject(c)}: {p['high']} : {p['low']} = {p['ratio_text']}"
    shown = [values.get(p["high"]), values.get(p["low"])]
    if all(v is not None for v in shown):
        head += f" ({fmt(shown[0])} and {fmt(shown[1])})"
    beyond = f", more than {limit:g}%" if limit is not None else ""
    if p.get("differ"):
        return f"{head}: they differ by {pct(p['differ_pct'])}% of the better{beyond}"
    within = f"within {limit:g}%" if limit is not None else "close"
    return f"{head}: consistent, {pct(p['differ_pct'])}% apart ({within} of the better)"


def spread_line(c: Mapping[str, Any]) -> str | None:
    """Three or more nodes: 'CPU throughput (matrix) — role oss: spread 14% > 10% over 8
    nodes', '…: consistent (0.2%) over 8 nodes', '…: spread 2.1% over 8 nodes'; None for
    a pair or an entry stored without a spread verdict."""
    verdict = c.get("spread_verdict")
    spread = c.get("spread_pct")
    if verdict is None or spread is None:
        return None
    limits = c.get("limits") or {}
    n = len(c.get("figures", []))
    if verdict == "flagged":
        text = f"spread {pct(spread)}% > {limits.get('spread_flag_pct', 10):g}%"
    elif verdict == "consistent":
        text = f"consistent ({pct(spread)}%)"
    else:
        text = f"spread {pct(spread)}%"
    return f"{subject(c)}: {text} over {n} nodes ((max − min) / median)"
