"""MPI hostfiles: Open MPI's (`node1 slots=4 max_slots=8`) and MPICH's (`node1:4`).

One host a line, `#` starts a comment; Open MPI's keys (slots, max_slots, count) and MPICH's
process count must be positive whole numbers. What stackprobe takes from the file is the
list of hosts, all of one role (`--hosts ROLE:FILE`, default client): slots say how many
MPI ranks a host takes, which a stackprobe step decides itself. A host on two lines is
refused (MPI would add its slots; a run would not test it twice). Every problem is noted at
its line and the file read on, all of them in one error (book.py).
"""

from __future__ import annotations

import re

from stackprobe.spec.host_sources.book import HostBook
from stackprobe.spec.host_sources.detect import MPI_KEYS
from stackprobe.spec.hosts import HostsFile

_MPICH = re.compile(r"^([^\s:]+):(\S*)$")  # host:count (MPICH hydra)


def parse_mpi_hostfile(text: str, filename: str, role: str = "client") -> HostsFile:
    book = HostBook(filename)
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        name = words[0]
        m = _MPICH.match(name)
        if m:
            name, count = m.groups()
            _count(book, number, "processes", count)
        for word in words[1:]:
            key, eq, value = word.partition("=")
            if not eq or key not in MPI_KEYS:
                book.note(number, key or word, f"not an MPI hostfile key ({word!r}); "
                          f"expected {', '.join(sorted(MPI_KEYS))}")
            elif key != "cpu":
                _count(book, number, key, value)
        book.add(name, number, role)
    return book.hosts_file()


def _count(book: HostBook, line: int, key: str, value: str) -> None:
    if not value.isdigit() or len(value) > 9 or int(value) < 1:
        book.note(line, key, f"{value!r} is not a positive whole number")
