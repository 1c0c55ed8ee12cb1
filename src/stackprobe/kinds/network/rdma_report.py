"""What the `rdma` step shows and answers: its pair table (every pair and test: the size,
bandwidth peak/average or latency typical/99%), a matrix per test when several pairs ran,
and the criterion 'no flagged RDMA pair'. All read the step's stored `rdma` finding
(analysis/rdma_pairs.py made it); nothing is recomputed.

A skipped step (no RDMA device) stores no finding: it has no table, and a criterion naming
'no flagged RDMA pair' finds nothing measured (docs/verdicts.md: not measured).
"""

from __future__ import annotations

from collections.abc import Sequence

from stackprobe.kinds.checks import Check, Outcome
from stackprobe.schema.results import StepResult
from stackprobe.tables.pair_matrix import pair_matrix
from stackprobe.tables.text_table import TextTable
from stackprobe.units import fmt_bw, fmt_bytes, fmt_ns

FLAG = "⚠"
KEY = "rdma"


def rdma_tables(steps: Sequence[StepResult]) -> list[TextTable]:
    out = []
    for step in steps:
        found = (step.findings or {}).get(KEY)
        if not found:
            continue
        out.append(pair_table(step, found))
        pairs = {(c["client"], c["server"]) for c in found["cells"]}
        if len(pairs) > 1:
            out += [_matrix(step, found, test) for test in found["tests"]]
    return out


def _figures(c: dict) -> tuple[str, str]:
    if c.get("error"):
        return (f"{FLAG} failed", "")
    if c["test"].endswith("_bw"):
        return (fmt_bw(c.get("bw_peak_bytes")), fmt_bw(c.get("bw_avg_bytes")))
    return (fmt_ns(c.get("lat_typical_ns")), fmt_ns(c.get("lat_p99_ns")))


def pair_table(step: StepResult, found: dict) -> TextTable:
    t = TextTable(f"RDMA pairs, perftest ({step.id})",
                  ["pair", "test", "size", "BW peak / lat typical", "BW avg / lat 99%", "flags"],
                  left=(0, 1, 5), layer="network")
    for c in found["cells"]:
        peak, avg = _figures(c)
        flags = c.get("flags") or []
        t.rows.append([f"{c['client']}→{c['server']}", c["test"], fmt_bytes(c.get("size_bytes")),
                       peak, avg, ", ".join(flags)])
    t.notes.append("bandwidth at the largest size every pair of a test printed, latency at "
                   "the smallest; ports: " + ", ".join(
                       f"{h} {p}" for h, p in sorted(found.get("ports", {}).items())))
    t.notes += [n for c in found["cells"] for n in c.get("notes", [])]
    return t


def _matrix(step: StepResult, found: dict, test: str) -> TextTable:
    cells = {(c["client"], c["server"]): c for c in found["cells"] if c["test"] == test}
    hosts = found["hosts"]
    bw = test.endswith("_bw")
    what = "BW average" if bw else "typical latency"

    def cell(a: str, b: str) -> str | None:
        c = cells.get((a, b))
        if c is None:
            return None
        text = _figures(c)[1 if bw and not c.get("error") else 0]
        return text if text.startswith(FLAG) or not c.get("flags") else f"{FLAG} {text}"

    return pair_matrix(f"RDMA {test} matrix, {what} (client \\ server) ({step.id})",
                       "client \\ server", hosts, cell, layer="network")


class NoFlaggedRdmaPair(Check):
    phrase = "no flagged rdma pair"  # as a rule is matched: lower case
    aliases = ("no slow rdma pair",)
    looks_at = "RDMA pairs"
    describes = ("no host pair flagged by perftest (failed, bandwidth below or latency above "
                 "the median pair's)")

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            for c in ((step.findings or {}).get(KEY) or {}).get("cells", []):
                flags = c.get("flags") or []
                peak, avg = _figures(c)
                figure = avg if c["test"].endswith("_bw") else peak
                text = (f"{c['test']} {c['client']}→{c['server']} {figure}"
                        + (f" ({', '.join(flags)})" if flags else ""))
                out.append(Outcome(not flags, text, (step.id,),
                                   detail="; ".join(c.get("notes") or [])))
        return out
