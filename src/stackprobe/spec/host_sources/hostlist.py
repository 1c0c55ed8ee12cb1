"""Node ranges as cluster tools write them: `--hosts 'node[01-16],gw1'`, with roles
`--hosts 'storage:oss[1-8],client:node[01-16]'`.

Items are separated by commas outside brackets; an item may start with `ROLE:`, and the role
holds for the items after it until the next one (`storage:oss1,oss2,client:n[1-4]`); items
before any role are `client`. A host under two roles has both; a host twice under one role
is refused. The expansion itself is ClusterShell's NodeSet (ranges `[1-8]`, zero-padding
`[01-16]`, steps `[1-9/2]`, several brackets `r[1-2]n[1-4]`), without its node groups.
Before expanding, the size a pattern would reach is counted from its brackets, and more
than `MAX_HOSTS` is refused without expanding it. Every item that cannot be read is named,
all in one error (book.py).
"""

from __future__ import annotations

import math
import re

from stackprobe.spec.host_sources.book import DEFAULT_ROLE, MAX_HOSTS, HostBook
from stackprobe.spec.hosts import HostsFile

ROLE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):(?=[^\[]*(?:\[|$))")
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_PIECE = re.compile(r"^\s*(\d+)(?:-(\d+))?(?:/(\d+))?\s*$")
SOURCE = "--hosts"


def parse_hostlist(value: str, source: str = SOURCE) -> HostsFile:
    """The hosts of a range expression, each its own address (the name, which an ssh
    config's HostName may map)."""
    book = HostBook(source)
    role = DEFAULT_ROLE
    if not value.strip():
        raise book.fail(1, "hosts", "empty host list")
    for item in split_items(value):
        m = ROLE.match(item)
        if m:
            role, item = m.group(1), item[m.end():]
        try:
            names = expand(item, ValueError)
        except ValueError as exc:
            book.note(1, item or "hosts", str(exc))
            continue
        for name in names:
            draft = book.drafts.get(name)
            if draft is not None and role in draft.roles:
                book.note(1, name, f"listed twice under the role {role}")
                continue
            book.add(name, 1, role, once=False)
    return book.hosts_file()


def split_items(value: str) -> list[str]:
    """Split at commas outside brackets."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(value):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(value[start:i].strip())
            start = i + 1
    items.append(value[start:].strip())
    return items


def size_bound(pattern: str) -> float:
    """How many names a pattern can expand to at most (its brackets' sizes multiplied);
    nan when a bracket holds something else than ranges of numbers."""
    total = 1.0
    for group in _BRACKETS.findall(pattern):
        count = 0.0
        for piece in group.split(","):
            m = _PIECE.match(piece)
            if m is None:
                return math.nan  # not a range of numbers (expand says so)
            lo, hi, step = m.group(1), m.group(2) or m.group(1), m.group(3) or "1"
            if max(len(lo), len(hi), len(step)) > 12:
                return math.inf
            count += max(int(hi) - int(lo), 0) // max(int(step), 1) + 1
        total *= count
    return total


def expand(pattern: str, fail) -> list[str]:
    """The names of one pattern, in order; `fail(problem)` makes the error to raise."""
    from ClusterShell.NodeSet import RESOLVER_NOGROUP, NodeSet, NodeSetException

    if not pattern:
        raise fail("empty host name")
    if pattern.count("[") > 8 or len(pattern) > 1000:
        raise fail("too complex a pattern")
    bound = size_bound(pattern)
    if math.isnan(bound):
        raise fail("a bracket holds something else than ranges of numbers (1-8, 01-16, 1-15/2)")
    if bound > MAX_HOSTS:
        raise fail(f"expands to more than {MAX_HOSTS} hosts")
    if "@" in pattern:
        raise fail("node groups (@name) are not read; name the hosts or their ranges")
    try:
        names = list(NodeSet(pattern, resolver=RESOLVER_NOGROUP))
    except (NodeSetException, ValueError, TypeError, IndexError, AssertionError) as exc:
        raise fail(" ".join(str(exc).split()) or type(exc).__name__) from None
    if len(names) > MAX_HOSTS:
        raise fail(f"expands to more than {MAX_HOSTS} hosts")
    return names
