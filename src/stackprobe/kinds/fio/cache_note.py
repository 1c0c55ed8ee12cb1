"""Honest small runs: a fio step says when a cache, not the disk, may have made its figures.

A 256 MiB file on a machine with 24 GiB of RAM, written and read buffered, is measured in
the page cache: quick's 4k random writes came out at twice the reads. With O_DIRECT the
page cache is out of the way, but a drive's DRAM or SLC cache (gigabytes) or, on a virtual
machine, the hypervisor's cache of the virtual disk can still hold a small working set; the
seed reports size their runs at 10 GiB per job for that reason. The step cannot know a
device's cache size, so it states the sizes and what they allow, and lets the reader judge.

`note()` is pure; the runner gives it the step's data size, whether I/O was direct, and
MemTotal read on the host the step ran on.
"""

from __future__ import annotations

from stackprobe.kinds.fio.common import size_bytes
from stackprobe.parsers.host.inventory import mem_total_bytes
from stackprobe.units import fmt_bytes

DEVICE_CACHE_BYTES = 4 * 2**30  # below this, a drive's DRAM/SLC cache may hold the whole set


def note(data_bytes: int, direct: bool, ram_bytes: int | None) -> str | None:
    """What may have served the I/O instead of the disk, or None when the run is big enough."""
    size = f"{fmt_bytes(data_bytes)} of test data"
    if not direct and (ram_bytes is None or data_bytes <= ram_bytes):
        ram = f"{fmt_bytes(ram_bytes)} RAM" if ram_bytes else "RAM not read"
        return (f"{size}, {ram}, buffered I/O: reads may come from the page cache and writes "
                "may not have reached the disk (direct=1, or data larger than RAM, measures "
                "the disk)")
    if direct and data_bytes < DEVICE_CACHE_BYTES:
        return (f"{size} with O_DIRECT: small enough for a drive's DRAM/SLC cache or a "
                "virtual disk's host cache to hold; the seeds run 10 GiB per job "
                "(the standard suite)")
    return None


def step_note(ctx, spec, direct: bool) -> list[str]:
    """The note for a fio step of parameters (a job file's sizes are its own), with MemTotal
    read where the step ran (kept with the step's other commands)."""
    data = size_bytes(spec) * (spec.numjobs or 1)
    meminfo = ctx.execute("meminfo", ["cat", "/proc/meminfo"])
    ram = mem_total_bytes(meminfo.stdout) if meminfo.returncode == 0 else None
    text = note(data, direct, ram)
    return [text] if text else []
