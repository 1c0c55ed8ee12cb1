"""The nearfull / backfillfull / full ratios: Ceph expects nearfull < backfillfull < full
(else OSD_OUT_OF_ORDER_FULL), and each above the defaults (0.85, 0.90, 0.95) leaves less
room to recover from a lost OSD before writes stop."""

from __future__ import annotations

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev

DEFAULTS = {"nearfull": 0.85, "backfillfull": 0.90, "full": 0.95}


class FullRatios(Rule):
    id = "full-ratios"
    title = "nearfull < backfillfull < full, at or below the defaults"
    doc = docs.FULL_RATIOS
    needs = ("osd_dump",)

    def check(self, config):
        r = config.ratios
        assert r is not None
        values = {"nearfull": r.nearfull, "backfillfull": r.backfillfull, "full": r.full}
        evidence = [ev("osd_dump", f"{k}_ratio", f"{v:.2f}") for k, v in values.items()
                    if v is not None]
        out = []
        known = [(k, v) for k, v in values.items() if v is not None]
        if any(a[1] >= b[1] for a, b in zip(known, known[1:])):
            out.append(self.finding("fail", "cluster", "ratios out of order: "
                                    + " / ".join(f"{k} {v:.2f}" for k, v in known)
                                    + " (nearfull < backfillfull < full)", evidence,
                                    docs.OUT_OF_ORDER_FULL))
        above = [k for k, v in known if v > DEFAULTS[k] + 0.005]
        if above:
            out.append(self.finding("warn", "cluster", "above Ceph's defaults: " + ", ".join(
                f"{k} {values[k]:.2f} (default {DEFAULTS[k]:.2f})" for k in above)
                + ": less room to recover before writes stop", evidence))
        return " / ".join(f"{k} {v:.2f}" for k, v in known) or "no ratio in the osdmap", out
