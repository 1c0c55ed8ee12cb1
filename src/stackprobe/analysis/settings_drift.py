"""Settings drift: a setting that differs among the hosts of one role.

Hosts that do the same job are expected to be set up the same way; the one OSS with an
older BIOS, the one client left in powersave, is what a fleet-wide benchmark shows later
as a slow node without saying why. Each setting is compared across the hosts of each role
of hosts.yaml — the hosts the per-node figures compare (node_figures.hosts_by_role): a host
with several roles in each; no roles known: one group, 'all'; hosts without a role when
others have one: the group 'no role'. Per-device settings
(nic.<n>.*, disk.<n>.*, mount.<p>.*) are compared among the hosts that have that device
name, as every setting is among the hosts that have it. Volatile settings (a time offset)
and unreadable values (None) are left out.

A difference is one sentence naming the odd hosts against the majority: "h4: cpu.governor
powersave, 15 hosts performance"; with no majority (1:1, 2:2:1) every value with its hosts:
"mds1: bios.version 2.1, mds2: 2.3". The same difference in two roles is said once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from stackprobe.analysis.node_figures import hosts_by_role
from stackprobe.schema.settings_records import SettingsRecord

ALL = "all"
NO_ROLE = "no role"
NAMED_HOSTS = 3  # a sentence names this many hosts of a value, then 'and N more'


@dataclass(frozen=True)
class Drift:
    """One setting that differs among the hosts of one or more roles."""

    setting: str
    roles: tuple[str, ...]
    values: tuple[tuple[str, tuple[str, ...]], ...]  # (value, its hosts), most hosts first
    majority: str | None  # the value of more than half the hosts compared, if any

    @property
    def hosts(self) -> int:
        return sum(len(h) for _v, h in self.values)

    @property
    def odd(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return tuple((v, h) for v, h in self.values if v != self.majority)

    @property
    def text(self) -> str:
        parts = [(hosts_text(h), v) for v, h in self.odd]
        sep = ", " if all(len(h) == 1 for _v, h in self.odd) else "; "
        text = sep.join(f"{who}: {self.setting} {v}" if i == 0 else f"{who}: {v}"
                        for i, (who, v) in enumerate(parts))
        if self.majority is not None:
            count = len(dict(self.values)[self.majority])
            text += f"{sep}{count} host{'s' if count != 1 else ''} {self.majority}"
        return text

    def to_json(self) -> dict:
        return {"setting": self.setting, "roles": list(self.roles), "majority": self.majority,
                "values": [{"value": v, "hosts": list(h)} for v, h in self.values],
                "text": self.text}


@dataclass(frozen=True)
class GroupSummary:
    role: str
    hosts: int
    compared: int  # settings present with a value on 2+ hosts of the role
    differ: int


@dataclass(frozen=True)
class DriftReport:
    groups: tuple[GroupSummary, ...]
    drifts: tuple[Drift, ...]
    compared_by_role: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def compared(self) -> int:
        return sum(g.compared for g in self.groups)

    @property
    def differ(self) -> int:
        return sum(g.differ for g in self.groups)

    @property
    def summary(self) -> str:
        # a role of one host has no peer to differ from: named apart, not as compared
        roles = ", ".join(f"{g.role} ({g.hosts} hosts)" for g in self.groups if g.hosts > 1)
        alone = [g.role for g in self.groups if g.hosts < 2]
        text = f"{self.compared} settings compared in {roles or 'no role'}; {self.differ} differ"
        if alone:
            text += f" ({', '.join(alone)}: one host, nothing to compare)"
        return text

    def to_json(self) -> dict:
        return {"compared": self.compared, "differ": self.differ, "summary": self.summary,
                "groups": [{"role": g.role, "hosts": g.hosts, "compared": g.compared,
                            "differ": g.differ} for g in self.groups],
                "drifts": [d.to_json() for d in self.drifts]}


def host_name(record: SettingsRecord) -> str:
    return record.host or "localhost"


def hosts_text(hosts: Sequence[str], named: int = NAMED_HOSTS) -> str:
    """'h1', 'h1, h2', 'h1, h2, h3 and 12 more' (all named when one more would be left)."""
    if len(hosts) <= named + 1:
        return ", ".join(hosts)
    return f"{', '.join(hosts[:named])} and {len(hosts) - named} more"


def named_groups(hosts: Sequence[str], roles: dict[str, list[str]]) -> dict[str, list[str]]:
    """The per-node comparison's groups (node_figures.hosts_by_role: hosts in the order
    given, a host with two roles in both), named for sentences: one group 'all' when no
    host has a role, the hosts without one 'no role' when others have one. Roles with the
    same hosts stay apart here (each is summarised); a drift they share is said once."""
    groups = hosts_by_role(hosts, roles)
    if list(groups) == [None]:
        return {ALL: groups[None]}
    return {NO_ROLE if role is None else role: members for role, members in groups.items()}


def settings_drift(records: Sequence[SettingsRecord], roles: dict[str, list[str]]) -> DriftReport:
    by_host = {host_name(r): r.settings for r in records}
    volatile = {name for s in by_host.values() for name, v in s.items() if v.volatile}
    groups: list[GroupSummary] = []
    found: dict[tuple, Drift] = {}  # (setting, values) -> the drift, roles merged
    compared_by_role: dict[str, tuple[str, ...]] = {}
    for role, hosts in named_groups(list(by_host), roles).items():
        seen: dict[str, dict[str, list[str]]] = {}
        for host in hosts:
            for name, setting in by_host[host].items():
                if name in volatile or setting.value is None:
                    continue
                seen.setdefault(name, {}).setdefault(setting.value, []).append(host)
        compared = sorted(n for n, vals in seen.items() if sum(map(len, vals.values())) >= 2)
        differ = [n for n in compared if len(seen[n]) > 1]
        compared_by_role[role] = tuple(compared)
        groups.append(GroupSummary(role, len(hosts), len(compared), len(differ)))
        for name in differ:
            # most hosts first; a tie in the hosts' order (the value its first host has)
            values = tuple(sorted(((v, tuple(h)) for v, h in seen[name].items()),
                                  key=lambda vh: -len(vh[1])))
            total = sum(len(h) for _v, h in values)
            majority = values[0][0] if 2 * len(values[0][1]) > total else None
            key = (name, values)
            if key in found:
                old = found[key]
                found[key] = Drift(name, (*old.roles, role), values, majority)
            else:
                found[key] = Drift(name, (role,), values, majority)
    order = {g.role: i for i, g in enumerate(groups)}
    drifts = sorted(found.values(), key=lambda d: (order[d.roles[0]], d.setting))
    return DriftReport(tuple(groups), tuple(drifts), compared_by_role)
