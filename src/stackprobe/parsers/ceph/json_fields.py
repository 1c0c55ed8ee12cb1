"""Typed reads of the JSON the `ceph ... -f json` commands print, for the review's parsers.

Ceph writes most metadata as strings ("bluefs_dedicated_db": "1", "mem_total_kb":
"16393164") and most maps as numbers; a field of the wrong type is not what the tool
writes, so each read names the command and the field in a one-line ValueError instead of
letting a TypeError through (parsers/bad_input.py).
"""

from __future__ import annotations

import re
from typing import Any

from stackprobe.parsers.bad_input import finite
from stackprobe.parsers.bad_input import load_json as load  # noqa: F401 - the review parsers read it here

_IP = re.compile(r"(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9a-fA-F:]+)\]")


def obj(value: Any, command: str, where: str) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{command}: {where} is not an object")
    return value


def items(doc: dict, key: str, command: str) -> list[dict]:
    """doc[key] as a list of objects ([] when absent)."""
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f"{command}: '{key}' is not a list")
    return [obj(v, command, f"an entry of '{key}'") for v in value]


def text(value: Any, command: str, where: str, default: str = "") -> str:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"{command}: {where} is not text: {str(value)[:40]!r}")
    return str(value)


def integer(value: Any, command: str, where: str) -> int:
    """An int from a JSON number or a numeric string (Ceph's metadata)."""
    if isinstance(value, bool):
        raise ValueError(f"{command}: {where} is not a whole number: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,20}", value.strip()):
        return int(value)
    raise ValueError(f"{command}: {where} is not a whole number: {str(value)[:40]!r}")


def optional_int(value: Any, command: str, where: str) -> int | None:
    return None if value in (None, "") else integer(value, command, where)


def number(value: Any, command: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{command}: {where} is not a number: {str(value)[:40]!r}")
    return finite(value, f"{command}: {where}")


def flag(value: Any, command: str, where: str) -> bool | None:
    """'1'/'0' (or true/false) -> bool; absent -> None."""
    if value in (None, ""):
        return None
    if isinstance(value, bool):
        return value
    if str(value) in ("1", "0"):
        return str(value) == "1"
    raise ValueError(f"{command}: {where} is not 0 or 1: {str(value)[:40]!r}")


def ips(*addrs: Any) -> tuple[str, ...]:
    """The IP addresses in Ceph address strings ('[v2:10.0.0.1:6800/1,v1:...]')."""
    found: list[str] = []
    for addr in addrs:
        if not isinstance(addr, str):
            continue
        for m in _IP.finditer(addr):
            ip = m.group(1) or m.group(2)
            if ip not in found:
                found.append(ip)
    return tuple(found)
