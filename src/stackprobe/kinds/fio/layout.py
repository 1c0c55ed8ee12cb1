"""Test files laid out once per run and reused by the fio steps that can use them.

Why: each fio step used to lay its files out again in a scratch directory of its own and
remove them afterwards. A 4k random read of a 256 MiB file spent about a second of a 5 s
run writing it first; at the standard suite's 10 GiB per job that is minutes per step, and
a sweep pays it at every point.

What makes files interchangeable: fio names a job's files `<job name>.<job number>.<file
number>` in the job's directory, and keeps a file that is already as large as the job
needs (it lays out only what is missing or short). Two local fio steps built from
parameters with the same `size` per job therefore use the same files, job number by job
number, whatever else differs (rw, bs, iodepth, engine, direct). Before a step, the files
it can use are moved (renamed: the same filesystem, no data moved) from the run's store
into the step's scratch directory under the names its job gives them; after it, those a
later step of the run needs go back to the store and the rest are removed with the step's
directory. The job file stays what a user would run by hand, and every file fio opens is
inside the step's scratch directory, where the target guard (safety/) wants it; the store
itself is under the run's scratch directory, which `resume` makes afresh, so a resumed
run lays its files out again.

A file is *filled* once a read job laid it out whole (fio writes data into the files of a
job that reads). A write job only preallocates its files: ext4 and XFS answer reads of
unwritten extents with zeros without touching the disk, so a read step never reuses a
file that only a write step made — it is removed, and fio lays it out. A write step may
write into a filled file (it overwrites written blocks, as fio run again by hand does).
Reused files are synced and their pages dropped from the page cache before the step
(fdatasync, POSIX_FADV_DONTNEED), so a read after a buffered write reads the device, not
the cache; with direct I/O that costs nothing.

The decisions (`file_set`, `choose`, `after_step`, `needed_by`) are pure; `take` and
`put_back` move the files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stackprobe.kinds.fio.params import FILE_OPTIONS
from stackprobe.units import fmt_bytes

if TYPE_CHECKING:
    from stackprobe.kinds.context import StepContext
    from stackprobe.spec.planned import PlannedStep

KIND = "fio"  # the steps that take kept files (kinds/fio/fio.py); others make their own
STORE = ".fio-files"  # in the run's scratch directory; a step id never starts with '.'
MANIFEST = "files.json"
# Engines that do their I/O on the job's files the way fio's default (psync) does: they
# find, lay out and keep the same files. Others (null, the file engines, net, rbd) do not.
FILE_IO_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2", "libaio",
                             "io_uring", "posixaio", "mmap"})
READ_MODES = frozenset({"read", "randread", "rw", "readwrite", "randrw"})
WRITE_MODES = frozenset({"write", "randwrite"})  # trims take blocks away: files their own
# options that change which files a job makes, how large, or what it leaves in them
LAYOUT_OPTIONS = frozenset(FILE_OPTIONS) | {
    "unlink", "unlink_each_loop", "file_append", "fill_device", "fill_fs", "create_only",
    "overwrite", "fallocate", "offset", "offset_increment", "zonemode", "zonerange",
    "zonesize", "allow_file_create", "trim_percentage", "trim_verify_zero"}

Key = tuple[int, int]  # (bytes per file, job number)


@dataclass(frozen=True)
class FileSet:
    """The files a step's job uses: one of `size` bytes per job, numbered 0..jobs-1."""

    size: int
    jobs: int
    reads: bool  # the job reads: fio lays its files out with data (fills them)

    def keys(self) -> list[Key]:
        return [(self.size, j) for j in range(self.jobs)]


@dataclass(frozen=True)
class Stored:
    """What the run knows of a kept file."""

    filled: bool  # written whole by a read job's layout
    by: str  # the step that made it


def file_set(step: PlannedStep) -> FileSet | None:
    """The files the step's job uses, when other steps of the run may share them; None when
    its files are its own (a job file, a device, another host, RBD/CephFS, an engine
    without files, file options, no size)."""
    spec = step.spec
    if step.kind != KIND or spec.job_file is not None or step.device is not None or step.hosts:
        return None
    if (spec.target or "local") != "local" or spec.size is None:
        return None
    rw = spec.rw or "read"
    if (spec.ioengine or "psync") not in FILE_IO_ENGINES or rw not in READ_MODES | WRITE_MODES:
        return None
    if LAYOUT_OPTIONS & set(spec.options):
        return None
    return FileSet(spec.size.bytes, spec.numjobs or 1, rw in READ_MODES)


def needed_by(steps: Iterable[PlannedStep]) -> set[Key]:
    """Every file the steps use."""
    return {k for s in steps if (fs := file_set(s)) is not None for k in fs.keys()}


def keep_within(have: Iterable[Key], later: Sequence[PlannedStep], budget: int) -> set[Key]:
    """Which of the files at hand to keep for the later steps: those a later step uses,
    soonest used first, while no later step would find the target fuller than the
    pre-flight check allowed for — kept files it does not use beside its own never above
    `budget` (the largest step's test data: engine/preflight.py checks that much is free)."""
    have = set(have)
    uses = [(set(fs.keys()) if (fs := file_set(s)) is not None else set(), s.space_bytes)
            for s in later]
    order = list(dict.fromkeys(k for keys, _ in uses for k in keys if k in have))
    kept: set[Key] = set()
    for key in order:
        trial = kept | {key}
        if all(sum(k[0] for k in trial - keys) + own <= budget for keys, own in uses):
            kept = trial
    return kept


