"""How long a planned step will take and how much test data it lays out.

Estimates drive `stackprobe plan`, the progress ETA and the free-space check, so they
err long: fio's file layout and start-up are counted, not only its runtime.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from stackprobe.spec.planned import PlannedStep
from stackprobe.units import parse_duration_s, parse_size

FIO_STARTUP_S = 0.5
LAYOUT_BYTES_PER_S = 1 * 1024**3  # laying out read files; slower targets take longer
UNTIMED_BYTES_PER_S = 200 * 1024**2  # a size-bound fio job without a runtime cap
METADATA_OPS_PER_S = 20_000
UNKNOWN_JOB_FILE_S = 60.0


CEPH_CLI_S = 1.0  # one `ceph`/`rados`/`rbd` command: Python start-up and a mon round trip
ASSUMED_OSDS = 3  # osd_bench before the cluster is known
CLUSTER_BYTES_PER_S = 200 * 1024**2
CLUSTER_IOPS = 3000


def estimate_seconds(step: PlannedStep) -> float:
    p = step.params
    if step.kind == "inventory":
        return 2.0
    if step.kind == "ceph_inventory":
        return 6 * CEPH_CLI_S
    if step.kind == "cpu":
        return float(p["seconds"]) + 1.0
    if step.kind == "disk_baseline":  # two targets assumed: each alone, then together
        return 3 * (parse_duration_s(p["runtime"]) + 2.0)
    if step.kind == "network":
        n = max(2, len(step.hosts))
        pairs = n * (n - 1) if p["pairs"] == "all" else int(p["pairs"])
        return pairs * (float(p["seconds"]) + 2.0) + 2.0
    if step.kind == "osd_bench":
        per_osd = parse_size(p["bytes"]) / CLUSTER_BYTES_PER_S + CEPH_CLI_S
        return CEPH_CLI_S + ASSUMED_OSDS * per_osd
    if step.kind == "rados_bench":
        runs = len(set(p["modes"]) | {"write"})  # reads need the objects a write leaves
        return runs * (float(p["seconds"]) + CEPH_CLI_S) + CEPH_CLI_S  # + cleanup
    if step.kind == "rbd_bench":
        total, size = parse_size(p["io_total"]), parse_size(p["io_size"])
        return CEPH_CLI_S + max(total / CLUSTER_BYTES_PER_S, total / size / CLUSTER_IOPS)
    if step.kind == "memory":
        per_op = max(float(p["seconds"]), 10.0) if p["tool"] == "stress-ng" else float(p["seconds"])
        return len(p["operations"]) * (per_op + 0.5)
    if step.kind == "metadata":
        ops = int(p["files"]) * int(p["numjobs"]) * len(p["operations"])
        return len(p["operations"]) * FIO_STARTUP_S + ops / METADATA_OPS_PER_S
    if step.kind == "io500":  # 4 stonewalled writes, reads and deletes of what they made:
        # a standard run takes about 12 stonewall times; ior/mdtest: give `timeout:`
        return 12 * parse_duration_s(p["stonewall"]) + 60.0 if p["tool"] == "io500" \
            else 3600.0
    if step.kind == "io500_like":
        data = io500_like_bytes(p)
        ops = int(p["numjobs"]) * (3 * int(p["md_easy_files"]) + 4 * int(p["md_hard_files"]))
        return 12 * FIO_STARTUP_S + 2 * data / UNTIMED_BYTES_PER_S + 2 * ops / METADATA_OPS_PER_S
    if step.kind == "slo":
        widest = p if p["vary"] == "rate_iops" else {**p, p["vary"]: p["max"]}
        return _slo_probes(p) * _fio_seconds(widest)
    if "job_file" in p:
        return _job_file_seconds(p["job_file"])
    return _fio_seconds(p)


def _slo_probes(p: dict) -> int:
    """Geometric bracketing (x4) plus a few refinements: an upper estimate."""
    ratio = max(1.0, p["max"] / p["min"])
    return int(math.ceil(math.log(ratio, 4))) + 4


def _fio_seconds(p: dict) -> float:
    data = parse_size(p.get("size", "1G")) * int(p.get("numjobs", 1))
    ramp = parse_duration_s(p.get("ramp_time", 0))
    layout = data / LAYOUT_BYTES_PER_S if "read" in str(p.get("rw", "read")) or p.get(
        "rw"
    ) in ("rw", "randrw") else 0.0
    if "runtime" in p:
        run = parse_duration_s(p["runtime"])
        if not p.get("time_based"):
            run = min(run, data / UNTIMED_BYTES_PER_S)
    else:
        run = data / UNTIMED_BYTES_PER_S
    return FIO_STARTUP_S + layout + ramp + run


def _job_file_seconds(path: str) -> float:
    """Sum of runtime + ramp_time over the file's sections; a guess when it has none."""
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


def estimate_space(step: PlannedStep) -> int:
    """Bytes of test files the step creates on the target directory (0 when unknowable, or
    when they go elsewhere: an RBD image, the CephFS)."""
    return data_bytes(step) if step.params.get("target", "local") == "local" else 0


def data_bytes(step: PlannedStep) -> int:
    """Bytes of test files the step lays out wherever it runs (the CephFS check uses it too)."""
    p = step.params
    if step.kind == "fio" and "job_file" not in p:
        return parse_size(p.get("size", "1G")) * int(p.get("numjobs", 1))
    if step.kind == "slo":
        jobs = p["max"] if p["vary"] == "numjobs" else int(p.get("numjobs", 1))
        return parse_size(p.get("size", "1G")) * jobs
    if step.kind == "metadata":
        per_file = max(parse_size(p["file_size"]), 4096)  # a block per file at least
        return int(p["files"]) * int(p["numjobs"]) * per_file
    if step.kind == "io500_like":
        return io500_like_bytes(p)
    return 0


HARD_TRANSFER = 47008  # IO500's ior-hard transfer size: bytes, deliberately unaligned
HARD_FILE = 3901  # IO500's mdtest-hard file size


def io500_like_bytes(p: dict) -> int:
    """Data an io500-like step leaves on its target before the deletes."""
    jobs = int(p["numjobs"])
    return jobs * (parse_size(p["easy_size"]) + int(p["hard_transfers"]) * HARD_TRANSFER
                   + int(p["md_easy_files"]) * 4096 + int(p["md_hard_files"]) * 4096)
