"""Monitors and MDS daemons on OSD hosts. Ceph's docs assign each node one type of daemon
where possible: a mon or MDS sharing a host with OSDs competes with them for CPU, memory
and disk, and a test that loads the OSDs also slows the cluster's control plane."""

from __future__ import annotations

from stackprobe.analysis.ceph_review import docs
from stackprobe.analysis.ceph_review.finding import Rule, ev

_ANY = {"0.0.0.0", "::"}


class Colocation(Rule):
    id = "mon-mds-on-osd-hosts"
    title = "Monitors and MDS on hosts of their own"
    doc = docs.COMMON_SETTINGS
    needs = ("osd_metadata", "mon_dump")

    def check(self, config):
        hosts = {o.host for o in config.osds if o.host}
        osd_ips = {ip for o in config.osds for ip in o.ips if ip not in _ANY}
        daemons = config.mons + config.mdss
        out = []
        for d in daemons:
            source = f"{d.kind}_metadata" if d.host else "mon_dump"
            if d.host and d.host in hosts:
                what = ev(source, f"{d.kind}.{d.name} hostname", d.host)
            elif shared := sorted(set(d.ips) & osd_ips):
                what = ev(source, f"{d.kind}.{d.name} address", ", ".join(shared))
            else:
                continue
            osds = [o for o in config.osds if o.host == d.host or set(o.ips) & set(d.ips)]
            out.append(self.finding(
                "warn", f"{d.kind}.{d.name}", f"{d.kind}.{d.name} runs on an OSD host "
                f"({d.host or ', '.join(d.ips)}, {len(osds)} OSDs)", [
                    what, ev("osd_metadata", "OSDs there",
                             ", ".join(f"osd.{o.id}" for o in osds[:8]))]))
        return f"{len(config.mons)} mons, {len(config.mdss)} MDS, {len(hosts)} OSD hosts", out
