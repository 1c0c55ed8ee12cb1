"""The run directory: runs/<UTC timestamp>-<suite>/ with suite, results and raw outputs.

Layout:
    suite.yaml              the suite as it was run
    results.json            RunResults, rewritten atomically after every step
    steps/<step id>/        per step: <label>.cmd, <label>.stdout, <label>.stderr,
                            job files and the tool's own output files

Nothing secret is kept (store/redact.py): what RunDir writes goes through the run's
Redactor, and every save() also scrubs the files others put into the directory since the
last one (a runner's job file, fio's logs, error.txt, the ceph-fuse log) — so whatever
wrote a file, the directory is clean once the step that wrote it is saved.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from stackprobe import redact
from stackprobe.errors import UserError
from stackprobe.redact import Redactor
from stackprobe.schema.results import RunInfo, RunResults, StepResult
from stackprobe.transport.base import CommandResult

RESULTS_FILE = "results.json"
FINAL_STATUSES = ("ok", "failed", "interrupted", "skipped")  # a step's result no longer changes
SCRUB_BLOCK = 1 << 20  # bytes read at a time when scrubbing, then up to the line's end


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def new_run_id(suite: str, now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{suite}"


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write a file so readers see the old or the new content, never half of it."""
    if isinstance(data, bytes):
        _atomic_replace(path, lambda f: f.write(data))
    else:
        _atomic_replace(path, lambda f: f.write(data.encode("utf-8")))


def _atomic_replace(path: Path, write: Callable[[IO[bytes]], object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
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


def _is_temporary(name: str) -> bool:
    """atomic_write's file in the making (another thread's): not ours to touch."""
    return name.startswith(".") and name.endswith(".tmp")


class RunDir:
    def __init__(self, path: Path, redactor: Redactor | None = None):
        self.path = path
        # the run's secrets: the Ceph session registers the client's key in the same one
        self.redactor = redactor if redactor is not None else redact.for_run(path.name)
        # every local command inherits this environment: its secret-named values too
        self.redactor.register_env(os.environ)
        self._clean: dict[str, tuple[int, int, int]] = {}  # path -> stat of a clean file
        self._final: dict[int, StepResult] = {}  # finished steps already redacted
        self._generation = self.redactor.generation  # of the secrets both caches knew
        self._lock = threading.Lock()

    @classmethod
    def create(cls, out_dir: Path, run_id: str) -> RunDir:
        path = out_dir / run_id
        n = 1
        while path.exists():  # two runs in the same second
            n += 1
            path = out_dir / f"{run_id}.{n}"
        path.mkdir(parents=True)
        return cls(path, redact.for_run(run_id))

    @property
    def run_id(self) -> str:
        return self.path.name

    def step_dir(self, step_id: str) -> Path:
        d = self.path / "steps" / step_id
        d.mkdir(parents=True, exist_ok=True)
        return d

    def write_suite(self, text: str) -> None:
        self.write_text(self.path / "suite.yaml", text)

    def save(self, results: RunResults) -> None:
        """results.json, then the directory scrubbed. The results are redacted in place
        first, so what is printed from them afterwards (progress, summary) is as clean.
        A finished step is not changed again: it is redacted once (unless a secret was
        registered since), so saving after every step stays linear in the run's length."""
        self._forget_if_new_secrets()
        self.redactor.model(results.run)
        for step in results.steps:
            if self._final.get(id(step)) is not step:
                self.redactor.model(step)
                if step.status in FINAL_STATUSES:
                    self._final[id(step)] = step
        self._write(self.path / RESULTS_FILE, results.model_dump_json(indent=1) + "\n")
        self.scrub()

    def _forget_if_new_secrets(self) -> None:
        """A secret registered since the last save may be in what was clean before."""
        with self._lock:
            if self.redactor.generation != self._generation:
                self._generation = self.redactor.generation
                self._clean.clear()
                self._final.clear()

    def save_command(self, directory: Path, label: str, result: CommandResult) -> tuple[Path, Path]:
        """Keep a command's exact line, stdout and stderr in `directory` (secrets
        redacted); return the two output files."""
        self.redactor.register_env(result.env)
        directory.mkdir(parents=True, exist_ok=True)
        self.write_text(directory / f"{label}.cmd", result.command_line() + "\n")
        out, err = directory / f"{label}.stdout", directory / f"{label}.stderr"
        self.write_text(out, result.stdout)
        self.write_text(err, result.stderr)
        return out, err

    # ------------------------------------------------------------------ any file
    def write_text(self, path: Path, text: str) -> bool:
        """Write a file of the run, secrets redacted; True when something was hidden."""
        kept = self.redactor.text(text)
        self._write(path, kept)
        return kept != text

    def copy_in(self, src: Path, dest: Path) -> bool:
        """Copy a file into the run (a user's job file, a log), secrets redacted; True when
        something was hidden."""
        data = src.read_bytes()
        kept = self.redactor.data(data)
        self._write(dest, kept)
        return kept != data

    def _write(self, path: Path, data: str | bytes) -> None:
        atomic_write(path, data)
        self._mark_clean(path)

    # ------------------------------------------------------------------ the sweep
    def scrub(self) -> list[Path]:
        """Redact, in place, every file of the run written or changed since the last
        scrub by anything that did not write through this RunDir; the files changed."""
        self._forget_if_new_secrets()
        changed = []
        for root, dirs, files in os.walk(self.path):
            dirs.sort()
            for name in sorted(files):
                path = Path(root) / name
                if _is_temporary(name) or path.is_symlink() or self._known_clean(path):
                    continue
                try:
                    if self._scrub_file(path):
                        changed.append(path)
                    self._mark_clean(path)
                except FileNotFoundError:  # removed meanwhile: nothing left to hide
                    continue
        return changed

    def _scrub_file(self, path: Path) -> bool:
        """In blocks of whole lines (a per-I/O fio log can be large), rewritten only when
        something changes; binary content gets the registered values only, no patterns."""
        with open(path, "rb") as f:
            binary = b"\0" in f.read(8192)
        hide = self.redactor.values_only if binary else self.redactor.text

        def redacted_blocks() -> Iterable[tuple[bytes, bytes]]:
            with open(path, "rb") as f:
                while block := f.read(SCRUB_BLOCK) + f.readline():
                    text = block.decode("utf-8", errors="surrogateescape")
                    yield block, hide(text).encode("utf-8", errors="surrogateescape")

        if all(old == new for old, new in redacted_blocks()):
            return False

        def write(out: IO[bytes]) -> None:
            for _, new in redacted_blocks():
                out.write(new)

        _atomic_replace(path, write)
        return True

    def _stat_key(self, path: Path) -> tuple[int, int, int]:
        st = path.stat()
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def _known_clean(self, path: Path) -> bool:
        try:
            key = self._stat_key(path)
        except FileNotFoundError:
            return True
        with self._lock:
            return self._clean.get(str(path)) == key

    def _mark_clean(self, path: Path) -> None:
        try:
            key = self._stat_key(path)
        except FileNotFoundError:
            return
        with self._lock:
            self._clean[str(path)] = key


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


def writing_pid(run: RunInfo) -> int | None:
    """The PID of the stackprobe process still writing this run (`resume` and `ingest
    --into` leave such a run alone), or None: the run has ended, or its PID is gone or
    now another program's."""
    pid = run.pid
    if run.status != "running" or not pid or pid == os.getpid():
        return None
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    return pid if any(b"stackprobe" in part for part in cmdline) else None
