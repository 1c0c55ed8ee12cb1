"""`filefrag -v FILE` -> the byte ranges of a file that hold data on disk.

Why: a sparse file (the lab's OSD `block` files are 10 GiB with a few MiB written) reads
its holes as zeros without any disk I/O, so a read over holes measures memory, not the disk
(osd_read measured 16000 MiB/s over holes where the written extents read at ~140 MiB/s).
Reading only the allocated ranges measures the device.

The format (e2fsprogs 1.4x; FIEMAP, or FIBMAP as root where FIEMAP is missing):

    Filesystem type is: ef53
    File size of /x/block is 10737418240 (2621440 blocks of 4096 bytes)
     ext:     logical_offset:        physical_offset: length:   expected: flags:
       0:        0..     105:   13469696..  13469801:    106:
       1:     1026..    1026:   13470722..  13470722:      1:      13469802: last,eof
    /x/block: 2 extents found

Offsets and lengths are in the blocks of the size line. Extents flagged `unwritten`
(preallocated: they read as zeros like holes), `delalloc` (not on disk yet) or
`unknown_loc` hold no data to read on disk: left out. `inline` data lives in the inode:
left out too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import guard

_SIZE = re.compile(r"^File size of .* is (\d+) \((\d+) blocks? of (\d+) bytes\)\s*$")
_EXTENT = re.compile(
    r"^\s*(\d+):\s+(\d+)\.\.\s*(\d+):\s+(?:\d+\.\.\s*\d+:)?\s*(\d+):\s*(?:\d+:)?\s*(\S*)\s*$")
_NOT_ON_DISK = {"unwritten", "delalloc", "unknown_loc", "inline"}
_MAX_BYTES = 1 << 62  # beyond any file a filesystem holds


@dataclass
class FileExtents:
    size_bytes: int
    block_bytes: int
    extents: list[tuple[int, int]] = field(default_factory=list)  # (offset, length) bytes

    @property
    def allocated_bytes(self) -> int:
        return sum(length for _, length in self.extents)


@guard("filefrag -v output")
def parse_filefrag(text: str) -> FileExtents:
    """The file's size and its data extents, adjacent ones merged, in offset order."""
    found: FileExtents | None = None
    raw: list[tuple[int, int]] = []
    for line in text.splitlines():
        if m := _SIZE.match(line.strip()):
            size, block = int(m[1]), int(m[3])
            if block <= 0 or size > _MAX_BYTES or block > 1 << 30:
                raise ValueError(f"filefrag: impossible size line: {line.strip()[:80]}")
            found = FileExtents(size, block)
        elif found is not None and (m := _EXTENT.match(line)):
            first, last, length = int(m[2]), int(m[3]), int(m[4])
            if set(m[5].split(",")) & _NOT_ON_DISK:
                continue  # delalloc extents say length 0: nothing on disk to check
            if last < first or length != last - first + 1:
                raise ValueError(f"filefrag: extent {m[1]} has length {length} for "
                                 f"blocks {first}..{last}")
            raw.append((first * found.block_bytes, length * found.block_bytes))
    if found is None:
        raise ValueError("filefrag: no 'File size of ... is N (M blocks of B bytes)' line")
    found.extents = _merged(raw, found.size_bytes)
    return found


def _merged(extents: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """Extents sorted, overlaps and neighbours merged, each cut at the end of the file."""
    out: list[tuple[int, int]] = []
    for offset, length in sorted(extents):
        if offset >= size or offset > _MAX_BYTES:
            continue
        end = min(offset + length, size)
        if out and offset <= out[-1][0] + out[-1][1]:
            start = out[-1][0]
            out[-1] = (start, max(out[-1][0] + out[-1][1], end) - start)
        else:
            out.append((offset, end - offset))
    return out


def largest_range(extents: FileExtents, limit: int) -> tuple[int, int] | None:
    """(offset, length) of the longest allocated range, at most `limit` bytes; None: the
    file holds no data on disk."""
    if not extents.extents:
        return None
    offset, length = max(extents.extents, key=lambda e: (e[1], -e[0]))
    return offset, min(length, limit)


def allocated_within(extents: FileExtents, offset: int, length: int) -> int:
    """Bytes of [offset, offset + length) that hold data on disk."""
    end = offset + length
    return sum(max(0, min(e_off + e_len, end) - max(e_off, offset))
               for e_off, e_len in extents.extents)
