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
from typing import Any

from pydantic import field_validator

from stackprobe.errors import UserError
from stackprobe.spec.steps import StrictModel

ENV = "STACKPROBE_RUNS"
DEFAULT = Path("runs")


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


class _Config(StrictModel):
    """What the config file may say (an unknown setting is an error, never ignored)."""

    runs_dir: Any = None

    @field_validator("runs_dir")
    @classmethod
    def _a_path(cls, value: Any) -> str:
        if not isinstance(value, str) or not value.strip() or "\0" in value:
            got = "nothing" if value in (None, "") else repr(value)[:60]
            raise ValueError(f"expected a directory path, got {got}")
        return value


def read_config(path: Path) -> Path | None:
    """runs_dir from a config file; None when there is no file or it does not say. Read
    by the suite loader (suite/yaml_model.py: parse_model), so every YAML pitfall — bad syntax,
    unknown tags, bombs, binary — is the same one line as in a suite."""
    from stackprobe.suite.yaml_model import parse_model

    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not text.strip() or all(line.lstrip().startswith("#") or not line.strip()
                               for line in text.splitlines()):
        return None
    config = parse_model(text, str(path), _Config, "expected settings as 'name: value' lines "
                         "(runs_dir: DIR)")
    line = next((i for i, t in enumerate(text.splitlines(), 1) if t.startswith("runs_dir")), 1)
    if config.runs_dir is None:
        return None
    try:
        where = Path(config.runs_dir.strip()).expanduser()
    except RuntimeError:  # '~name/…' of a user this machine does not have
        raise UserError(f"{path}:{line}: runs_dir: {config.runs_dir.strip()[:60]!r}: no such home "
                        "directory") from None
    return where if where.is_absolute() else path.parent / where


def resolve_option(value: Path | None) -> Path:
    """The shared option's callback: what the user gave, or the resolution above."""
    return runs_dir(value)
