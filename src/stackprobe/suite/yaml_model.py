"""YAML text read into a pydantic model, every problem one line: file, line, field, why.

Suites, hosts files, settings profiles and the config file are all read this way, so every
YAML pitfall is refused the same way: binary or non-UTF-8 files, syntax the reader refuses,
and YAML built to exhaust time or memory (a "billion laughs" of nested aliases expands to
billions of values; deep nesting exhausts the recursion limit), refused before anything
walks the document (`_check_size`), with the line where the limit was passed. Kept apart
from the suite loader, which needs every step kind's model: reading a hosts file or the
config file does not.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import yaml
from pydantic import ValidationError

from stackprobe.errors import UserError
from stackprobe.spec.hosts import HostsFile
from stackprobe.suite.overrides import DataPath, override_for, path_text
from stackprobe.suite.yaml_lines import YamlSyntaxError, line_for, load_with_lines

# Limits far above any real suite or hosts file (a few kB, a few hundred values, 6 levels).
# Reading YAML takes about 10 µs a value: these keep any file to a second or two.
MAX_BYTES = 256 * 1024
MAX_VALUES = 20_000  # after aliases are expanded
MAX_DEPTH = 50
_LONG_NUMBER = re.compile(r"\d{300}")


class SuiteError(UserError):
    """A suite (or hosts file) that cannot be used, with the place to fix it."""


def load_hosts(path: str | Path) -> HostsFile:
    """A hosts.yaml file, validated; errors name the file, line and field."""
    p = Path(path)
    text = read_text_file(p, "hosts file")
    return parse_model(text, str(p), HostsFile, "a hosts file is a mapping with 'hosts'")


def read_text_file(path: Path, what: str) -> str:
    """The file's text; unreadable or not UTF-8 (a binary file) is a SuiteError."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SuiteError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SuiteError(f"{path}:{line}: not a UTF-8 text file (byte {exc.start}: "
                         f"0x{data[exc.start]:02x})") from None


def parse_model(text: str, filename: str, model, shape: str):
    """YAML text validated by a pydantic model; any problem is one SuiteError line."""
    data, lines = read_data(text, filename, shape)
    return validate_data(data, lines, filename, model)


def read_data(text: str, filename: str, shape: str) -> tuple[dict, dict]:
    """The YAML's mapping and the line of every value in it, refused as parse_model does."""
    _check_size(text, filename)
    try:
        data, lines = load_with_lines(text)
    except YamlSyntaxError as exc:
        line = exc.line or 1
        raise SuiteError(f"{filename}:{line}: invalid YAML: {_first_line(exc.message)}") from None
    except yaml.MarkedYAMLError as exc:  # a tag or key the safe loader cannot build
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise SuiteError(f"{filename}:{line}: invalid YAML: {_first_line(exc.problem or str(exc))}") from None
    except ValueError as exc:  # a value the safe loader cannot build, e.g. date 2024-13-45
        raise SuiteError(f"{filename}:{_bad_scalar_line(text)}: invalid YAML value: "
                         f"{_first_line(str(exc))}") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{filename}:1: {shape}")
    return data, lines


def validate_data(data: dict, lines: dict, filename: str, model,
                  changed: dict[DataPath, str] | None = None):
    """`data` validated by `model`; an error at a value a --set gave names the --set."""
    # .inf, .nan, 10**400: no count, size or time is one. Checked in the YAML (a validator
    # would overflow on 10**400) and in the result ('1e999' is a YAML string, a float to pydantic).
    _refuse_out_of_range(data, data, lines, filename)
    try:
        result = model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        err = min(errors, key=_usefulness)
        loc = tuple(err["loc"])
        line = line_for(lines, loc)
        field = _field_name(loc, data, err["type"])
        message = err["msg"].removeprefix("Value error, ")
        others = {_field_name(tuple(e["loc"]), data, e["type"]) for e in errors}
        others = {f for f in others if not (f.startswith(field) or field.startswith(f))}
        more = f" (and {len(others)} more field{'s' if len(others) > 1 else ''})" if others else ""
        given = override_for(_data_path(loc, data, err["type"]), changed or {})
        where = f"{filename}: --set {given}" if given else f"{filename}:{line}"
        raise SuiteError(f"{where}: {field}: {message}{more}") from None
    except ArithmeticError:  # a validator's float overflowed: units.py on '1000…000G'
        path = next((p for p, v in _scalars(data) if _LONG_NUMBER.search(str(v))), ())
        raise SuiteError(f"{filename}:{line_for(lines, path) or 1}: "
                         f"{_field_name(path, data, '')}: number too large") from None
    _refuse_out_of_range(result.model_dump(), data, lines, filename)
    return result


def _refuse_out_of_range(values: object, data: dict, lines: dict, filename: str) -> None:
    for path, problem in _out_of_range(values):
        field = _field_name(path, data, "")
        raise SuiteError(f"{filename}:{line_for(lines, path) or 1}: {field}: {problem}")


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else "unreadable"


