"""What `osd_read` reads of one OSD, and the fio job that reads it (pure).

The range: on a block device, its first `size` bytes. On a regular file (the lab's sparse
`osd/ceph-N/block`, any file-backed OSD), the longest range that holds data on disk
(`filefrag -v`), at most `size` bytes: holes read as zeros without disk I/O, so a read
over them measures memory — on the lab's files 16000 MiB/s over holes against ~140 MiB/s
over written extents. When the extents cannot be read the file is read from its start and
the figure is marked an upper bound.

The job is built once as fio options and given both to the target guard (as job lines:
`safety.guard.check_reads` allows it only with `readonly`, a reading rw, and a path that is
an existing block device or regular file on the host) and to fio (as its command line), so
what the guard checked is what fio runs. `--readonly` makes fio itself refuse any write.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackprobe.parsers.ceph.osd_metadata import OsdDevice
from stackprobe.parsers.host.filefrag import FileExtents, largest_range
from stackprobe.safety.job_paths import FioJob, parse_jobs

ALIGN = 4096  # direct I/O: offsets and lengths in whole 4 KiB blocks


@dataclass(frozen=True)
class ReadRange:
    offset: int
    length: int
    upper_bound: bool  # holes may be in it: the figure bounds the device from above
    allocated_bytes: int | None = None  # of the whole file, for files
    note: str | None = None  # why the range is what it is, when it is not plain


def device_range(dev: OsdDevice, size: int) -> ReadRange:
    """A block device: its first `size` bytes (the whole device when smaller)."""
    length = min(size, dev.size_bytes) if dev.size_bytes else size
    return ReadRange(0, _aligned(length), False)


def file_range(extents: FileExtents | None, size: int, why_unknown: str = "") -> ReadRange | None:
    """A regular file: its longest allocated range, at most `size` bytes; None when nothing
    of it is on disk. Without its extents: from the start, as an upper bound."""
    if extents is None:
        return ReadRange(0, _aligned(size), True, None,
                         f"extents unknown ({why_unknown}): holes read as zeros without disk "
                         "I/O, so this is an upper bound")
    found = largest_range(extents, size)
    if found is None or _aligned(found[1]) == 0:
        return None
    offset, length = found[0], _aligned(found[1])
    note = None
    if length < size:
        note = (f"{extents.allocated_bytes} of {extents.size_bytes} bytes of the file hold data; "
                f"the longest allocated range is {length} bytes, read at offset {offset}")
    return ReadRange(offset, length, False, extents.allocated_bytes, note)


def _aligned(length: int) -> int:
    return length - length % ALIGN


@dataclass(frozen=True)
class ReadJob:
    osd: int
    options: tuple[tuple[str, str | None], ...]  # fio options of the job, in order

    def job_lines(self) -> list[tuple[str, str]]:
        """The job as a job file would say it, for the guard."""
        where = f"osd_read job osd.{self.osd}"
        lines = [(f"[osd.{self.osd}]", where)]
        lines += [(key if value is None else f"{key}={value}", where) for key, value in self.options]
        return lines

    def fio_jobs(self) -> list[FioJob]:
        return parse_jobs(self.job_lines())

    def argv(self) -> list[str]:
        out = ["fio", "--output-format=json", f"--name=osd.{self.osd}"]
        out += [f"--{key}" if value is None else f"--{key}={value}" for key, value in self.options]
        return out


def read_job(osd: int, path: str, rng: ReadRange, rw: str, bs: int, iodepth: int,
             runtime_s: float) -> ReadJob:
    """The read of `rng` of `path`: read-only, direct, bounded by the range and the time."""
    block = max(ALIGN, min(bs, rng.length))
    return ReadJob(osd, (
        ("filename", path), ("readonly", None), ("rw", rw), ("bs", str(block)),
        ("direct", "1"), ("ioengine", "libaio"), ("iodepth", str(iodepth)),
        ("offset", str(rng.offset)), ("size", str(rng.length)),
        ("runtime", str(max(1, round(runtime_s)))),
    ))
