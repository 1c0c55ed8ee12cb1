"""fio's per-second logs (`write_iops_log` / `write_bw_log` with `log_avg_msec=1000`).

Each line is `time_ms, value, direction, block size, offset` — the value averaged over the
window ending at time_ms: IOPS in the iops log, KiB/s in the bw log; direction 0 read,
1 write, 2 trim. Every job writes its own file (`<name>_iops.<job>.log`), and the jobs'
windows end a millisecond or two apart (1000 and 1001), so a second of the whole step is
every line whose time rounds to it, summed over jobs and directions.
"""

from __future__ import annotations

from collections.abc import Iterable

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.records import SeriesPoint


@guard("fio log")
def parse_fio_log(text: str) -> list[tuple[int, float, int]]:
    """(time_ms, value, direction) per line; ValueError naming the first bad line."""
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        try:
            out.append((int(fields[0]), finite(fields[1], "value"), int(fields[2])))
        except (ValueError, IndexError):
            raise ValueError(f"fio log line {n}: not 'time, value, direction, ...': {line!r}") from None
    return out


def _per_second(texts: Iterable[str]) -> dict[int, float]:
    """Second -> the sum over jobs, for the seconds every job's file has (a job that ended
    a window early would otherwise show as a dip in the last second)."""
    sums: dict[int, float] = {}
    seen: dict[int, set[int]] = {}
    files = 0
    for i, text in enumerate(texts):
        files += 1
        for t_ms, value, _direction in parse_fio_log(text):
            second = round(t_ms / 1000)
            sums[second] = sums.get(second, 0.0) + value
            seen.setdefault(second, set()).add(i)
    return {s: v for s, v in sums.items() if len(seen[s]) == files}


@guard("fio log")
def series_from_logs(iops_logs: Iterable[str], bw_logs: Iterable[str]) -> list[SeriesPoint]:
    """The step's per-second IOPS and bandwidth (bytes/s), all jobs and directions summed."""
    iops = _per_second(iops_logs)
    bw = _per_second(bw_logs)
    return [SeriesPoint(t_s=float(s), iops=iops.get(s), bw_bytes=bw[s] * 1024 if s in bw else None)
            for s in sorted(set(iops) | set(bw)) if s > 0]
