"""The network matrix's finding as a criterion: 'no flagged link'.

A link (one direction between two hosts) is flagged by the matrix (analysis/network_matrix.py)
when it is slow against the expected speed or its peers, one-way slow, or loses packets;
the criterion fails on any flagged cell and names it with the matrix's own sentence.
"""

from __future__ import annotations

from stackprobe.kinds.checks import Check, Outcome


class NoFlaggedLink(Check):
    phrase = "no flagged link"
    aliases = ("no slow link",)
    looks_at = "links"
    describes = "no iperf3/ping pair flagged slow, asymmetric or lossy by the network matrix"

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            matrix = step.findings.get("network")
            if not matrix:
                continue
            for cell in matrix.get("cells", []):
                flags = cell.get("flags") or []
                pair = f"{cell.get('client')}→{cell.get('server')}"
                gbps = (cell.get("bps") or 0) / 1e9
                text = (f"{pair} {gbps:.2f} Gbit/s"
                        + (f" ({', '.join(flags)})" if flags else ""))
                out.append(Outcome(not flags, text, (step.id,),
                                   detail="; ".join(cell.get("notes") or [])))
        return out
