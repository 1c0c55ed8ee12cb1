"""Sizes, rates and durations: parsing what people and tools write, formatting what people read.

fio, Ceph and the seeds mix binary (KiB, MiB) and decimal (kB, MB) units and fio accepts
`4k` meaning 4096. Every figure stored by stackprobe is in base units (bytes, bytes/s,
nanoseconds, ops/s); this module is the only place that converts.
"""

from __future__ import annotations

import re

_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgtpe]?)(i?)(b?)\s*$", re.IGNORECASE)
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}


def parse_size(value: str | int | float, *, decimal: bool = False) -> int:
    """Bytes from '4k', '1M', '1MiB', '512', '2.5G'.

    By default k/M/G mean powers of 1024, as fio's options and the seeds' job files use
    them (and as fio 2.x printed 'KB'). decimal=True makes a suffix without 'i' a power
    of 1000, as in the parenthesised '(54.2MB/s)' figures of fio 3.x normal output.
    """
    if isinstance(value, bool):
        raise ValueError(f"not a size: {value!r}")
    try:
        if isinstance(value, (int, float)):
            if value < 0:
                raise ValueError(f"negative size: {value!r}")
            return int(value)
        m = _SIZE_RE.match(value)
        if not m:
            raise ValueError(f"not a size: {value!r}")
        number, prefix, binary, _b = m.groups()
        base = 1000 if (decimal and not binary) else 1024
        return int(round(float(number) * base ** _POWERS[prefix.lower()]))
    except OverflowError:  # 400 digits, or inf: no size anyone means
        raise ValueError(f"size out of range: {str(value)[:40]!r}") from None


_DURATION_UNITS_NS = {
    "ns": 1,
    "nsec": 1,
    "us": 1_000,
    "usec": 1_000,
    "µs": 1_000,
    "ms": 1_000_000,
    "msec": 1_000_000,
    "s": 1_000_000_000,
    "sec": 1_000_000_000,
    "m": 60_000_000_000,
    "min": 60_000_000_000,
    "h": 3_600_000_000_000,
}


def unit_to_ns(unit: str) -> int:
    """Nanoseconds in one of fio's latency units ('nsec', 'usec', 'msec', 'sec')."""
    try:
        return _DURATION_UNITS_NS[unit.strip().lower()]
    except KeyError as exc:
        raise ValueError(f"unknown time unit: {unit!r}") from exc


def parse_duration_s(value: str | int | float) -> float:
    """Seconds from '30', '30s', '5m', '1h', '500ms' (fio's runtime syntax; bare = seconds)."""
    if isinstance(value, bool):
        raise ValueError(f"not a duration: {value!r}")
    try:
        seconds = _duration(value)
    except OverflowError:
        raise ValueError(f"duration out of range: {str(value)[:40]!r}") from None
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        raise ValueError(f"duration out of range: {str(value)[:40]!r}")
    return seconds


def _duration(value: str | int | float) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    m = re.match(r"^\s*([0-9]*\.?[0-9]+)\s*([a-zµ]*)\s*$", value, re.IGNORECASE)
    if not m:
        raise ValueError(f"not a duration: {value!r}")
    number, unit = m.groups()
    if not unit:
        return float(number)
    return float(number) * unit_to_ns(unit) / 1e9


def fmt_bytes(n: float | None) -> str:
    """Binary size for people: '4 KiB', '1.5 GiB'."""
    if n is None:
        return "-"
    for unit, div in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(n) >= div:
            return f"{_sig(n / div)} {unit}"
    return f"{int(n)} B"


def fmt_bw(bytes_per_s: float | None) -> str:
    """Bandwidth as the seeds quote it: '67.2 MiB/s', '11.3 GiB/s'."""
    if bytes_per_s is None:
        return "-"
    if bytes_per_s >= 1024**3:
        return f"{_sig(bytes_per_s / 1024**3)} GiB/s"
    if bytes_per_s >= 1024**2 or bytes_per_s == 0:
        return f"{_sig(bytes_per_s / 1024**2)} MiB/s"
    return f"{_sig(bytes_per_s / 1024)} KiB/s"


def fmt_rate(value: float | None, unit: str) -> str:
    """A rate in SI steps of its own unit: '27.3 Gflop/s', '512 Mupdate/s'."""
    if value is None:
        return "-"
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{_sig(value / factor)} {prefix}{unit}"
    return f"{_sig(value)} {unit}"


def fmt_ops(value: float | None, unit: str | None = None) -> str:
    """The ops column of a row: IOPS as the seeds write them, or a rate in its own unit."""
    return fmt_rate(value, unit) if unit else fmt_iops(value)


def fmt_iops(iops: float | None) -> str:
    """IOPS as in the seeds: '13.2k', '1.05M', '436'."""
    if iops is None:
        return "-"
    if iops >= 1e6:
        return f"{_sig(iops / 1e6)}M"
    if iops >= 1e4:
        return f"{_sig(iops / 1e3)}k"
    if iops >= 100:
        return f"{iops:.0f}"
    return f"{_sig(iops)}"


def fmt_ns(ns: float | None) -> str:
    """Latency with the unit that keeps 3 significant figures: '372 µs', '9.68 ms', '1.9 s'."""
    if ns is None:
        return "-"
    if ns >= 1e9:
        return f"{_sig(ns / 1e9)} s"
    if ns >= 1e6:
        return f"{_sig(ns / 1e6)} ms"
    if ns >= 1e3:
        return f"{_sig(ns / 1e3)} µs"
    return f"{ns:.0f} ns"


def fmt_seconds(s: float) -> str:
    """'45 s', '3 min 20 s', '1 h 05 min'."""
    s = int(round(s))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"


def _sig(x: float) -> str:
    """Three significant figures without scientific notation ('1.23', '12.3', '123', '1234')."""
    ax = abs(x)
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"
