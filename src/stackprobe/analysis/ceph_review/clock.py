"""Clock skew between monitors: above mon_clock_drift_allowed (0.05 s) Ceph warns
(MON_CLOCK_SKEW); leases and timeouts misbehave, and latencies measured across hosts
are off by the skew."""

from __future__ import annotations

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev

ALLOWED_S = 0.05  # mon_clock_drift_allowed's default


class ClockSkew(Rule):
    id = "clock-skew"
    title = "Monitor clocks within mon_clock_drift_allowed"
    doc = docs.CLOCK_SKEW
    needs = ("time_sync",)

    def check(self, config):
        found = config.setting("mon_clock_drift_allowed", "mon")
        allowed = float(found[0]) if found and _number(found[0]) else ALLOWED_S
        skewed = [s for s in config.skews if abs(s.skew_s) > allowed or
                  (s.health and s.health != "HEALTH_OK")]
        evidence = [ev("time_sync", f"mon.{s.mon} skew / health", f"{s.skew_s:.3f} s / "
                       f"{s.health}") for s in skewed]
        check = config.status.checks.get("MON_CLOCK_SKEW") if config.status else None
        if check:
            evidence.append(ev("status", "health MON_CLOCK_SKEW", check))
        out = []
        if skewed or check:
            worst = max((abs(s.skew_s) for s in skewed), default=0.0)
            out.append(self.finding("warn", "cluster", f"{len(skewed)} mon(s) skewed, up to "
                                    f"{worst:.3f} s (allowed {allowed:g} s)", evidence))
        return f"{len(config.skews)} mons' clocks", out


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
