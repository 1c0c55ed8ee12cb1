"""`--set KEY=VALUE`: change a suite from the command line without copying it.

    --set runtime=60 --set size=4G        the suite's `defaults` (fio and slo steps)
    --set randread-iops.iodepth=64        the step named randread-iops
    --set metadata.files=20000            every step of kind metadata (when no step has
                                          that name)
    --set defaults.options.numa_cpu_nodes=0   an explicit, nested path

The value is read as one YAML value (`64` a number, `[1, 32]` a sweep, `true`; what
would be a mapping, or is no YAML value, is the text as typed), and the
edited suite is validated exactly like the file: a bad value is one line naming the
`--set` and the field. The run keeps the suite as it ran (`effective_text`), so `resume`
reads the same steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import yaml

from stackprobe.errors import UserError

DataPath = tuple[str | int, ...]


class OverrideError(UserError):
    """A --set that cannot be applied; the message names it."""


@dataclass(frozen=True)
class Override:
    text: str  # as given: 'randread-iops.iodepth=64'
    keys: tuple[str, ...]  # ('randread-iops', 'iodepth')
    value: object


def parse_override(text: str) -> Override:
    key, sep, raw = text.partition("=")
    keys = tuple(key.strip().split("."))
    if not sep or not all(keys):
        raise OverrideError(f"--set {text}: expected KEY=VALUE or STEP.KEY=VALUE")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw  # not one YAML value: the text itself, validated like any string
    if isinstance(value, dict):
        value = raw  # 'title=4k: a note' is a title; a mapping is set key by key (a.b=1)
    return Override(text, keys, value)


def apply_overrides(data: dict, overrides: Sequence[Override]) -> dict[DataPath, str]:
    """Edit the suite's data in place; {data path set: the --set that set it}."""
    changed: dict[DataPath, str] = {}
    for o in overrides:
        for path in _targets(data, o):
            _put(data, path, o)
            changed[path] = o.text
    return changed


def _targets(data: dict, o: Override) -> list[DataPath]:
    if len(o.keys) == 1:
        return [("defaults", o.keys[0])]
    head, rest = o.keys[0], o.keys[1:]
    if head == "defaults":
        return [("defaults", *rest)]
    steps = data.get("steps") if isinstance(data.get("steps"), list) else []
    named = [i for i, s in enumerate(steps) if isinstance(s, dict) and s.get("name") == head]
    if not named:
        named = [i for i, s in enumerate(steps)
                 if isinstance(s, dict) and s.get("kind") == head]
    if not named:
        names = sorted({str(s.get("name") or s.get("kind")) for s in steps if isinstance(s, dict)})
        raise OverrideError(f"--set {o.text}: no step named or of kind {head!r} "
                            f"(steps: {', '.join(names)})")
    return [("steps", i, *rest) for i in named]


def _put(data: dict, path: DataPath, o: Override) -> None:
    node: object = data
    for n, element in enumerate(path[:-1]):
        if isinstance(node, list) and isinstance(element, int):
            node = node[element]
            continue
        if not isinstance(node, dict):
            where = path_text(path[:n])
            raise OverrideError(f"--set {o.text}: {where} is not a mapping")
        if node.get(element) is None:
            node[element] = {}
        node = node[element]
    if not isinstance(node, dict):
        where = path_text(path[:-1])
        raise OverrideError(f"--set {o.text}: {where} is not a mapping")
    node[path[-1]] = o.value


def path_text(path: DataPath) -> str:
    """'steps[3].rw', as validation errors name fields."""
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p)
                   for i, p in enumerate(path))


def override_for(loc_in_data: DataPath, changed: dict[DataPath, str]) -> str | None:
    """The --set behind a validation error at `loc_in_data`, if one set it (or above it)."""
    for path, text in changed.items():
        if loc_in_data[: len(path)] == path:
            return text
    return None


def effective_text(data: dict, source: str, overrides: Sequence[Override]) -> str:
    """The suite as it runs, for the run directory: the edited data, saying where from."""
    sets = " ".join(f"--set {o.text}" for o in overrides)
    return (f"# {source} with {sets}\n"
            + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))
