"""stress-ng's `--yaml FILE` -> CpuRecords, one per stressor of its `metrics` list.

The file (stress-ng 0.15, tests/fixtures/recorded/stress-ng) is a YAML document with
`system-info` (`stress-ng-version`, `hostname`, ...) and `metrics`: per stressor its
`bogo-ops`, `bogo-ops-per-second-real-time` (all workers' ops over the run's wall clock:
the machine's rate), `bogo-ops-per-second-usr-sys-time`, `wall-clock-time`, `user-time`,
`system-time`. Older releases end the `system-info` document with '...' before
`metrics`, so every document of the file is read. The worker count is not in the file.
The YAML is read as data only (safe loading); a value of the wrong type is refused with
its stressor and key.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from stackprobe.parsers.bad_input import finite, guard

_ALIAS = re.compile(r"(?:^|[\s:,\[{-])[&*][^\s,\]}]", re.MULTILINE)
from stackprobe.schema.records import CpuRecord


def looks_like_stress_ng_yaml(text: str) -> bool:
    return "bogo-ops-per-second-real-time:" in text and "stressor:" in text


def _documents(text: str) -> list[dict[str, Any]]:
    # stress-ng writes no anchors or aliases; refusing them keeps an alias bomb out
    if m := _ALIAS.search(text):
        line = text.count("\n", 0, m.start()) + 1
        raise ValueError(f"stress-ng YAML: line {line}: an anchor or alias, which stress-ng never writes")
    # a document ended by '...' and followed by another without its '---' (older releases)
    text = re.sub(r"^\.\.\.[ \t]*\n(?=[ \t]*[^\s.-])", "---\n", text, flags=re.MULTILINE)
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ValueError(f"stress-ng YAML: {where}not YAML ({getattr(exc, 'problem', None) or 'unreadable'})") from None
    except RecursionError:
        raise ValueError("stress-ng YAML: nested too deeply") from None
    return [d for d in docs if isinstance(d, dict)]


def _number(entry: dict[str, Any], key: str, where: str) -> float | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"stress-ng YAML: {where}: {key} is not a number: {str(value)[:40]!r}")
    return finite(value, f"stress-ng YAML: {where}: {key}")


@guard("stress-ng YAML")
def parse_stress_ng_yaml(text: str) -> list[CpuRecord]:
    """One record per entry of the file's `metrics` list."""
    docs = _documents(text)
    info: dict[str, Any] = {}
    metrics: list[Any] = []
    for doc in docs:
        if isinstance(doc.get("system-info"), dict):
            info = doc["system-info"]
        if isinstance(doc.get("metrics"), list):
            metrics += doc["metrics"]
    records = []
    for i, entry in enumerate(metrics, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("stressor"), str):
            raise ValueError(f"stress-ng YAML: metrics entry {i} has no stressor name")
        where = f"stressor {entry['stressor'][:40]}"
        ops = _number(entry, "bogo-ops", where)
        rate = _number(entry, "bogo-ops-per-second-real-time", where)
        wall = _number(entry, "wall-clock-time", where)
        if ops is None or rate is None or wall is None:
            raise ValueError(f"stress-ng YAML: {where}: bogo-ops, its real-time rate or "
                             "wall-clock-time missing")
        cpu_time = sum(_number(entry, k, where) or 0.0 for k in ("user-time", "system-time"))
        per_cpu = _number(entry, "bogo-ops-per-second-usr-sys-time", where)
        version = info.get("stress-ng-version")
        records.append(CpuRecord(
            tool_version=str(version) if version is not None else None,
            stressor=entry["stressor"], bogo_ops=int(ops), seconds=wall, bogo_ops_per_s=rate,
            bogo_ops_per_cpu_s=per_cpu if cpu_time > 0 else None,
            host=str(info["hostname"]) if info.get("hostname") is not None else None))
    if not records:
        raise ValueError("stress-ng YAML without a 'metrics' entry")
    return records