def _check_size(text: str, filename: str) -> None:
    """Refuse what would exhaust time or memory before anything builds or walks it: too
    many bytes, too deep, too many values once aliases are expanded, aliases that contain
    themselves, collections as keys.
    Reads PyYAML's event stream, which is flat and expands nothing."""
    if len(text) > MAX_BYTES:
        raise SuiteError(f"{filename}:1: {len(text)} characters; a suite or hosts file is a "
                         f"few kB (the limit is {MAX_BYTES})")
    sizes: dict[str, int] = {}  # anchor -> values under it, aliases expanded
    collections: set[str] = set()  # anchors of lists and mappings
    open_: list[list] = []  # per open collection: [values so far, anchor, is mapping, items]
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            line = event.start_mark.line + 1
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                count, anchor, _mapping, _items = open_.pop()
                if anchor:
                    sizes[anchor] = count
                    collections.add(anchor)
                _add(open_, count, filename, line)
                continue
            if not isinstance(event, yaml.NodeEvent):
                continue
            collection = isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent))
            alias = isinstance(event, yaml.AliasEvent)
            if open_ and open_[-1][2] and open_[-1][3] % 2 == 0 and (
                    collection or (alias and event.anchor in collections)):
                raise SuiteError(f"{filename}:{line}: a key must be a plain value, not a list "
                                 "or mapping")
            if collection:
                open_.append([1, event.anchor, isinstance(event, yaml.MappingStartEvent), 0])
                if len(open_) > MAX_DEPTH:
                    raise SuiteError(f"{filename}:{line}: nested deeper than {MAX_DEPTH} levels")
            elif alias:
                if any(frame[1] == event.anchor for frame in open_):
                    raise SuiteError(f"{filename}:{line}: alias *{event.anchor} inside the value "
                                     "it names (a cycle)")
                _add(open_, sizes.get(event.anchor, 1), filename, line)
            else:
                if event.anchor:
                    sizes[event.anchor] = 1
                _add(open_, 1, filename, line)
    except yaml.reader.ReaderError as exc:  # a character YAML refuses (binary, control)
        line = text.count("\n", 0, exc.position) + 1
        raise SuiteError(f"{filename}:{line}: invalid YAML: {_first_line(str(exc))}") from None
    except yaml.YAMLError:
        return  # a syntax error: load_with_lines reports it with its line


def _add(open_: list[list], count: int, filename: str, line: int) -> None:
    """Count a finished value (`count` values, aliases expanded) into its collection."""
    if not open_:
        return
    parent = open_[-1]
    parent[0] += count
    parent[3] += 1
    if parent[0] > MAX_VALUES:
        raise SuiteError(f"{filename}:{line}: more than {MAX_VALUES} values once aliases are "
                         "expanded (a YAML bomb?)")


def _bad_scalar_line(text: str) -> int:
    """Line of the first plain value the safe loader cannot build (only on that error)."""
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.ScalarEvent) and event.implicit[0] and not event.style:
            try:
                yaml.safe_load(event.value)
            except (ValueError, yaml.YAMLError):
                return event.start_mark.line + 1
    return 1


def _out_of_range(data: object):
    """(path, problem) of each number that is NaN, infinite or beyond a float (units.py
    turns sizes and times into floats), in document order."""
    for path, value in _scalars(data):
        if isinstance(value, float) and not math.isfinite(value):
            yield path, "not a finite number"
        elif isinstance(value, int) and abs(value) > sys.float_info.max:
            yield path, "number too large"


def _scalars(data: object):
    """(path, value) of each value that is not a list or mapping, in document order."""
    todo: list[tuple[tuple, object]] = [((), data)]
    while todo:
        path, node = todo.pop()
        if isinstance(node, dict):
            todo += reversed([(path + (k,), v) for k, v in node.items()])
        elif isinstance(node, list):
            todo += reversed([(path + (i,), v) for i, v in enumerate(node)])
        else:
            yield path, node


def _usefulness(err: dict) -> tuple[int, int]:
    """Sort key: what the user wrote wrong beats which type a union branch wanted.

    A sweepable field is 'value or list of values': for a list, pydantic also reports that
    it is not a single value. Value and constraint errors come first, deepest path first.
    """
    kind = err["type"]
    mismatch = kind.endswith(("_type", "_parsing")) or kind in ("literal_error",)
    return (1 if mismatch else 0, -len(err["loc"]))


def _data_path(loc: tuple, data: dict, error_type: str) -> DataPath:
    """The part of pydantic's location that is in the data: ('steps', 3, 'iodepth') from
    ('steps', 3, 'fio', 'iodepth', 'int'). Elements absent from the data are pydantic's
    union tags and are left out, except a final key that is missing or not allowed, which
    is the field the user must fix."""
    out: list = []
    node: object = data
    for n, element in enumerate(loc):
        last = n == len(loc) - 1
        if isinstance(element, int) and isinstance(node, list) and element < len(node):
            node = node[element]
        elif isinstance(node, dict) and element in node:
            node = node[element]
        elif not (last and error_type in ("missing", "extra_forbidden")):
            continue
        out.append(element)
    return tuple(out)


def _field_name(loc: tuple, data: dict, error_type: str) -> str:
    """'steps[3].iodepth' from pydantic's ('steps', 3, 'fio', 'iodepth', 'int')."""
    return path_text(_data_path(loc, data, error_type)) or "top level"
