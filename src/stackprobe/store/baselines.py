"""Named baselines: `<runs>/baselines.json`, {name: {run, path, set_at}}.

A regression gate compares a run with a run known to be good. People name that run once
(`stackprobe baseline set RUN --name nightly`) and gate later runs against the name, so the
command line in CI does not change when the baseline is moved to a newer run. The file
sits beside the runs it names, is rewritten atomically, and every change holds a lock on
the runs directory, so two commands setting baselines at once do not lose one.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.store.rundir import atomic_write, utc_now_iso

BASELINES_FILE = "baselines.json"
FIELDS = ("run", "path", "set_at")
_NAME = re.compile(r"[\w][\w.+-]{0,63}")


@dataclass(frozen=True)
class Baseline:
    name: str
    run: str  # the run id
    path: str  # the run directory, absolute
    set_at: str  # UTC, ISO 8601

    @property
    def exists(self) -> bool:
        return Path(self.path, "results.json").is_file()


def baselines_file(out_dir: Path) -> Path:
    return out_dir / BASELINES_FILE


def check_name(name: str) -> str:
    """A name people can type in a CI script: letters, digits, '.', '+', '-', '_'."""
    if not _NAME.fullmatch(name):
        raise UserError(f"baseline name {name!r}: use 1-64 letters, digits, '.', '+', '-' or '_' "
                        "(starting with a letter or digit)")
    return name


def read_baselines(out_dir: Path) -> dict[str, Baseline]:
    """Every baseline in the file (none when there is no file); a damaged file is one line
    naming the file, the line and the field."""
    f = baselines_file(out_dir)
    try:
        text = f.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{f}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{f}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise UserError(f"{f}:1: expected an object of baselines by name, "
                        f"got {type(data).__name__}")
    out = {}
    for name, entry in data.items():
        where = f"{f}:{_line_of(text, name)}: {json.dumps(name)}"  # as the file writes it: one line
        if not isinstance(entry, dict):
            raise UserError(f"{where}: expected an object with {', '.join(FIELDS)}")
        for field in FIELDS:
            if not isinstance(entry.get(field), str) or not entry[field]:
                raise UserError(f"{where}: {field}: missing or not a string")
        out[name] = Baseline(name, entry["run"], entry["path"], entry["set_at"])
    return out


def _line_of(text: str, name: str) -> int:
    """The line where the key `name` is written (1 when it cannot be found)."""
    needle = json.dumps(name) + ":"
    at = text.replace('" :', '":').find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def set_baseline(out_dir: Path, name: str, run_dir: Path, run_id: str) -> Baseline:
    """Name `run_dir` (replacing what the name pointed to before)."""
    check_name(name)
    entry = Baseline(name, run_id, str(run_dir.resolve()), utc_now_iso())
    with _locked(out_dir):
        baselines = read_baselines(out_dir)
        baselines[name] = entry
        _write(out_dir, baselines)
    return entry


def remove_baseline(out_dir: Path, name: str) -> Baseline:
    with _locked(out_dir):
        baselines = read_baselines(out_dir)
        if name not in baselines:
            raise UserError(f"no baseline named {json.dumps(name)} in {baselines_file(out_dir)}"
                            + (f" (there are: {', '.join(sorted(baselines))})" if baselines else ""))
        gone = baselines.pop(name)
        _write(out_dir, baselines)
    return gone


def _write(out_dir: Path, baselines: dict[str, Baseline]) -> None:
    data = {b.name: {"run": b.run, "path": b.path, "set_at": b.set_at}
            for b in sorted(baselines.values(), key=lambda b: b.name)}
    atomic_write(baselines_file(out_dir), json.dumps(data, indent=1, ensure_ascii=False) + "\n")


@contextmanager
def _locked(out_dir: Path) -> Iterator[None]:
    """An exclusive lock on the runs directory itself (no lock file left behind)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(out_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
