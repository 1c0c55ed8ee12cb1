"""Where runs live, said once for every command that reads or writes them.

In order: `--runs-dir DIR` (its older spelling `--out`/`-o`), the STACKPROBE_RUNS
environment variable, `runs_dir:` in the config file ($XDG_CONFIG_HOME/stackprobe/
config.yaml, by default ~/.config/stackprobe/config.yaml), then ./runs. So `show`,
`history` and `runs` find the same runs from any directory once one of them is set.

The config file is YAML; a relative runs_dir is taken from the file's own directory, `~`
is the home directory. A file that cannot be used is one line naming file, line and field
— never ignored, since runs would then silently go elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from stackprobe.errors import UserError

ENV = "STACKPROBE_RUNS"
DEFAULT = Path("runs")
KNOWN = ("runs_dir",)


def config_file(env: Mapping[str, str] = os.environ) -> Path:
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base).expanduser() / "stackprobe" / "config.yaml"


def runs_dir(given: Path | None = None, env: Mapping[str, str] = os.environ) -> Path:
    """The runs directory: given, else from the environment, the config file, ./runs."""
    if given is not None and str(given):
        return given.expanduser()
    if env.get(ENV):
        return Path(env[ENV]).expanduser()
    configured = read_config(config_file(env))
    return configured if configured is not None else DEFAULT


def read_config(path: Path) -> Path | None:
    """runs_dir from a config file; None when there is no file or it does not say."""
    from stackprobe.suite.yaml_lines import YamlSyntaxError, load_with_lines

    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data, lines = load_with_lines(text)
    except YamlSyntaxError as exc:
        raise UserError(f"{path}:{exc.line or 1}: not valid YAML: {' '.join(exc.message.split())}") from None
    if data is None:
        return None
    if not isinstance(data, dict):
        raise UserError(f"{path}:1: expected settings as 'name: value' lines (runs_dir: DIR)")
    for name in data:
        if name not in KNOWN:
            raise UserError(f"{path}:{lines.get((name,), 1)}: {name}: unknown setting "
                            f"(known: {', '.join(KNOWN)})")
    if "runs_dir" not in data:
        return None
    value = data["runs_dir"]
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise UserError(f"{path}:{lines.get(('runs_dir',), 1)}: runs_dir: expected a directory "
                        f"path, got {'nothing' if value in (None, '') else repr(value)[:60]}")
    where = Path(value.strip()).expanduser()
    return where if where.is_absolute() else path.parent / where


def resolve_option(value: Path | None) -> Path:
    """The shared option's callback: what the user gave, or the resolution above."""
    return runs_dir(value)
