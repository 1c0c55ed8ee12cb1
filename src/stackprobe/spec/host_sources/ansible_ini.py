"""Ansible INI inventories: `[group]` sections of hosts (`name key=value ...`, ranges
`node[01:16]`, `name:port`), `[group:children]` (groups in a group), `[group:vars]` (variables for its
hosts), hosts before any section (ungrouped).

Groups become roles: a host has the role of every group it is in, and of every group that
group is a child of (`all` and `ungrouped` are not roles; a host in no group is `client`).
A host's own variables win over its groups', a child group's over its parent's, `all`'s
come last (ansible_vars.py: which ones stackprobe uses). Refused, each naming its line and
all of them in one error: a `:children` or `:vars` section naming a group the file does not
define, a host twice in one group, a variable given two different values for one host.
"""

from __future__ import annotations

import re
import shlex

from stackprobe.spec.host_sources import ansible_vars
from stackprobe.spec.host_sources.ansible_groups import Groups
from stackprobe.spec.host_sources.book import HostBook
from stackprobe.spec.hosts import HostsFile

_SECTION = re.compile(r"^\[([^\]:\s]+)(?::([A-Za-z]+))?\]$")
_HOST_PORT = re.compile(r"^([^:\[\]]+|[^:]*\[[^\]]*\][^:]*):(\d+)$")


def parse_ansible_ini(text: str, filename: str) -> HostsFile:
    """Every problem is noted at its line and the file read on (book.py); a line under a
    section that cannot be read is skipped with its section."""
    book = HostBook(filename)
    groups = Groups(book)
    group, kind = "ungrouped", "hosts"
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            m = _SECTION.match(line.split(" #", 1)[0].strip())
            if m is None or (m.group(2) or "hosts") not in ("hosts", "children", "vars"):
                book.note(number, "section", f"{line!r} is not [group], [group:children] "
                          "or [group:vars]")
                kind = None  # its lines belong to no group we know
                continue
            group, kind = m.group(1), m.group(2) or "hosts"
            groups.section(group, kind, number)
            continue
        words = _words(book, number, line)
        if not words or kind is None:
            continue
        if kind == "children":
            if len(words) != 1:
                book.note(number, f"{group}:children", f"{line!r} is not one group name")
            else:
                groups.child(group, words[0], number)
        elif kind == "vars":
            key, eq, value = line.partition("=")
            if not eq or not key.strip():
                book.note(number, f"{group}:vars", f"{line!r} is not key=value")
            else:
                groups.var(group, key.strip(), _unquote(value.strip()), number)
        else:
            _host_line(book, groups, group, words, number)
    groups.finish()
    return book.hosts_file()


def _host_line(book: HostBook, groups: Groups, group: str, words: list[str], number: int) -> None:
    """`name [key=value ...]` or `name:port`, a range standing for many names."""
    pattern, port = words[0], None
    m = _HOST_PORT.match(pattern)
    if m:  # Ansible's `host:port`
        pattern, port = m.groups()
    for name in ansible_vars.host_names(pattern, book, number):
        groups.host(group, name, number)
        draft = book.drafts[name]
        if port is not None:
            ansible_vars.apply(book, draft, "ansible_port", port, number)
        for word in words[1:]:
            key, eq, value = word.partition("=")
            if not eq:
                book.note(number, word, "a host's variables are key=value")
            else:
                ansible_vars.apply(book, draft, key, value, number)


def _words(book: HostBook, number: int, line: str) -> list[str]:
    try:
        return shlex.split(line, comments=True)
    except ValueError as exc:
        book.note(number, "line", f"{exc}")
        return []


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value.split(" #", 1)[0].strip()
