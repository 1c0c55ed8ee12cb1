"""Settings profiles: what a host's settings are expected to be, as data (docs/settings.md).

A profile is a YAML file: a name, a description and a list of expectations, each one
setting (or a glob such as 'disk.*.scheduler') with one comparison (equals, one_of,
at_least, at_most, not), why it is expected and where that comes from, and optionally the
roles it applies to. Built-in profiles live in the stackprobe.profiles package
('hpc-storage'); any other is a path.

Why the YAML is read here, node by node, and not through suite/yaml_lines.py: the settings
step judges the profile when it runs (kinds/, below suite/ in the layers), and every
expectation becomes a checklist item whose origin is its file and line. Reading the
composed nodes gives each expectation's line, and the values as written: YAML 1.1 reads a
plain `off` as false, but a profile compares text ('off' is what
/sys/devices/system/cpu/smt/control prints). Every error is one line naming the file, the
line and the field.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from stackprobe.errors import UserError

Comparison = Literal["equals", "one_of", "at_least", "at_most", "not"]
COMPARISONS: tuple[str, ...] = ("equals", "one_of", "at_least", "at_most", "not")
_SYMBOL = {"equals": "=", "not": "!=", "at_least": ">=", "at_most": "<="}
_EXPECTATION_FIELDS = ("setting", *COMPARISONS, "why", "source", "roles")
_TOP_FIELDS = ("name", "description", "expectations")
MAX_BYTES = 256 * 1024  # a profile is a few kB
GLOB_CHARS = "*?["


class ProfileError(UserError, ValueError):
    """A profile that cannot be used: one line, file, line and field."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))  # one line, whatever a key held


class Expectation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    setting: str  # a setting name or a glob over names ('disk.*.scheduler')
    comparison: Comparison
    values: tuple[str, ...]  # as written: one for equals/not/at_least/at_most, several for one_of
    number: float | None = None  # at_least / at_most: the bound
    why: str
    source: str
    roles: tuple[str, ...] = ()  # only hosts with one of these roles; () = every host
    line: int  # where the expectation starts in its file

    @property
    def is_glob(self) -> bool:
        return any(c in self.setting for c in GLOB_CHARS)

    @property
    def text(self) -> str:
        """'cpu.smt = off', 'disk.*.scheduler in none, mq-deadline', 'vm.swappiness <= 10'."""
        if self.comparison == "one_of":
            return f"{self.setting} in {', '.join(self.values)}"
        return f"{self.setting} {_SYMBOL[self.comparison]} {self.values[0]}"


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    file: str  # the file name as given ('hpc-storage.yaml' for a built-in one)
    expectations: tuple[Expectation, ...]


def builtin_profiles() -> list[str]:
    folder = resources.files("stackprobe.profiles")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def load_profile(ref: str, base_dir: Path | str | None = None) -> Profile:
    """A built-in profile by name, or a profile file by path (relative to base_dir)."""
    path = Path(ref)
    if is_path(ref):
        full = path if path.is_absolute() or base_dir is None else Path(base_dir) / path
        try:
            data = full.read_bytes()
        except OSError as exc:
            raise ProfileError(f"{ref}: cannot read profile ({exc.strerror or exc})") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise ProfileError(f"{ref}:{line}: not a UTF-8 text file") from None
        return parse_profile(text, ref)
    if ref in builtin_profiles():
        text = (resources.files("stackprobe.profiles") / f"{ref}.yaml").read_text(encoding="utf-8")
        return parse_profile(text, f"{ref}.yaml")
    raise ProfileError(f"{ref}: not a profile file and not a built-in profile "
                       f"({', '.join(builtin_profiles())})")


def is_path(ref: str) -> bool:
    """A profile given as a file (a slash in it, or a .yaml/.yml name) rather than by name."""
    return "/" in ref or Path(ref).suffix in (".yaml", ".yml")


def parse_profile(text: str, filename: str) -> Profile:
    """Profile YAML text, validated; any problem is one ProfileError line."""
    if len(text) > MAX_BYTES:
        raise ProfileError(f"{filename}:1: {len(text)} characters; a profile is a few kB "
                           f"(the limit is {MAX_BYTES})")
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark else text.count("\n", 0, getattr(exc, "position", 0)) + 1
        problem = getattr(exc, "problem", None) or str(exc)
        raise ProfileError(f"{filename}:{line}: invalid YAML: {_one_line(problem)}") from None
    except RecursionError:
        raise ProfileError(f"{filename}:1: nested too deep for a profile") from None
    reader = _Reader(filename)
    return reader.profile(root)


