"""What `stackprobe ingest` is given, as texts to read: files, `-` (standard input) and
directories (every file under them, recursively, in sorted order).

A tool's output is text of a modest size. A file that is binary (a NUL byte in its first
block) or larger than MAX_BYTES is refused in one line without being read whole, so a
directory holding a core dump or a disk image costs a line, not the machine's memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from stackprobe.units import fmt_bytes

STDIN = "-"
STDIN_NAME = "<stdin>"
MAX_BYTES = 64 * 1024**2  # the largest output read; fio's json+ of a long job is a few MiB
SNIFF_BYTES = 8192  # read first to tell text from binary


@dataclass(frozen=True)
class Source:
    """A text to ingest: where it came from (a path, or `<stdin>`) and its bytes."""

    name: str
    path: Path | None  # None for standard input
    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Refused:
    """A source not read, and why (one line)."""

    name: str
    why: str


def read_sources(args: list[str], stdin: BinaryIO) -> Iterator[Source | Refused]:
    """Each argument's texts, in the order given; a directory's files sorted by path."""
    for arg in args:
        if arg == STDIN:
            yield _from_stream(STDIN_NAME, None, stdin)
            continue
        path = Path(arg)
        if path.is_dir():
            yield from _directory(path)
        else:
            yield read_file(path)


def _directory(root: Path) -> Iterator[Source | Refused]:
    found: list[Path] = []
    problems: list[Refused] = []

    def unreadable(exc: OSError) -> None:
        problems.append(Refused(str(exc.filename or root), f"cannot read: {exc.strerror or exc}"))

    for where, dirs, files in os.walk(root, onerror=unreadable):
        dirs.sort()
        found += [Path(where) / name for name in files]
    yield from problems
    if not found and not problems:
        yield Refused(str(root), "cannot ingest: no files under this directory")
    for path in sorted(found):
        if path.is_symlink() and not path.exists():
            yield Refused(str(path), "cannot read: a dangling symbolic link")
        elif not path.is_file():
            yield Refused(str(path), "cannot read: not a regular file")
        else:
            yield read_file(path)


def read_file(path: Path) -> Source | Refused:
    """The file's bytes, or why not: missing, unreadable, binary, larger than MAX_BYTES."""
    try:
        size = path.stat().st_size
        if path.is_dir():
            return Refused(str(path), "cannot read: a directory")
        if size > MAX_BYTES:
            return Refused(str(path), too_large(size))
        with open(path, "rb") as f:
            return _from_stream(str(path), path, f)
    except OSError as exc:
        return Refused(str(path), f"cannot read: {exc.strerror or exc}")


def too_large(size: int | None) -> str:
    """A file's size is known before reading; a stream's only once it passes the limit."""
    limit = fmt_bytes(MAX_BYTES)
    if size is None:
        return f"cannot ingest: larger than the {limit} ingest limit (read no further)"
    return f"cannot ingest: {fmt_bytes(size)}: larger than the {limit} ingest limit (not read)"


def _from_stream(name: str, path: Path | None, stream: BinaryIO) -> Source | Refused:
    """Read at most MAX_BYTES + 1 bytes: a stream that keeps going is refused, not held."""
    head = stream.read(SNIFF_BYTES)
    if b"\0" in head:
        return Refused(name, "cannot ingest: binary content (a NUL byte in its first "
                       f"{fmt_bytes(SNIFF_BYTES)}): not a tool's text output")
    rest = stream.read(MAX_BYTES + 1 - len(head))
    data = head + rest
    if len(data) > MAX_BYTES:
        return Refused(name, too_large(None))
    return Source(name, path, data)
