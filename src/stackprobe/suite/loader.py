"""Find and load a suite: a built-in name ('quick', 'standard') or a YAML file path.

Every problem becomes a SuiteError whose text is one line: file, line, field, what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from stackprobe.errors import UserError
from stackprobe.suite.hosts import HostsFile
from stackprobe.suite.models import Suite
from stackprobe.suite.yaml_lines import YamlSyntaxError, line_for, load_with_lines

DEFAULT_SUITE = "quick"


class SuiteError(UserError):
    """A suite that cannot be used, with the place to fix it."""


@dataclass(frozen=True)
class LoadedSuite:
    suite: Suite
    source: str  # path or 'builtin:quick'
    text: str  # the YAML as read, kept in the run directory
    base_dir: Path | None  # where relative paths in the suite (job files) are resolved


def builtin_names() -> list[str]:
    folder = resources.files("stackprobe.suite") / "builtin"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def load_suite(ref: str | None) -> LoadedSuite:
    """Load a built-in suite by name, or a suite file by path."""
    ref = ref or DEFAULT_SUITE
    path = Path(ref)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise SuiteError(f"{ref}: no such suite file")
        text = path.read_text(encoding="utf-8")
        return LoadedSuite(parse_suite(text, str(path)), str(path), text, path.parent.resolve())
    if ref in builtin_names():
        text = (resources.files("stackprobe.suite") / "builtin" / f"{ref}.yaml").read_text(
            encoding="utf-8"
        )
        return LoadedSuite(parse_suite(text, f"{ref}.yaml"), f"builtin:{ref}", text, None)
    raise SuiteError(
        f"{ref}: not a suite file and not a built-in suite ({', '.join(builtin_names())})"
    )


def parse_suite(text: str, filename: str) -> Suite:
    """Validate suite YAML text; errors name `filename`, the line and the field."""
    return parse_model(text, filename, Suite, "a suite is a mapping with 'name' and 'steps'")


def load_hosts(path: str | Path) -> HostsFile:
    """A hosts.yaml file, validated; errors name the file, line and field."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SuiteError(f"{p}: cannot read hosts file ({exc.strerror or exc})") from None
    return parse_model(text, str(p), HostsFile, "a hosts file is a mapping with 'hosts'")


def parse_model(text: str, filename: str, model, shape: str):
    """YAML text validated by a pydantic model; any problem is one SuiteError line."""
    try:
        data, lines = load_with_lines(text)
    except YamlSyntaxError as exc:
        where = f"{filename}:{exc.line}" if exc.line else filename
        raise SuiteError(f"{where}: invalid YAML: {exc.message}") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{filename}:1: {shape}")
    try:
        return model.model_validate(data)
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
        raise SuiteError(f"{filename}:{line}: {field}: {message}{more}") from None


def _usefulness(err: dict) -> tuple[int, int]:
    """Sort key: what the user wrote wrong beats which type a union branch wanted.

    A sweepable field is 'value or list of values': for a list, pydantic also reports that
    it is not a single value. Value and constraint errors come first, deepest path first.
    """
    kind = err["type"]
    mismatch = kind.endswith(("_type", "_parsing")) or kind in ("literal_error",)
    return (1 if mismatch else 0, -len(err["loc"]))


def _field_name(loc: tuple, data: dict, error_type: str) -> str:
    """'steps[3].iodepth' from pydantic's ('steps', 3, 'fio', 'iodepth', 'int').

    Elements absent from the data are pydantic's union tags and are left out, except a
    final key that is missing or not allowed, which is the field the user must fix.
    """
    out = ""
    node: object = data
    for n, element in enumerate(loc):
        last = n == len(loc) - 1
        if isinstance(element, int) and isinstance(node, list) and element < len(node):
            out += f"[{element}]"
            node = node[element]
        elif isinstance(node, dict) and element in node:
            out += f".{element}" if out else str(element)
            node = node[element]
        elif last and error_type in ("missing", "extra_forbidden"):
            out += f".{element}" if out else str(element)
    return out or "top level"
