"""An Ansible inventory's groups, as both inventory forms (INI, YAML) declare them: which
hosts each holds, its children, its variables — then every host's roles and settings.

A group is defined by a hosts or children section (INI) or by a non-empty entry (YAML);
a child or a vars section naming a group defined nowhere is a problem at the line naming
it (each such group is noted, book.py), as is a host twice in a group (added once). Cycles
of children end the reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.spec.host_sources import ansible_vars
from stackprobe.spec.host_sources.book import HostBook

IMPLICIT = ("all", "ungrouped")


@dataclass
class Group:
    hosts: list[str] = field(default_factory=list)
    children: list[tuple[str, int]] = field(default_factory=list)  # (name, line)
    vars: list[tuple[str, object, int]] = field(default_factory=list)  # (key, value, line)
    defined: bool = False
    named_at: int = 0  # first line that names it


class Groups:
    def __init__(self, book: HostBook):
        self.book = book
        self.groups: dict[str, Group] = {}
        self._members: dict[str, list[str]] = {}

    def get(self, name: str, line: int) -> Group:
        g = self.groups.get(name)
        if g is None:
            g = self.groups[name] = Group(named_at=line)
        return g

    def section(self, name: str, kind: str, line: int) -> None:
        g = self.get(name, line)
        if kind != "vars" or name in IMPLICIT:
            g.defined = True

    def host(self, group: str, name: str, line: int) -> None:
        g = self.get(group, line)
        g.defined = True
        if name in g.hosts:
            self.book.note(line, name, f"listed twice in the group {group}")
            return
        g.hosts.append(name)
        self.book.add(name, line, once=False)

    def child(self, parent: str, child: str, line: int) -> None:
        self.get(parent, line).children.append((child, line))
        self.get(child, line)

    def var(self, group: str, key: str, value: object, line: int) -> None:
        self.get(group, line).vars.append((key, value, line))

    def finish(self) -> None:
        """Note every group named but not defined, then give each host its roles and settings."""
        for name, g in self.groups.items():
            if not g.defined and name not in IMPLICIT:
                self.book.note(g.named_at, name, "no such group in the inventory")
        depth = self._depths()
        order = sorted(self.groups, key=lambda n: -depth[n])  # nearer the host first
        for name in order:
            g = self.groups[name]
            for host in self.members(name):
                draft = self.book.drafts[host]
                if name not in IMPLICIT:
                    draft.roles.append(name)
                for key, value, line in g.vars:
                    target = ansible_vars.VARS.get(key)
                    if target is not None and target not in draft.settings:
                        ansible_vars.apply(self.book, draft, key, value, line)

    def members(self, name: str, seen: frozenset[str] = frozenset()) -> list[str]:
        """The hosts of a group and of its children, in the order they were named."""
        if name == "all":
            return list(self.book.drafts)
        if name in self._members:
            return self._members[name]
        g = self.groups[name]
        found = dict.fromkeys(g.hosts)
        for child, line in g.children:
            if child in seen or child == name:
                raise self.book.fail(line, child, f"a group inside itself (via {name})")
            found.update(dict.fromkeys(self.members(child, seen | {name})))
        self._members[name] = list(found)
        return self._members[name]

    def _depths(self) -> dict[str, int]:
        depth = {name: 1 for name in self.groups}
        depth["all"] = 0
        for _ in range(len(self.groups)):  # longest path from a top group, cycles cut
            changed = False
            for name, g in self.groups.items():
                for child, _line in g.children:
                    if child != "all" and depth[child] < depth[name] + 1 <= len(self.groups):
                        depth[child] = depth[name] + 1
                        changed = True
            if not changed:
                break
        return depth