class _Reader:
    """Walks the composed nodes of one file; each error names its file, line and field."""

    def __init__(self, filename: str) -> None:
        self.filename = filename

    def fail(self, node: yaml.Node | None, field: str, problem: str) -> ProfileError:
        line = node.start_mark.line + 1 if node is not None else 1
        where = f"{field}: " if field else ""
        return ProfileError(f"{self.filename}:{line}: {where}{problem}")

    def mapping(self, node: yaml.Node, field: str, allowed: tuple[str, ...]) -> dict:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, field, "expected a mapping")
        out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                raise self.fail(key, field, "a key must be a plain word")
            name = key.value
            where = f"{field}.{name}" if field else name
            if name not in allowed:
                raise self.fail(key, _short(where), f"unknown field (allowed: {', '.join(allowed)})")
            if name in out:
                raise self.fail(key, where, "given twice")
            out[name] = (key, value)
        return out

    def scalar(self, node: yaml.Node, field: str) -> str:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, field, "expected a single value")
        if node.tag == "tag:yaml.org,2002:null" and node.style is None:
            raise self.fail(node, field, "needs a value")
        text = " ".join(node.value.split())
        if not text:
            raise self.fail(node, field, "needs a value")
        return text

    def profile(self, root: yaml.Node | None) -> Profile:
        if not isinstance(root, yaml.MappingNode):
            raise ProfileError(f"{self.filename}:1: a profile is a mapping with 'name' and "
                               "'expectations'")
        fields = self.mapping(root, "", _TOP_FIELDS)
        for name in ("name", "expectations"):
            if name not in fields:
                raise self.fail(root, name, "missing")
        key, items = fields["expectations"]
        if not isinstance(items, yaml.SequenceNode) or not items.value:
            raise self.fail(items, "expectations", "expected a list of expectations")
        description = fields.get("description")
        return Profile(
            name=self.scalar(fields["name"][1], "name"),
            description=self.scalar(description[1], "description") if description else "",
            file=self.filename,
            expectations=tuple(self.expectation(item, f"expectations[{i}]")
                               for i, item in enumerate(items.value)))

    def expectation(self, node: yaml.Node, field: str) -> Expectation:
        fields = self.mapping(node, field, _EXPECTATION_FIELDS)
        for name in ("setting", "why", "source"):
            if name not in fields:
                raise self.fail(node, f"{field}.{name}", "missing")
        chosen = [c for c in COMPARISONS if c in fields]
        if len(chosen) != 1:
            raise self.fail(node, field, "needs exactly one of " + ", ".join(COMPARISONS)
                            + (f" (has {', '.join(chosen)})" if chosen else ""))
        comparison = chosen[0]
        setting = self.scalar(fields["setting"][1], f"{field}.setting")
        if " " in setting:
            raise self.fail(fields["setting"][1], f"{field}.setting", "a setting name has no spaces")
        value_node = fields[comparison][1]
        where = f"{field}.{comparison}"
        number = None
        if comparison == "one_of":
            values = self.words(value_node, where)
        else:
            values = (self.scalar(value_node, where),)
        if comparison in ("at_least", "at_most"):
            number = _number(values[0])
            if number is None:
                raise self.fail(value_node, where, f"expected a number, not {_show(values[0])}")
        roles = self.words(fields["roles"][1], f"{field}.roles") if "roles" in fields else ()
        return Expectation(setting=setting, comparison=comparison, values=values, number=number,
                           why=self.scalar(fields["why"][1], f"{field}.why"),
                           source=self.scalar(fields["source"][1], f"{field}.source"),
                           roles=roles, line=node.start_mark.line + 1)

    def words(self, node: yaml.Node, field: str) -> tuple[str, ...]:
        if isinstance(node, yaml.ScalarNode):
            return (self.scalar(node, field),)
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            raise self.fail(node, field, "expected a list of values")
        return tuple(self.scalar(item, f"{field}[{i}]") for i, item in enumerate(node.value))


def _number(text: str) -> float | None:
    """A plain decimal number ('10', '16777216', '0.5'), finite; None otherwise."""
    if len(text) > 40 or not all(c in "0123456789.-+eE" for c in text):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _short(field: str) -> str:
    return field if len(field) <= 80 else field[:77] + "..."


def _show(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _one_line(text: str) -> str:
    lines = str(text).strip().splitlines()
    return lines[0] if lines else "unreadable"
