"""What the `mpi_pairs` step shows and answers: its two matrices (latency at the smallest
size, bandwidth at the largest) in the terminal report, and the criterion 'no flagged MPI
pair'. Both read the step's stored `mpi_pairs` finding (analysis/mpi_matrix.py made it);
nothing is recomputed.

A ping-pong cell is an unordered pair (it crosses both ways, the direction cannot be told),
so the latency matrix is symmetric: row h1 column h3 and row h3 column h1 hold the same
pair. When the step streamed each ordered pair one way (`oneway`, NetPIPE), the bandwidth
matrix is one of directions instead: row the sender, column the receiver.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.kinds.checks import Check, Outcome
from stackprobe.schema.results import StepResult
from stackprobe.tables.pair_matrix import pair_matrix
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_bytes, fmt_ns

FLAG = "⚠"
KEY = "mpi_pairs"


def mpi_tables(steps: Sequence[StepResult]) -> list[TextTable]:
    out = []
    for step in steps:
        m = (step.findings or {}).get(KEY)
        if m:
            out.append(_matrix(step, m, "latency"))
            out.append(_directions(step, m["oneway"]) if m.get("oneway")
                       else _matrix(step, m, "bandwidth"))
    return out


def _directions(step: StepResult, d: dict) -> TextTable:
    cells = {(c["src"], c["dst"]): c for c in d["cells"]}
    hosts = sorted({h for key in cells for h in key})

    def cell(src: str, dst: str) -> str | None:
        c = cells.get((src, dst))
        if c is None:
            return None
        if c.get("bw_bytes") is None:
            return f"{FLAG} failed"
        text = fmt_bw(c["bw_bytes"])
        return f"{FLAG} {text}" if c.get("flags") else text

    t = pair_matrix(f"MPI one-way bandwidth matrix, {fmt_bytes(d.get('size'))}, sender → "
                    f"receiver ({step.id})", "sender \\ receiver", hosts, cell, layer="network")
    t.notes.append(f"typical direction {fmt_bw(d.get('typical_bw_bytes'))} (the median over "
                   "hosts of each host's median direction); NetPIPE streaming, messages one "
                   "way as osu_bw sends them")
    t.notes += [n for c in d["cells"] for n in c.get("notes", [])]
    t.notes += d.get("host_notes", [])
    t.notes += [n for c in d["cells"] if (n := _cleared(c))]
    return t


def _cleared(c: dict) -> str | None:
    """A direction streamed again whose best stream is not flagged: its dip, on record."""
    streams = c.get("streams")
    if not streams or c.get("flags"):
        return None
    return (f"{c['src']}→{c['dst']} streamed {len(streams)}×: "
            f"{', then '.join(fmt_bw(b) for b in streams)}; the best is kept (a dip another "
            "stream does not repeat is the hosts', not the link's)")


def _matrix(step: StepResult, m: dict, what: str) -> TextTable:
    hosts = m["hosts"]
    cells = {frozenset((c["a"], c["b"])): c for c in m["cells"]}
    if what == "latency":
        title = f"MPI latency matrix, {fmt_bytes(m.get('latency_size'))} one way ({step.id})"
        field, fmt, typical = "latency_ns", fmt_ns, fmt_ns(m.get("typical_latency_ns"))
    else:
        title = f"MPI bandwidth matrix, {fmt_bytes(m.get('bw_size'))} ({step.id})"
        field, fmt, typical = "bw_bytes", fmt_bw, fmt_bw(m.get("typical_bw_bytes"))

    def cell(a: str, b: str) -> str | None:
        c = cells.get(frozenset((a, b)))
        if c is None:
            return None
        if c.get(field) is None:
            return f"{FLAG} failed" if c.get("error") else "-"
        text = fmt(c[field])
        return f"{FLAG} {text}" if what in c.get("flags", []) else text

    t = pair_matrix(title, "host \\ host", hosts, cell, layer="network")
    t.notes.append(f"typical pair {typical} (the median over hosts of each host's median "
                   "pair); a ping-pong crosses both ways, so each cell is the pair, not a "
                   "direction (the iperf3 matrix tells the direction)")
    t.notes += [n for c in m["cells"] for kind, n in zip(c.get("flags", []), c.get("notes", []))
                if kind == what or (kind == "failed" and what == "latency")]
    t.notes += [n for n in m.get("host_notes", []) if f"for {what}" in n]
    return t


class NoFlaggedMpiPair(Check):
    phrase = "no flagged mpi pair"
    aliases = ("no slow MPI pair",)
    looks_at = "MPI pairs"
    describes = ("no host pair flagged by the MPI ping-pong matrix (failed, latency above or "
                 "bandwidth below the typical pair's) and no direction by the one-way matrix")

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            m = (step.findings or {}).get(KEY)
            for c in (m or {}).get("cells", []):
                flags = c.get("flags") or []
                text = (f"{c['a']}↔{c['b']} {fmt_ns(c.get('latency_ns'))}, "
                        f"{fmt_bw(c.get('bw_bytes'))}"
                        + (f" ({', '.join(flags)})" if flags else ""))
                out.append(Outcome(not flags, text, (step.id,),
                                   detail="; ".join(c.get("notes") or [])))
            for c in ((m or {}).get("oneway") or {}).get("cells", []):
                flags = c.get("flags") or []
                text = (f"{c['src']}→{c['dst']} one way {fmt_bw(c.get('bw_bytes'))}"
                        + (f" ({', '.join(flags)})" if flags else ""))
                out.append(Outcome(not flags, text, (step.id,),
                                   detail="; ".join(c.get("notes") or [])))
        return out