def choose(need: FileSet, stored: dict[Key, Stored]) -> tuple[list[Key], list[Key]]:
    """(the kept files the step uses as they are, the kept files it cannot use): a step
    that reads cannot use a file no read has filled; fio lays that one out again."""
    take, drop = [], []
    for key in need.keys():
        kept = stored.get(key)
        if kept is None:
            continue
        (drop if need.reads and not kept.filled else take).append(key)
    return take, drop


def after_step(need: FileSet, taken: dict[Key, Stored], ok: bool, step_id: str
               ) -> dict[Key, Stored]:
    """What the step's files are after it: a taken file as it was (a write into a filled
    file leaves it filled); a file the step made is filled when the step read and fio ended
    well (a layout cut short leaves a file of full length, partly written)."""
    return {key: taken.get(key) or Stored(need.reads and ok, step_id) for key in need.keys()}


def job_file_name(job: str, key: Key) -> str:
    """fio's name for a job's file: `<job name>.<job number>.<file number>`."""
    return f"{job}.{key[1]}.0"


def store_name(key: Key) -> str:
    return f"{key[0]}.{key[1]}"


@dataclass
class StepFiles:
    """One step's share of the run's kept files: what it took, and what it says of them."""

    need: FileSet
    taken: dict[Key, Stored] = field(default_factory=dict)
    dropped: int = 0
    ok: bool = False  # some run of the step ended well
    said: bool = False

    def ran(self, status: str) -> list[str]:
        """After a run of the step: the note saying whether its files were reused or laid
        out (once, for the step's first run; its repetitions use the same files)."""
        self.ok = self.ok or status == "ok"
        if self.said:
            return []
        self.said = True
        return [self.note()]

    def note(self) -> str:
        size, made = fmt_bytes(self.need.size), self.need.jobs - len(self.taken)
        own = "laid out" if self.need.reads else "created"
        parts = []
        if self.taken:
            by = ", ".join(sorted({s.by for s in self.taken.values()}))
            parts.append(f"{len(self.taken)} × {size} reused (made by step {by})")
        if made:
            parts.append(f"{made} × {size} {own} by this step")
        text = "test files: " + "; ".join(parts)
        if self.dropped:
            text += (f" ({self.dropped} kept file(s) made by a write step laid out again: "
                     "preallocated, never written whole)")
        return text


def _store(ctx: StepContext) -> Path:
    return ctx.target.root / STORE


def _load(store: Path) -> dict[Key, Stored]:
    try:
        raw = json.loads((store / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    for name, value in raw.items():
        size, _, job = name.partition(".")
        out[(int(size), int(job))] = Stored(**value)
    return out


def _save(store: Path, stored: dict[Key, Stored]) -> None:
    if not stored:
        (store / MANIFEST).unlink(missing_ok=True)
        return
    store.mkdir(exist_ok=True)
    text = json.dumps({store_name(k): asdict(v) for k, v in sorted(stored.items())})
    (store / MANIFEST).write_text(text, encoding="utf-8")


def shares(ctx: StepContext) -> FileSet | None:
    """The step's file set when it runs here, on files in its scratch directory."""
    if ctx.fleet is not None or ctx.target.remote or ctx.on_cephfs:
        return None
    return file_set(ctx.step)


def take(ctx: StepContext) -> StepFiles | None:
    """Before the step's first run: move the kept files it can use into its scratch
    directory (synced, their cached pages dropped), remove those it cannot."""
    need = shares(ctx)
    if need is None:
        return None
    store = _store(ctx)
    stored = _load(store)
    keys, drop = choose(need, stored)
    files = StepFiles(need, dropped=len(drop))
    for key in drop:
        (store / store_name(key)).unlink(missing_ok=True)
        del stored[key]
    for key in keys:
        src, dst = store / store_name(key), ctx.work_dir / job_file_name(ctx.step.name, key)
        try:
            if src.stat().st_size < need.size:
                raise OSError("short")  # not what it was kept as: fio lays it out
            src.rename(dst)
        except OSError:
            src.unlink(missing_ok=True)
        else:
            settle(dst)
            files.taken[key] = stored[key]
        del stored[key]
    _save(store, stored)
    return files


def put_back(ctx: StepContext, files: StepFiles | None) -> None:
    """After the step (before its directory is removed): keep the files a later step of
    the run uses (as far as the free space checked before the run allows), and remove the
    kept files no later step uses."""
    store = _store(ctx)
    stored = _load(store)
    after = {} if files is None else {
        k: v for k, v in after_step(files.need, files.taken, files.ok, ctx.step.id).items()
        if (ctx.work_dir / job_file_name(ctx.step.name, k)).is_file()}
    budget = max(s.space_bytes for s in (ctx.step, *ctx.later))
    keep = keep_within([*stored, *after], ctx.later, budget)
    for key, state in after.items():
        if key in keep:
            store.mkdir(exist_ok=True)
            (ctx.work_dir / job_file_name(ctx.step.name, key)).rename(store / store_name(key))
            stored[key] = state
    for key in [k for k in stored if k not in keep]:
        (store / store_name(key)).unlink(missing_ok=True)
        del stored[key]
    _save(store, stored)
    if not stored and store.is_dir() and not any(store.iterdir()):
        store.rmdir()


def settle(path: Path) -> None:
    """Write the file's dirty pages out and drop its cached ones: the next job reads the
    device, as it would right after fio laid the file out (fio syncs a layout, and its
    `invalidate` drops clean pages only)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
