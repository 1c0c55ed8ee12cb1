"""Validated field types for step specs: a size, a duration, a count, an fio rw mode, and
the sweepable form of each (one value, or a non-empty list of values).

A size or a duration is parsed once, when the suite is read: `Size.bytes` and
`Duration.seconds` are what runners, estimates and checks compute with, and the value
keeps the user's own spelling (`Size.text`, "4k") for names, titles and results.json,
which store it as written. Declaring the check with the type keeps every model a list of
fields; the error a user sees names the offending item ('steps[2].bs[1]: not a size: huge').
"""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import AfterValidator, Field, GetCoreSchemaHandler, StrictInt
from pydantic_core import core_schema

from stackprobe.units import parse_duration_s, parse_size

Scalar = Union[str, int, float, bool]

FIO_RW = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim",
          "randtrim", "trimwrite")


class _Parsed:
    """A value as written (`text`: str, int or float) with its meaning in base units."""

    __slots__ = ("text", "_value")
    _what = "value"
    _zero_allowed = False

    def __init__(self, text: str | int | float, value: float) -> None:
        self.text = text
        self._value = value

    def __str__(self) -> str:
        return str(self.text)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.text == self.text

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.text))

    @classmethod
    def _parse(cls, text: str | int | float) -> float:
        raise NotImplementedError

    @classmethod
    def of(cls, value: Any):
        """The value parsed; ValueError in the words a suite error shows."""
        if isinstance(value, cls):
            return value
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ValueError(f"not a {cls._what}: {str(value)[:40]!r}")
        parsed = cls._parse(value)
        if parsed < 0 or (parsed == 0 and not cls._zero_allowed):
            raise ValueError("must be >= 0" if cls._zero_allowed else "must be > 0")
        return cls(value, parsed)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler):
        return core_schema.no_info_plain_validator_function(
            cls.of, serialization=core_schema.plain_serializer_function_ser_schema(
                lambda v: v.text if isinstance(v, _Parsed) else v))


class Size(_Parsed):
    """A byte count ('4k', '1M', 4096): `.bytes` (k/M/G are powers of 1024, as fio reads them)."""

    _what = "size"

    @classmethod
    def _parse(cls, text: str | int | float) -> float:
        return parse_size(text)

    @property
    def bytes(self) -> int:
        return int(self._value)


class Duration(_Parsed):
    """A time ('30', '30s', '5m', '500ms'; bare numbers are seconds): `.seconds`."""

    _what = "duration"

    @classmethod
    def _parse(cls, text: str | int | float) -> float:
        return parse_duration_s(text)

    @property
    def seconds(self) -> float:
        return float(self._value)


class DurationOrZero(Duration):
    """A duration that may be 0: fio's ramp_time, whose default is no ramp at all."""

    _zero_allowed = True


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


Count = Annotated[StrictInt, AfterValidator(_count)]
Percent = Annotated[StrictInt, Field(ge=0, le=100)]
RwMode = Annotated[str, AfterValidator(_rw)]

# A value or a sweep of values
Sizes = Annotated[Union[Size, list[Size]], AfterValidator(_non_empty)]
Durations = Annotated[Union[Duration, list[Duration]], AfterValidator(_non_empty)]
DurationsOrZero = Annotated[Union[DurationOrZero, list[DurationOrZero]], AfterValidator(_non_empty)]
Counts = Annotated[Union[Count, list[Count]], AfterValidator(_non_empty)]
Percents = Annotated[Union[Percent, list[Percent]], AfterValidator(_non_empty)]
RwModes = Annotated[Union[RwMode, list[RwMode]], AfterValidator(_non_empty)]


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def written(value: Any) -> Any:
    """A field's value as the suite wrote it (what names, titles and results.json keep)."""
    return value.text if isinstance(value, _Parsed) else value
