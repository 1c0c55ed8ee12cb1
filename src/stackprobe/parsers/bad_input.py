"""What a parser does with input its tool never writes: one ValueError line, no traceback.

Parsers read outputs cut short, mixed with a terminal's noise, edited by hand or not from
the tool at all (`stackprobe ingest` takes any file). Whatever the text, a parser returns
records whose figures are finite numbers, or raises ValueError with a one-line message
(docs/safety.md, "Bad input"; tests/test_fuzz_parsers.py checks it). Three helpers:

- `loads` / `raw_decode`: JSON as tools write it. Python's json module also takes NaN,
  Infinity, numbers beyond a double (1e400 becomes inf; 10**400 an int that float()
  refuses) and nesting deep enough to exhaust the recursion limit. No tool writes those;
  each becomes a json.JSONDecodeError, which the parsers already turn into their message.
- `finite`: a number read from text, refused when NaN or infinite ('inf', '1e999').
- `guard`: the last line of defence around a parser entry point. Input of the wrong
  shape (a string where an object belongs, a missing key, a count too large for a float)
  and a record that refuses a value (pydantic's multi-line dump) become one ValueError
  line that names the format.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError

F = TypeVar("F", bound=Callable[..., Any])

_MAX_DIGITS = 308  # an integer with more digits is beyond a double: float() raises


class _Refused(ValueError):
    """A JSON value no tool writes; turned into a JSONDecodeError by the callers below."""


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number a tool writes")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number out of range: {text[:20]}")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise _Refused(f"number out of range: {text[:20]}...")
    return int(text)


_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_float, parse_int=_int)


def raw_decode(text: str, pos: int = 0) -> tuple[Any, int]:
    """json.JSONDecoder.raw_decode, refusing what no tool writes (see the module doc)."""
    try:
        return _DECODER.raw_decode(text, pos)
    except _Refused as exc:
        raise json.JSONDecodeError(str(exc), text, pos) from None
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, pos) from None


def loads(text: str) -> Any:
    """json.loads with the same refusals; trailing text is an error, as for json.loads."""
    start = len(text) - len(text.lstrip())
    doc, end = raw_decode(text, start)
    if text[end:].strip():
        raise json.JSONDecodeError("Extra data", text, end)
    return doc


def load_json(text: str, what: str, kind: type = object) -> Any:
    """The JSON document a tool printed, which must be a `kind` (dict, list); a one-line
    ValueError naming `what` ('ceph -s', "osd.3 bench") otherwise."""
    try:
        doc = loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what}: not JSON ({exc.msg})") from None
    if not isinstance(doc, kind):
        raise ValueError(f"{what}: not a JSON {kind.__name__}")
    return doc


def finite(value: str | float, what: str) -> float:
    """float(value), or ValueError naming `what` when it is not a finite number."""
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    except (TypeError, ValueError):
        raise ValueError(f"{what} is not a number: {str(value)[:40]!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} is not a finite number: {str(value)[:40]!r}")
    return number


# ArithmeticError: OverflowError (float(10**400)), ZeroDivisionError, decimal's
# InvalidOperation (comparing a Decimal NaN).
_SHAPE_ERRORS = (AttributeError, KeyError, TypeError, IndexError, ArithmeticError, RecursionError)


# The messages of int('x') and float('x'), which name no format and no field.
_CONVERSION = ("invalid literal for int()", "could not convert string to float")


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:200] if lines else ""


def _validation(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(part) for part in err["loc"]) or exc.title
    return _first_line(f"{loc}: {err['msg']} (got {repr(err.get('input'))[:40]})")


def describe(exc: ValueError) -> str:
    """The text of a ValueError for a message of one line; pydantic's takes many."""
    return _validation(exc) if isinstance(exc, ValidationError) else str(exc)


def _shape(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no {_first_line(repr(exc.args[0] if exc.args else ''))}"
    return _first_line(f"{type(exc).__name__}: {exc}")


def guard(what: str, error: type[ValueError] = ValueError) -> Callable[[F], F]:
    """Decorate a parser entry point: wrong shapes and refused values raise `error` with
    one line starting with `what` (e.g. 'fio JSON'); the parser's own ValueErrors pass."""

    def wrap(parse: F) -> F:
        @functools.wraps(parse)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                return parse(*args, **kwargs)
            except ValidationError as exc:
                raise error(f"{what}: {_validation(exc)}") from None
            except _SHAPE_ERRORS as exc:
                raise error(f"{what}: not what the tool writes ({_shape(exc)})") from None
            except ValueError as exc:
                if not str(exc).startswith(_CONVERSION):
                    raise
                raise error(f"{what}: not what the tool writes ({_first_line(str(exc))})") from None

        return checked  # type: ignore[return-value]

    return wrap
