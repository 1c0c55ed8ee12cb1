"""What the fio-driven kinds share: the tool, and how long a fio run takes.

Estimates drive `stackprobe plan`, the progress ETA and the free-space check, so they err
long: fio's file layout and start-up are counted, not only its runtime.
"""

from __future__ import annotations

import re
from pathlib import Path

from stackprobe.spec.tools import Tool
from stackprobe.units import parse_duration_s

FIO = Tool("fio", "fio", ("fio", "--version"), "disk/file workloads, metadata ops")

FIO_STARTUP_S = 0.5
LAYOUT_BYTES_PER_S = 1 * 1024**3  # laying out read files; slower targets take longer
UNTIMED_BYTES_PER_S = 200 * 1024**2  # a size-bound fio job without a runtime cap
METADATA_OPS_PER_S = 20_000
UNKNOWN_JOB_FILE_S = 60.0
DEFAULT_SIZE = 1024**3  # fio's size when a step gives none (estimates, the image)

# fio's own defaults: writing them down or leaving them out is the same workload (compare)
FIO_DEFAULTS = {"iodepth": 1, "numjobs": 1, "direct": 0, "rwmixread": 50, "ioengine": "psync",
                "target": "local"}


def size_bytes(spec) -> int:
    return spec.size.bytes if spec.size is not None else DEFAULT_SIZE


def fio_seconds(spec) -> float:
    """One fio run of a fio-like spec: start-up, laying out files it reads, ramp, run."""
    data = size_bytes(spec) * (spec.numjobs or 1)
    ramp = spec.ramp_time.seconds if spec.ramp_time is not None else 0.0
    rw = spec.rw or "read"
    layout = data / LAYOUT_BYTES_PER_S if "read" in rw or rw in ("rw", "randrw") else 0.0
    if spec.runtime is not None:
        run = spec.runtime.seconds
        if not spec.time_based:
            run = min(run, data / UNTIMED_BYTES_PER_S)
    else:
        run = data / UNTIMED_BYTES_PER_S
    return FIO_STARTUP_S + layout + ramp + run


def job_file_seconds(path: str) -> float:
    """Sum of runtime + ramp_time over a job file's sections; a guess when it has none.
    (The user's file is read here: its values are fio's, not a suite's.)"""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return UNKNOWN_JOB_FILE_S
    total = 0.0
    for _key, value in re.findall(r"^\s*(runtime|ramp_time)\s*=\s*(\S+)", text, re.MULTILINE):
        try:
            total += parse_duration_s(value)
        except ValueError:
            pass
    return total + FIO_STARTUP_S if total else UNKNOWN_JOB_FILE_S
