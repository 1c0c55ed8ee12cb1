"""The disk baseline's finding as a criterion: 'no flagged disk set'.

A host's disks together delivering far less than the sum of each alone (a shared backplane
cable, an HBA, a controller: seed 004's 36 disks capped at 2 GB/s) is flagged by the
disk_baseline kind (findings.disk_scaling); the criterion fails on any flagged host.
"""

from __future__ import annotations

from stackprobe.kinds.checks import Check, Outcome


class NoFlaggedDiskSet(Check):
    phrase = "no flagged disk set"
    aliases = ("disks scale",)
    looks_at = "hosts' disk sets"
    describes = "each host's disks together deliver at least min_aggregate x their sum alone"

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            for host, scaling in (step.findings.get("disk_scaling") or {}).items():
                ratio = scaling.get("ratio")
                text = (f"{host}: together {ratio:.0%} of the sum alone" if ratio is not None
                        else f"{host}: no ratio")
                out.append(Outcome(not scaling.get("flagged"), text, (step.id,)))
        return out
