"""fio job files from step parameters (pure text building, no execution).

A job file rather than a long command line: it is what storage engineers read and rerun,
and it is kept in the step directory next to fio's output. group_reporting is always on so
a step's numjobs are reported as one group with exact merged percentiles, and
lat_percentiles is on so total latency has percentiles as well as completion latency.
"""

from __future__ import annotations

from typing import Any

# Order in which parameters appear in the job section (the rest follow alphabetically).
_ORDER = ("rw", "rwmixread", "bs", "iodepth", "numjobs", "size", "ioengine", "direct",
          "runtime", "ramp_time", "time_based")


# step parameters that are stackprobe's, not fio's
NOT_FIO_OPTIONS = ("options", "target", "steady_state", "advice", "percentile", "limit",
                   "latency", "vary", "min", "max", "tolerance")


def fio_value(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def build_job(
    name: str,
    params: dict[str, Any],
    *,
    directory: str | None,
    engine: dict[str, str] | None = None,
    direct_io: bool = True,
    log_name: str | None = None,
) -> str:
    """A single-job fio job file for a `fio` step's parameters.

    `directory` is where the job's files go (None for engines without files, such as rbd);
    `engine` overrides the I/O engine and adds its options (ioengine=rbd, pool, rbdname...).
    `log_name` adds fio's per-second iops/bw logs (`<log_name>_iops.<job>.log`).
    """
    options = dict(params.get("options", {}))
    core = {k: v for k, v in params.items() if k not in NOT_FIO_OPTIONS}
    if engine:
        core.pop("direct", None)  # the rbd engine does its own I/O; O_DIRECT means nothing
        core.update(engine)
    elif not direct_io and core.get("direct"):
        core["direct"] = 0
    lines = [f"# stackprobe step {name}", "[global]"]
    if directory is not None:
        lines.append(f"directory={directory}")
    # lat_percentiles: total-latency percentiles too, so tables can show a p99 of the same
    # quantity as the mean; completion latency alone hides the time an engine spends in
    # submission (libaio on FUSE does the whole I/O inside io_submit).
    lines += ["group_reporting=1", "lat_percentiles=1"]
    if log_name:  # per-second IOPS and bandwidth: stability over time, aligned with monitoring
        lines += [f"write_iops_log={log_name}", f"write_bw_log={log_name}", "log_avg_msec=1000"]
    lines.append(f"[{name}]")
    for key in _ORDER:
        if key in core:
            lines.append(_line(key, core[key]))
    for key in sorted(k for k in core if k not in _ORDER):
        lines.append(_line(key, core[key]))
    for key in sorted(options):
        lines.append(_line(key, options[key]))
    return "\n".join(lines) + "\n"


def _line(key: str, value: Any) -> str:
    if key == "time_based":
        return "time_based=1" if value else "time_based=0"
    return f"{key}={fio_value(value)}"


METADATA_ENGINES = {"create": "filecreate", "stat": "filestat", "delete": "filedelete"}


def build_metadata_job(
    name: str, directory: str, *, files: int, numjobs: int, file_size: str,
    operations: list[str], stat_type: str = "stat",
) -> str:
    """create / stat / delete phases over one shared file set, one phase at a time.

    The phases must see the same files: fio names files after the job by default, so each
    phase would make and measure its own set. filename_format without the job name
    ($jobnum.$filenum) gives every phase the same names, job by job.
    """
    lines = [
        f"# stackprobe step {name}",
        "[global]",
        f"directory={directory}",
        f"nrfiles={files}",
        f"filesize={fio_value(file_size)}",
        f"bs={fio_value(file_size)}",
        "openfiles=1",
        f"numjobs={numjobs}",
        "filename_format=md.$jobnum.$filenum",
        "group_reporting=1",
    ]
    for op in operations:
        lines += ["", f"[{op}]", f"ioengine={METADATA_ENGINES[op]}", "stonewall"]
        if op == "create":
            lines.append("fallocate=none")
        if op == "stat":
            lines.append(f"stat_type={stat_type}")
    return "\n".join(lines) + "\n"
