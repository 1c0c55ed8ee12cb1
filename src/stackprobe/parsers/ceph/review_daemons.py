"""Daemons, versions, clocks and settings as the review reads them (-f json):

- `ceph mon dump`: each mon's name and addresses; `ceph mon metadata` / `ceph mds
  metadata`: the host each mon / MDS runs on (co-location with OSDs);
- `ceph versions`: daemon type -> version string -> count;
- `ceph time-sync-status`: each mon's clock skew against the leader, in seconds;
- `ceph config dump`: the configuration database (section, mask, option, value);
- `ceph config show osd.N`: what one running OSD uses (its config file included).
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.ceph.cluster_config import ConfigEntry, Daemon, Skew
from stackprobe.parsers.ceph.json_fields import integer, ips, items, load, number, obj, text

MON_DUMP = "ceph mon dump"
VERSIONS = "ceph versions"
TIME_SYNC = "ceph time-sync-status"
CONFIG_DUMP = "ceph config dump"


@guard(MON_DUMP)
def parse_mon_dump(stdout: str) -> list[Daemon]:
    # `ceph mon dump` says 'dumped monmap epoch N' on stderr; outputs captured with both
    # streams (sosreport) carry it after the JSON
    body = re.sub(r"\n?dumped monmap epoch \d+\s*$", "\n", stdout)
    out = []
    for m in items(load(body, MON_DUMP, dict), "mons", MON_DUMP):
        name = text(m.get("name"), MON_DUMP, "mon name")
        vec = obj(m.get("public_addrs") or {}, MON_DUMP, f"mon {name} public_addrs")
        addrs = [a.get("addr") for a in items(vec, "addrvec", MON_DUMP)]
        out.append(Daemon("mon", name, "", ips(*addrs, m.get("addr"), m.get("public_addr"))))
    return out


def parse_daemon_metadata(stdout: str, kind: str) -> list[Daemon]:
    """`ceph mon metadata` (kind 'mon') or `ceph mds metadata` (kind 'mds')."""
    command = f"ceph {kind} metadata"

    @guard(command)
    def parse(text_in: str) -> list[Daemon]:
        out = []
        for i, m in enumerate(load(text_in, command, list)):
            m = obj(m, command, f"entry {i}")
            name = text(m.get("name"), command, f"entry {i} name")
            out.append(Daemon(kind, name, text(m.get("hostname"), command, f"{name} hostname"),
                              ips(m.get("addrs"), m.get("addr"))))
        return out

    return parse(stdout)


@guard(VERSIONS)
def parse_versions(stdout: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for daemon, counts in load(stdout, VERSIONS, dict).items():
        counts = obj(counts, VERSIONS, str(daemon)[:40])
        out[str(daemon)] = {str(v): integer(n, VERSIONS, f"{daemon} count")
                            for v, n in counts.items()}
    return out


@guard(TIME_SYNC)
def parse_time_sync(stdout: str) -> list[Skew]:
    doc = load(stdout, TIME_SYNC, dict)
    skews = obj(doc.get("time_skew_status") or {}, TIME_SYNC, "time_skew_status")
    out = []
    for mon, s in skews.items():
        s = obj(s, TIME_SYNC, f"mon {str(mon)[:40]}")
        out.append(Skew(str(mon), number(s.get("skew", 0), TIME_SYNC, f"{mon} skew"),
                        text(s.get("health"), TIME_SYNC, f"{mon} health")))
    return out


@guard(CONFIG_DUMP)
def parse_config_dump(stdout: str) -> list[ConfigEntry]:
    out = []
    for i, e in enumerate(load(stdout, CONFIG_DUMP, list)):
        e = obj(e, CONFIG_DUMP, f"entry {i}")
        name = text(e.get("name"), CONFIG_DUMP, f"entry {i} name")
        out.append(ConfigEntry(text(e.get("section"), CONFIG_DUMP, f"{name} section"),
                               text(e.get("mask"), CONFIG_DUMP, f"{name} mask"), name,
                               text(e.get("value"), CONFIG_DUMP, f"{name} value")))
    return out


def parse_config_show(stdout: str, daemon: str) -> dict[str, str]:
    """`ceph config show DAEMON`: option -> the value the daemon runs with."""
    command = f"ceph config show {daemon}"

    @guard(command)
    def parse(text_in: str) -> dict[str, str]:
        out = {}
        for i, e in enumerate(load(text_in, command, list)):
            e = obj(e, command, f"entry {i}")
            name = text(e.get("name"), command, f"entry {i} name")
            out[name] = text(e.get("value"), command, f"{name} value")
        return out

    return parse(stdout)
