"""Find and load a suite: a built-in name ('quick', 'standard') or a YAML file path.

Every problem becomes a SuiteError whose text is one line: file, line, field, what is wrong
(the reading itself, bombs and binary files included, is yaml_model.py's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from stackprobe.suite.job_file_suite import is_job_file, job_file_suite_text
from stackprobe.suite.models import Suite
from stackprobe.suite.overrides import apply_overrides, effective_text, parse_override
from stackprobe.suite.yaml_model import (
    MAX_BYTES,
    SuiteError,
    load_hosts,
    parse_model,
    read_data,
    read_text_file,
    validate_data,
)

__all__ = ["MAX_BYTES", "SuiteError", "load_hosts", "read_text_file", "LoadedSuite",
           "builtin_names", "load_suite", "parse_suite", "DEFAULT_SUITE", "SUITE_SHAPE"]

DEFAULT_SUITE = "quick"
SUITE_SHAPE = "a suite is a mapping with 'name' and 'steps'"
@dataclass(frozen=True)
class LoadedSuite:
    suite: Suite
    source: str  # path or 'builtin:quick'
    text: str  # the YAML as read, kept in the run directory
    base_dir: Path | None  # where relative paths in the suite (job files) are resolved


def builtin_names() -> list[str]:
    folder = resources.files("stackprobe.suite") / "builtin"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def load_suite(ref: str | None, sets: Sequence[str] = ()) -> LoadedSuite:
    """Load a built-in suite by name, a suite file, or a fio job file (a one-step suite,
    job_file_suite.py), changed by `--set` values (overrides.py)."""
    ref = ref or DEFAULT_SUITE
    path = Path(ref)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise SuiteError(f"{ref}: no such suite file")
        text = read_text_file(path, "suite file")
        if is_job_file(path, text):
            text = job_file_suite_text(path)
        return _loaded(text, str(path), str(path), path.parent.resolve(), sets)
    if ref in builtin_names():
        text = (resources.files("stackprobe.suite") / "builtin" / f"{ref}.yaml").read_text(
            encoding="utf-8"
        )
        return _loaded(text, f"{ref}.yaml", f"builtin:{ref}", None, sets)
    raise SuiteError(
        f"{ref}: not a suite file and not a built-in suite ({', '.join(builtin_names())})"
    )


def _loaded(text: str, filename: str, source: str, base_dir: Path | None,
            sets: Sequence[str]) -> LoadedSuite:
    if not sets:
        return LoadedSuite(parse_suite(text, filename), source, text, base_dir)
    overrides = [parse_override(s) for s in sets]
    data, lines = read_data(text, filename, SUITE_SHAPE)
    changed = apply_overrides(data, overrides)
    suite = validate_data(data, lines, filename, Suite, changed)
    return LoadedSuite(suite, source, effective_text(data, source, overrides), base_dir)


def parse_suite(text: str, filename: str) -> Suite:
    """Validate suite YAML text; errors name `filename`, the line and the field."""
    return parse_model(text, filename, Suite, SUITE_SHAPE)


