"""Thresholds as acceptance documents write them: '150k', '2 GB/s', '20 Gbit/s', '5 ms', '70%'.

Each is read into the unit the figures are stored in (IOPS, bytes/s, nanoseconds, %), so a
rule compares like with like, and a unit that does not fit the figure ('p99 <= 2 GB/s') is
refused when the suite is loaded. Counts take decimal suffixes (150k = 150,000 IOPS);
bandwidths follow the unit written: GB/s = 10^9 bytes/s, GiB/s = 2^30, Gbit/s = 10^9/8.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# dimension -> the unit its values are held in
BASE_UNITS = {"count": "IOPS", "rate": "B/s", "time": "ns", "percent": "%"}
FIGURE_DIMENSIONS = {"iops": "count", "bw": "rate", "lat": "time", "p99": "time"}

_DECIMAL = {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "G": 1e9, "T": 1e12}
_COUNT_UNITS = {"": 1, "iops": 1, "ops/s": 1, "op/s": 1, "/s": 1}
_TIME_UNITS = {"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
_RATE = re.compile(r"^(?P<prefix>[kKMGT]?)(?P<binary>i?)(?P<what>B|bit|b)(?:/s|ps)$")
_NUMBER = re.compile(r"^(?P<num>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*(?P<suffix>[kKMGT]?)\s*(?P<unit>.*)$")


class QuantityError(ValueError):
    """A threshold that is not a number with a unit the figure can have."""


@dataclass(frozen=True)
class Quantity:
    value: float  # in BASE_UNITS[dimension]
    dimension: str
    text: str  # as written


def parse_quantity(text: str, dimension: str) -> Quantity:
    """`text` read as a value of `dimension` (count, rate, time, percent)."""
    written = text.strip()
    m = _NUMBER.match(written)
    if m is None:
        raise QuantityError(f"'{text}' is not a number with a unit")
    number, suffix, unit = float(m["num"]), m["suffix"], m["unit"].strip()
    if not math.isfinite(number) or number > 1e30:
        raise QuantityError(f"'{text}': not a number a measurement can have")
    if dimension == "rate" and suffix and unit and _RATE.match(suffix + unit):
        unit, suffix = suffix + unit, ""  # '2 GB/s' read as one unit, not 2 G x 'B/s'
    scaled = number * _DECIMAL[suffix]
    if dimension == "count":
        factor = _COUNT_UNITS.get(unit.lower())
        if factor is None:
            raise QuantityError(f"'{text}': '{unit}' is not a rate of operations (IOPS, ops/s)")
        return Quantity(scaled * factor, dimension, written)
    if dimension == "time":
        factor = _TIME_UNITS.get(unit)
        if factor is None or suffix:
            raise QuantityError(f"'{text}': a time needs a unit (ns, us, ms, s)")
        return Quantity(scaled * factor, dimension, written)
    if dimension == "rate":
        return Quantity(scaled * _rate_factor(text, unit), dimension, written)
    if dimension == "percent":
        if unit != "%" or suffix:
            raise QuantityError(f"'{text}': a share is written in % (e.g. 10%)")
        return Quantity(number, dimension, written)
    raise QuantityError(f"unknown dimension {dimension}")


def _rate_factor(text: str, unit: str) -> float:
    m = _RATE.match(unit)
    if m is None:
        raise QuantityError(f"'{text}': a bandwidth needs a unit (MB/s, GiB/s, Gbit/s)")
    prefix = m["prefix"]
    if m["binary"]:
        if not prefix:
            raise QuantityError(f"'{text}': '{unit}' is not a unit")
        scale = 1024 ** ("KMGT".index(prefix.upper()) + 1)
    else:
        scale = _DECIMAL[prefix]
    return scale / 8 if m["what"] in ("bit", "b") else scale
