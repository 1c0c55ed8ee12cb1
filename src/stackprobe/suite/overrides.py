"""`--set KEY=VALUE`: change a suite from the command line without copying it.

    --set runtime=60 --set size=4G        the suite's `defaults` (fio and slo steps)
    --set randread-iops.iodepth=64        the step named randread-iops
    --set metadata.files=20000            every step of kind metadata (when no step has
                                          that name)
    --set defaults.options.numa_cpu_nodes=0   an explicit, nested path

The value is read as one YAML value (`64` a number, `[1, 32]` a sweep, `true`; what
would be a mapping, or is no YAML value, is the text as typed; anchors and aliases, nesting
deeper than MAX_DEPTH and more than MAX_VALUES values are refused before it is built), and
the edited suite is validated exactly like the file: a bad value is one line naming the
`--set` and the field. The run keeps the suite as it ran (`effective_text`), so `resume`
reads the same steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import yaml

from stackprobe.errors import UserError

DataPath = tuple[str | int, ...]
MAX_VALUE_CHARS = 64 * 1024  # a value typed on a command line
MAX_DEPTH = 50  # lists in lists: as deep as a suite file may nest (yaml_model.py)
MAX_VALUES = 20_000  # values in one --set, as many as a whole suite file may hold
# libyaml's loader where PyYAML has it: the same values, ten times as fast on a long value
# (20,000 values walked in 0.8 s by the Python scanner)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
        raise OverrideError(f"--set {_shown(text)}: expected KEY=VALUE or STEP.KEY=VALUE")
    return Override(text, keys, _value(text, raw))


def _value(text: str, raw: str) -> object:
    """The value as one YAML value, guarded as a suite file is (yaml_model.py) before
    anything is built: a few hundred bytes of anchors and aliases expand to billions of
    values, deep nesting exhausts the recursion limit, and a sweep of 30,000 values plans
    30,000 steps. A --set value has no use for any of them, so they are refused; what YAML
    cannot build (a 5,000-digit number, 2024-13-45) is the text as typed, like any text
    that is not one YAML value. Found by the fuzz target (tests/test_fuzz_suite.py)."""
    if len(raw) > MAX_VALUE_CHARS:
        raise OverrideError(f"--set {_shown(text)}: a value of {len(raw)} characters (at most "
                            f"{MAX_VALUE_CHARS}: a suite file is the place for more)")
    if not raw.strip():
        return ""
    try:
        _refuse_bombs(text, raw, _LOADER)
        value = yaml.load(raw, Loader=_LOADER)
    except (yaml.YAMLError, ValueError):
        if _LOADER is not yaml.SafeLoader:  # libyaml stops at its own depth limit first:
            try:  # the Python scanner names what is wrong
                _refuse_bombs(text, raw, yaml.SafeLoader)
            except (yaml.YAMLError, ValueError):
                pass
        return raw  # not one YAML value: the text itself, validated like any string
    if isinstance(value, dict):
        return raw  # 'title=4k: a note' is a title; a mapping is set key by key (a.b=1)
    return value


def _refuse_bombs(text: str, raw: str, loader: type) -> None:
    """OverrideError for anchors or aliases, nesting past MAX_DEPTH or more than MAX_VALUES
    values, read from the parser's events before anything is built."""
    depth = values = 0
    for event in yaml.parse(raw, Loader=loader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise OverrideError(f"--set {_shown(text)}: anchors and aliases (&, *) are not "
                                "read in a --set value")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise OverrideError(f"--set {_shown(text)}: nested deeper than {MAX_DEPTH} levels")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.ScalarEvent):
            values += 1
            if values > MAX_VALUES:
                raise OverrideError(f"--set {_shown(text)}: more than {MAX_VALUES} values")


def _shown(text: str) -> str:
    """The --set as an error names it: cut when it is longer than a line."""
    return text if len(text) <= 200 else f"{text[:200]}..."


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
