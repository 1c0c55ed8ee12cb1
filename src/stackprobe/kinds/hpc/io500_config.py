"""What the io500 step runs: the IO500 config.ini text and the command lines (pure functions).

The config names io500's own keys: [global] datadir, resultdir, timestamp-datadir,
timestamp-resultdir, drop-caches and [debug] stonewall-time (whole seconds). Both
timestamp keys are FALSE: the data lands in the directory stackprobe made (and striped)
and the result files where the runner reads them. A user's `settings` (section -> key ->
value) are merged in; io500 matches section and key names without regard to case, so a
user's key replaces a default of the same name in any spelling. io500 reads a value up to
the first '#' or ';', so values holding either are refused rather than silently cut.
"""

from __future__ import annotations

import re
from typing import Any

from stackprobe.errors import UserError

# the names io500's ini parser accepts (sections: letters, digits, '_' '-'; keys also '.')
SECTION_RE = re.compile(r"^[0-9A-Za-z_-]+$")
KEY_RE = re.compile(r"^[0-9A-Za-z_.-]+$")
# set by stackprobe: the runner must know where data and results are
OWN_KEYS = ("datadir", "resultdir", "timestamp-datadir", "timestamp-resultdir")
TOOL_NAMES = ("io500", "ior", "mdtest")


def ini_value(value: Any, where: str) -> str:
    """A setting as io500 reads it: booleans TRUE/FALSE, whole floats without '.0'."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        text = str(int(value))
    else:
        text = str(value)
    if any(c in text for c in "#;\n\r"):
        raise UserError(f"io500 settings: {where} = {text!r}: io500 cannot read a value "
                        "holding '#', ';' or a line break")
    return text.strip()


def stonewall_s(spec) -> int:
    """The step's `stonewall` as io500's whole seconds (at least 1)."""
    return max(1, round(spec.stonewall.seconds))


def _merge(sections: dict[str, dict[str, str]], section: str, key: str, text: str) -> None:
    name = next((s for s in sections if s.lower() == section.lower()), section)
    values = sections.setdefault(name, {})
    for old in [k for k in values if k.lower() == key.lower()]:
        del values[old]
    values[key] = text


def io500_sections(spec, data_dir: str, result_dir: str) -> dict[str, dict[str, str]]:
    """Section -> key -> value text, defaults first and the user's settings merged in."""
    sections: dict[str, dict[str, str]] = {
        "global": {
            "datadir": ini_value(data_dir, "[global] datadir"),
            "timestamp-datadir": "FALSE",
            "resultdir": ini_value(result_dir, "[global] resultdir"),
            "timestamp-resultdir": "FALSE",
            "drop-caches": "FALSE",
        },
        "debug": {"stonewall-time": str(stonewall_s(spec))},
    }
    for section, values in (spec.settings or {}).items():
        if not isinstance(section, str) or not SECTION_RE.match(section):
            raise UserError(f"io500 settings: section name {section!r} is not one io500 "
                            "reads (letters, digits, '_' and '-')")
        if not isinstance(values, dict):
            raise UserError(f"io500 settings: [{section}] must map keys to values")
        for key, value in values.items():
            if not isinstance(key, str) or not KEY_RE.match(key):
                raise UserError(f"io500 settings: [{section}] key {key!r} is not one io500 "
                                "reads (letters, digits, '_', '.' and '-')")
            if section.lower() == "global" and key.lower() in OWN_KEYS:
                raise UserError(f"io500 settings: [{section}] {key} is set by stackprobe "
                                "(the data directory is the step's `directory:`)")
            _merge(sections, section, key, ini_value(value, f"[{section}] {key}"))
    return sections


def io500_config(spec, data_dir: str, result_dir: str) -> str:
    """The config.ini text io500 runs with (`spec`: an Io500Step)."""
    lines = ["# io500 configuration written by stackprobe"]
    for section, values in io500_sections(spec, data_dir, result_dir).items():
        lines += ["", f"[{section}]"]
        lines += [f"{key} = {text}" for key, text in values.items()]
    return "\n".join(lines) + "\n"


def tool_name(spec) -> str:
    tool = spec.tool or "io500"
    if tool not in TOOL_NAMES:
        raise UserError(f"io500 step: tool {tool!r} is not one of {', '.join(TOOL_NAMES)}")
    return tool


def binary_of(spec) -> str:
    """The executable: the step's `binary`, else the tool's name (found on PATH)."""
    return str(spec.binary or tool_name(spec))


def launcher_of(spec) -> list[str]:
    return [str(a) for a in (spec.launcher or [])]


def io500_argv(spec, config_path: str) -> list[str]:
    """LAUNCHER io500 CONFIG [ARGS] (io500 reads options such as --mode=extended after
    the config file)."""
    return [*launcher_of(spec), binary_of(spec), str(config_path),
            *[str(a) for a in spec.args or []]]


def tool_argv(spec) -> list[str]:
    """LAUNCHER ior|mdtest ARGS."""
    return [*launcher_of(spec), binary_of(spec), *[str(a) for a in spec.args or []]]
