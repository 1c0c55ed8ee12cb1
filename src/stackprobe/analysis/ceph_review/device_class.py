"""Device classes under a pool's CRUSH rule: a rule that takes a whole root with HDDs and
SSDs under it spreads the pool over both, so its speed is a mix of the two; a rule that
takes one class ('default~ssd') keeps the pool on it."""

from __future__ import annotations

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev


class DeviceClass(Rule):
    id = "crush-device-class"
    title = "Each pool on one device class"
    doc = docs.DEVICE_CLASSES
    needs = ("pools", "crush_rules", "osd_df")

    def check(self, config):
        classes = sorted({u.device_class or "none" for u in config.usage})
        counts = ", ".join(f"{c} x{sum(1 for u in config.usage if (u.device_class or 'none') == c)}"
                           for c in classes)
        out = []
        for rule in config.rules:
            pools = [p.name for p in config.pools if p.crush_rule == rule.id]
            if not pools or any("~" in t for t in rule.takes) or len(classes) < 2:
                continue
            out.append(self.finding(
                "warn", f"rule {rule.name}", f"{len(pools)} pool(s) ({', '.join(pools[:6])}) on "
                f"rule {rule.name}, which takes {', '.join(rule.takes)} with no device class: "
                f"their data is on {' and '.join(classes)} OSDs alike", [
                    ev("crush_rules", f"rule {rule.name} take", ", ".join(rule.takes)),
                    ev("pools", f"pools on rule {rule.id}", ", ".join(pools)),
                    ev("osd_df", "device classes", counts)]))
        return f"{len(config.rules)} rules, device classes {', '.join(classes) or 'none'}", out
