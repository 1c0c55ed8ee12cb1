"""Mixed versions: daemons of more than one Ceph version (an upgrade under way or stopped
half-way, DAEMON_OLD_VERSION) behave and perform as neither release does."""

from __future__ import annotations

import re

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev

_VERSION = re.compile(r"ceph version (\S+)")


def short(version: str) -> str:
    m = _VERSION.search(version)
    return m.group(1) if m else version


class MixedVersions(Rule):
    id = "mixed-versions"
    title = "One Ceph version across the daemons"
    doc = docs.OLD_VERSION
    needs = ("versions",)

    def check(self, config):
        daemons = {k: v for k, v in config.versions.items() if k != "overall" and v}
        found = sorted({short(v) for counts in daemons.values() for v in counts})
        total = sum(n for counts in daemons.values() for n in counts.values())
        out = []
        if len(found) > 1:
            out.append(self.finding("warn", "cluster", f"{len(found)} Ceph versions run "
                                    f"together: {', '.join(found)}", [
                                        ev("versions", kind, ", ".join(
                                            f"{short(v)} x{n}" for v, n in counts.items()))
                                        for kind, counts in daemons.items()]))
        return f"{total} daemons, version {', '.join(found) or 'unknown'}", out
