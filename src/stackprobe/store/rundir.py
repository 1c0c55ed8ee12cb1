"""The run directory: runs/<UTC timestamp>-<suite>/ with suite, results and raw outputs.

Layout:
    suite.yaml              the suite as it was run
    results.json            RunResults, rewritten atomically after every step
    steps/<step id>/        per step: <label>.cmd, <label>.stdout, <label>.stderr,
                            job files and the tool's own output files
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, UTC
from pathlib import Path

from stackprobe.errors import UserError
from stackprobe.store.results import RunResults
from stackprobe.transport.base import CommandResult

RESULTS_FILE = "results.json"


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def new_run_id(suite: str, now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{suite}"


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write a file so readers see the old or the new content, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **({} if isinstance(data, bytes) else {"encoding": "utf-8"})) as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


class RunDir:
    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def create(cls, out_dir: Path, run_id: str) -> RunDir:
        path = out_dir / run_id
        n = 1
        while path.exists():  # two runs in the same second
            n += 1
            path = out_dir / f"{run_id}.{n}"
        path.mkdir(parents=True)
        return cls(path)

    @property
    def run_id(self) -> str:
        return self.path.name

    def step_dir(self, step_id: str) -> Path:
        d = self.path / "steps" / step_id
        d.mkdir(parents=True, exist_ok=True)
        return d

    def write_suite(self, text: str) -> None:
        atomic_write(self.path / "suite.yaml", text)

    def save(self, results: RunResults) -> None:
        atomic_write(self.path / RESULTS_FILE, results.model_dump_json(indent=1) + "\n")

    def save_command(self, directory: Path, label: str, result: CommandResult) -> tuple[Path, Path]:
        """Keep a command's exact line, stdout and stderr in `directory`; return the two
        output files."""
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write(directory / f"{label}.cmd", result.command_line() + "\n")
        out, err = directory / f"{label}.stdout", directory / f"{label}.stderr"
        atomic_write(out, result.stdout)
        atomic_write(err, result.stderr)
        return out, err


def load_results(run_path: Path) -> RunResults:
    """results.json of a run directory, validated; a clear error when it is not one."""
    f = run_path / RESULTS_FILE
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        raise UserError(f"{run_path}: not a run directory (no {RESULTS_FILE})") from None
    except OSError as exc:
        raise UserError(f"{f}: cannot read: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{f}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    try:
        return RunResults.model_validate(data)
    except ValueError as exc:
        first = str(exc).splitlines()
        raise UserError(f"{f}: not a stackprobe results file: {first[1] if len(first) > 1 else exc}") from None
