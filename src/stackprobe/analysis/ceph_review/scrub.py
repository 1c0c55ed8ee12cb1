"""Scrubbing during the test: a (deep) scrub reads every object of its PGs, and competes
with the test's I/O on the same disks; the figures then hold the scrub's load too."""

from __future__ import annotations

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev


class ScrubRunning(Rule):
    id = "scrub-during-test"
    title = "No scrub running while the test runs"
    doc = docs.SCRUBBING
    needs = ("status",)

    def check(self, config):
        assert config.status is not None
        states = config.status.pgs_by_state
        scrubbing = {s: n for s, n in states.items() if "scrubbing" in s}
        out = []
        if scrubbing:
            n = sum(scrubbing.values())
            deep = sum(c for s, c in scrubbing.items() if "deep" in s)
            out.append(self.finding("warn", "cluster", f"{n} PG(s) scrubbing ({deep} deep) "
                                    "when the configuration was read", [
                                        ev("status", f"pgs {s}", c) for s, c in scrubbing.items()]))
        return f"{sum(states.values())} PGs' states", out
