"""The link_state kind's finding as a criterion: 'no degraded link'.

A link is degraded when analysis/link_fleet.py flagged it: down while expected or up
elsewhere, slower than the hosts file or the fleet's majority, a bond with a member down,
slower than its peers or outside the active LACP aggregator. One outcome per link, the
flags' own sentences as what was measured.
"""

from __future__ import annotations

from stackprobe.kinds.checks import Check, Outcome


class NoDegradedLink(Check):
    phrase = "no degraded link"
    aliases = ("no degraded port", "links at expected speed")
    looks_at = "links"
    describes = ("no NIC, InfiniBand port or bond down, below the hosts file's speed or the "
                 "fleet's majority, or with a member down or slow (link_state)")

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            found = step.findings.get("link_state")
            if not found:
                continue
            for link in found.get("links", []):
                flags = link.get("flags") or []
                text = "; ".join(flags) if flags else \
                    f"{link.get('host')} {link.get('name')} {link.get('speed')}"
                out.append(Outcome(not flags, text, (step.id,)))
        return out
