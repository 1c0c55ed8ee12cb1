"""Validated field types for suite models: a size, a duration, a count, an fio rw mode,
and the sweepable form of each (one value, or a non-empty list of values).

Declaring the check with the type keeps every model a list of fields; the error a user
sees names the offending item ('steps[2].bs[1]: not a size: huge').
"""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import AfterValidator, Field, StrictInt

from stackprobe.units import parse_duration_s, parse_size

Scalar = Union[str, int, float, bool]

FIO_RW = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim",
          "randtrim", "trimwrite")


def _size(v: Any) -> Any:
    if parse_size(v) <= 0:  # raises ValueError('not a size: ...') for junk
        raise ValueError("must be > 0")
    return v


def _duration(v: Any) -> Any:
    if parse_duration_s(v) <= 0:
        raise ValueError("must be > 0")
    return v


def _count(v: int) -> int:
    if v < 1:
        raise ValueError(f"must be a whole number >= 1, not {v}")
    return v


def _rw(v: str) -> str:
    if v not in FIO_RW:
        raise ValueError(f"{v!r} is not a fio rw mode ({', '.join(FIO_RW)})")
    return v


def _non_empty(v: Any) -> Any:
    if isinstance(v, list) and not v:
        raise ValueError("an empty list sweeps nothing")
    return v


Size = Annotated[Scalar, AfterValidator(_size)]
Duration = Annotated[Scalar, AfterValidator(_duration)]
Count = Annotated[StrictInt, AfterValidator(_count)]
Percent = Annotated[StrictInt, Field(ge=0, le=100)]
RwMode = Annotated[str, AfterValidator(_rw)]

# A value or a sweep of values
Sizes = Annotated[Union[Size, list[Size]], AfterValidator(_non_empty)]
Durations = Annotated[Union[Duration, list[Duration]], AfterValidator(_non_empty)]
Counts = Annotated[Union[Count, list[Count]], AfterValidator(_non_empty)]
Percents = Annotated[Union[Percent, list[Percent]], AfterValidator(_non_empty)]
RwModes = Annotated[Union[RwMode, list[RwMode]], AfterValidator(_non_empty)]


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]
