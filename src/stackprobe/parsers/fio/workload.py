"""fio job options -> the workload dict every IoRecord carries.

fio writes options as it received them ('4k', '1', 'randread'); records hold them typed
(bytes, ints, seconds) so runs from job files, command lines and old outputs compare.
Options stackprobe does not interpret are kept as given.
"""

from __future__ import annotations

from typing import Any

from stackprobe.units import parse_duration_s, parse_size

# fio's option aliases -> the name records use
_ALIASES = {"readwrite": "rw", "blocksize": "bs", "io_size": "io_size", "iodepth": "iodepth"}
_INT_KEYS = ("iodepth", "numjobs", "rwmixread", "rwmixwrite", "direct", "nrfiles")
_SIZE_KEYS = ("bs", "size", "filesize", "io_size")
_TIME_KEYS = ("runtime", "ramp_time")
# The options that describe a workload; the rest (log names, paths) stay out of records.
WORKLOAD_KEYS = (
    "rw",
    "bs",
    "iodepth",
    "numjobs",
    "rwmixread",
    "size",
    "filesize",
    "nrfiles",
    "io_size",
    "ioengine",
    "direct",
    "runtime",
    "ramp_time",
    "time_based",
    "filename",
    "directory",
)


def normalise_workload(options: dict[str, Any]) -> dict[str, Any]:
    """Typed workload from fio option strings; unparseable values are kept as strings."""
    opts = {_ALIASES.get(k, k): v for k, v in options.items()}
    if "rwmixread" not in opts and "rwmixwrite" in opts:
        try:
            opts["rwmixread"] = 100 - int(opts["rwmixwrite"])
        except (TypeError, ValueError):
            pass
    out: dict[str, Any] = {}
    for key in WORKLOAD_KEYS:
        if key not in opts:
            continue
        value = opts[key]
        if key == "bs" and "," in str(value):
            value = _bs_of_direction(str(value), str(opts.get("rw") or "read"))
        out[key] = _typed(key, value)
    if "rw" in out and "rwmixread" not in out and _is_mixed(str(out["rw"])):
        out["rwmixread"] = 50  # fio's default mix
    return out


_READS, _WRITES = ("read", "randread"), ("write", "randwrite")


def _bs_of_direction(value: str, rw: str) -> str:
    """fio's `bs=<read>,<write>[,<trim>]`: a read-only job moves only the read size, a
    write-only job only the write size (an empty write size is the read size); a mix of
    two sizes stays as written."""
    parts = [p.strip() for p in value.split(",")]
    read = parts[0]
    write = parts[1] or read
    if rw in _READS and read:
        return read
    if rw in _WRITES and write:
        return write
    return read if read == write else value


def _typed(key: str, value: Any) -> Any:
    try:
        if key in _INT_KEYS:
            return int(value)
        if key in _SIZE_KEYS:
            return parse_size(value)
        if key in _TIME_KEYS:
            return parse_duration_s(value)
        if key == "time_based":
            return str(value).lower() not in ("0", "false")
    except (TypeError, ValueError):
        pass
    return value


def _is_mixed(rw: str) -> bool:
    return rw in ("rw", "readwrite", "randrw")
