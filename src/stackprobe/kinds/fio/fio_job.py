"""fio job files from step parameters (pure text building, no execution).

A job file rather than a long command line: it is what storage engineers read and rerun,
and it is kept in the step directory next to fio's output. group_reporting is always on so
a step's numjobs are reported as one group with exact merged percentiles, and
lat_percentiles is on so total latency has percentiles as well as completion latency.
"""

from __future__ import annotations

from typing import Any

from stackprobe.kinds.fio.params import FioParams, fio_params
from stackprobe.units import parse_size

# Order in which parameters appear in the job section (the rest follow alphabetically).
_ORDER = ("rw", "rwmixread", "bs", "iodepth", "numjobs", "size", "ioengine", "direct",
          "runtime", "ramp_time", "time_based")


def fio_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def build_job(
    name: str,
    spec: FioParams,
    *,
    directory: str | None,
    engine: dict[str, str] | None = None,
    direct_io: bool = True,
    log_name: str | None = None,
    filename: str | None = None,
) -> str:
    """A single-job fio job file for a fio-like step's workload parameters (as written).

    `directory` is where the job's files go (None for engines without files, such as rbd,
    and for `filename`: the raw block device the job addresses, --target DEVICE);
    `engine` overrides the I/O engine and adds its options (ioengine=rbd, pool, rbdname...).
    `log_name` adds fio's per-second iops/bw logs (`<log_name>_iops.<job>.log`).
    """
    params = fio_params(spec, ())
    options = dict(params.get("options", {}))
    core = {k: v for k, v in params.items() if k not in ("options", "target")}
    if engine:
        core.pop("direct", None)  # the rbd engine does its own I/O; O_DIRECT means nothing
        core.update(engine)
    elif not direct_io and core.get("direct"):
        core["direct"] = 0
    lines = [f"# stackprobe step {name}", "[global]"]
    if directory is not None:
        lines.append(f"directory={directory}")
    if filename is not None:
        lines.append(f"filename={filename}")
    # lat_percentiles: total-latency percentiles too, so tables can show a p99 of the same
    # quantity as the mean; completion latency alone hides the time an engine spends in
    # submission (libaio on FUSE does the whole I/O inside io_submit).
    lines += ["group_reporting=1", "lat_percentiles=1"]
    if log_name:  # per-second IOPS and bandwidth: stability over time, aligned with monitoring
        lines += [f"write_iops_log={log_name}", f"write_bw_log={log_name}", "log_avg_msec=1000"]
    lines.append(f"[{name}]")
    if directory is not None and _lays_out_in_small_blocks(core, options):
        core["bs"] = f"{fio_value(core['bs'])},{LAYOUT_BS}"
    for key in _ORDER:
        if key in core:
            lines.append(_line(key, core[key]))
    for key in sorted(k for k in core if k not in _ORDER):
        lines.append(_line(key, core[key]))
    for key in sorted(options):
        lines.append(_line(key, options[key]))
    return "\n".join(lines) + "\n"


def job_place(step, work_dir: str, engine: dict[str, str] | None) -> dict[str, str | None]:
    """Where a built job's I/O goes (build_job's `directory` and `filename`): nowhere on
    this machine for an engine without files (rbd), the raw block device the planned step
    addresses (--target DEVICE, PlannedStep.device), else files in `work_dir`."""
    if engine:
        return {"directory": None}
    if step.device is not None:
        return {"directory": None, "filename": step.device.path}
    return {"directory": work_dir}


# fio lays out a read job's files with the job's write block size: a 512M file for a 4k
# random read is 131,072 writes of 4k (22 s through ceph-fuse), 512 writes of 1M (2 s).
# A read-only job never writes otherwise, so `bs=<read>,1M` changes the layout alone; the
# records keep the read block size (parsers/fio/workload.py reads `bs` by direction).
LAYOUT_BS = "1M"
_READ_ONLY = ("read", "randread")
_OWN_SIZES = ("bsrange", "blocksize_range", "bssplit", "bs_unaligned")


def _lays_out_in_small_blocks(core: dict[str, Any], options: dict[str, Any]) -> bool:
    bs = core.get("bs")
    if (core.get("rw") or "read") not in _READ_ONLY or bs is None or "," in str(bs):
        return False
    if any(key in options for key in _OWN_SIZES):
        return False
    return parse_size(str(bs)) < parse_size(LAYOUT_BS)


def _line(key: str, value: Any) -> str:
    if key == "time_based":
        return "time_based=1" if value else "time_based=0"
    return f"{key}={fio_value(value)}"


# operation -> fio job options. create/stat/delete are fio's file engines (no data moved);
# write and read move one block of file_size per file, so their IOPS are files per second.
METADATA_OPS = {
    "create": ("ioengine=filecreate", "fallocate=none"),
    "write": ("ioengine=psync", "rw=write", "create_on_open=1", "fallocate=none"),
    "stat": ("ioengine=filestat",),
    "read": ("ioengine=psync", "rw=read"),
    "delete": ("ioengine=filedelete",),
}


def metadata_names(layout: str, owner: str = "") -> str:
    """fio's filename_format for a metadata layout. 'easy': a directory per process
    (`easy.<owner>$jobnum/`), 'hard': every process's files in one shared directory
    (`hard/`). `owner` ("host1.") keeps several clients' names apart; fio creates the
    directories itself. No job name in it: every phase must see the same files."""
    if layout == "easy":
        return f"easy.{owner}$jobnum/f.$filenum"
    return f"hard/f.{owner}$jobnum.$filenum"


def metadata_dirs(layout: str, numjobs: int, owner: str = "") -> list[str]:
    """The directories metadata_names() puts files in: made beforehand, because fio's file
    engines do not create them (its I/O engines do)."""
    if layout == "easy":
        return [f"easy.{owner}{n}" for n in range(numjobs)]
    return ["hard"]


def build_metadata_job(
    name: str, directory: str, *, files: int, numjobs: int, file_size: str,
    operations: list[str], stat_type: str = "stat", layout: str = "easy", owner: str = "",
    job_suffix: str = "",
) -> str:
    """The metadata phases over one file set, one phase at a time (stonewall).

    Every phase uses the same filename_format, so stat, read and delete find what create
    or write made. Files are 'created' by whichever of create/write comes first; a read
    without either makes fio lay the files out first, untimed. `job_suffix` ("@host1")
    names each phase's job for one client of a fleet.
    """
    lines = [
        f"# stackprobe step {name}",
        "[global]",
        f"directory={directory}",
        f"nrfiles={files}",
        f"filesize={fio_value(file_size)}",
        f"bs={fio_value(file_size)}",
        "openfiles=1",
        "file_service_type=sequential",
        f"numjobs={numjobs}",
        f"filename_format={metadata_names(layout, owner)}",
        # fio's server prefixes file names with the client's address ('10.99.0.11.hard/…'),
        # which would give each client its own 'hard' directory; names carry the owner instead
        "unique_filename=0",
        "group_reporting=1",
    ]
    for op in operations:
        lines += ["", f"[{op}{job_suffix}]", *METADATA_OPS[op], "stonewall"]
        if op == "stat":
            lines.append(f"stat_type={stat_type}")
    return "\n".join(lines) + "\n"
