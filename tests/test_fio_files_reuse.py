"""Which fio steps of a run share laid-out test files, when kept files go, and resume.

Pure decisions on planned steps from real suites, and the moves between a step's scratch
directory and the run's store on real files (no fio: the files stand for what fio made).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from stackprobe.engine.executor import Executor, RunSettings
from stackprobe.kinds.context import StepContext, TargetInfo
from stackprobe.kinds.fio.layout import (
    MANIFEST,
    STORE,
    FileSet,
    StepFiles,
    Stored,
    after_step,
    choose,
    file_set,
    job_file_name,
    keep_within,
    needed_by,
    put_back,
    take,
)
from stackprobe.plan.expand import expand
from stackprobe.store.rundir import RunDir
from stackprobe.suite.loader import parse_suite
from stackprobe.transport.local import LocalTransport

SWEEP = """\
name: sweep
steps:
  - kind: fio
    rw: [randread, randwrite]
    bs: 4k
    iodepth: [1, 16]
    numjobs: [1, 2]
    size: 1M
    runtime: 1s
    time_based: true
    ioengine: libaio
    direct: 1
"""
MB = 1024**2


def plan(text: str = SWEEP):
    return expand(parse_suite(text, "s.yaml"), Path("/nonexistent"))


def one(fields: str):
    return plan(f"name: s\nsteps:\n  - kind: fio\n{fields}")[0]


# ------------------------------------------------------------------ which steps share
def test_the_points_of_a_sweep_share_files_job_number_by_job_number():
    steps = plan()
    sets = [file_set(s) for s in steps]
    assert all(fs is not None and fs.size == MB for fs in sets)
    assert [fs.jobs for fs in sets] == [1, 2, 1, 2, 1, 2, 1, 2]
    assert [fs.reads for fs in sets] == [True] * 4 + [False] * 4
    assert needed_by(steps) == {(MB, 0), (MB, 1)}
    assert needed_by(steps[4:]) == {(MB, 0), (MB, 1)}
    assert needed_by([steps[0], steps[2]]) == {(MB, 0)}


@pytest.mark.parametrize("fields", [
    "    job_file: x.fio\n",  # a job file names its own files
    "    size: 1M\n    target: rbd\n",
    "    size: 1M\n    target: cephfs\n",
    "    size: 1M\n    ioengine: 'null'\n",
    "    size: 1M\n    rw: randtrim\n",
    "    size: 1M\n    options: {nrfiles: 4}\n",
    "    size: 1M\n    options: {filename: data.bin}\n",
    "    size: 1M\n    options: {unlink: 1}\n",
    "    size: 1M\n    options: {offset_increment: 1M}\n",
    "    rw: read\n",  # no size: fio would size by what it finds
])
def test_steps_whose_files_are_their_own_share_nothing(fields, tmp_path, monkeypatch):
    (tmp_path / "x.fio").write_text("[x]\nrw=read\nsize=1M\n")
    monkeypatch.chdir(tmp_path)
    steps = expand(parse_suite(f"name: s\nsteps:\n  - kind: fio\n{fields}", "s.yaml"), tmp_path)
    step = next(s for s in steps if s.kind == "fio")
    assert file_set(step) is None


def test_a_step_on_hosts_or_a_device_shares_nothing():
    step = one("    size: 1M\n")
    assert file_set(step) is not None
    assert file_set(replace(step, hosts=("h1",))) is None
    assert file_set(replace(step, device=object())) is None


def test_other_kinds_steps_need_no_kept_files():
    steps = plan("name: s\nsteps:\n  - kind: slo\n    rw: randread\n    size: 1M\n"
                 "    limit: 5ms\n    max: 2\n")
    assert [file_set(s) for s in steps] == [None]


def test_different_sizes_do_not_share():
    a, b = one("    size: 1M\n"), one("    size: 2M\n")
    assert needed_by([a]).isdisjoint(needed_by([b]))


def test_kept_files_never_fill_the_target_beyond_what_pre_flight_checked():
    small, big, small_again = (one(f"    rw: randread\n    size: {n}\n") for n in ("1M", "4M", "1M"))
    budget = big.space_bytes
    # kept beside the 4M step's own files, a 1M file would need 5M: not kept, laid out again
    assert keep_within([(MB, 0)], [big, small_again], budget) == set()
    assert keep_within([(MB, 0)], [small_again], budget) == {(MB, 0)}
    # numjobs 2 then 1: job 1's file waits beside the smaller step within the largest's data
    steps = plan()
    assert keep_within([(MB, 0), (MB, 1)], steps[2:], 2 * MB) == {(MB, 0), (MB, 1)}
    assert keep_within([(MB, 0), (MB, 1)], [], 2 * MB) == set()


# ------------------------------------------------------------------ what a step takes
def test_a_read_never_takes_a_file_only_a_write_made():
    need = FileSet(MB, 2, reads=True)
    stored = {(MB, 0): Stored(True, "01-r"), (MB, 1): Stored(False, "02-w")}
    assert choose(need, stored) == ([(MB, 0)], [(MB, 1)])


def test_a_write_takes_filled_and_preallocated_files():
    need = FileSet(MB, 2, reads=False)
    stored = {(MB, 0): Stored(True, "01-r"), (MB, 1): Stored(False, "02-w")}
    assert choose(need, stored) == ([(MB, 0), (MB, 1)], [])


def test_files_of_another_size_or_job_number_are_not_taken():
    assert choose(FileSet(MB, 1, True), {(2 * MB, 0): Stored(True, "x"),
                                         (MB, 1): Stored(True, "x")}) == ([], [])


def test_a_read_that_ended_well_fills_what_it_laid_out():
    need = FileSet(MB, 2, reads=True)
    taken = {(MB, 0): Stored(True, "01-r")}
    assert after_step(need, taken, True, "03-r") == {
        (MB, 0): Stored(True, "01-r"), (MB, 1): Stored(True, "03-r")}
    # cut short: fio may have left a full-length file partly written
    assert after_step(need, taken, False, "03-r")[(MB, 1)] == Stored(False, "03-r")


def test_a_write_leaves_filled_files_filled_and_its_own_preallocated():
    need = FileSet(MB, 2, reads=False)
    after = after_step(need, {(MB, 0): Stored(True, "01-r")}, True, "05-w")
    assert after == {(MB, 0): Stored(True, "01-r"), (MB, 1): Stored(False, "05-w")}


# ------------------------------------------------------------------ moving real files
def ctx_for(step, root: Path, later=()) -> StepContext:
    return StepContext(step, LocalTransport(), None, TargetInfo(root=root), 10.0,
                       later=tuple(later))


def fio_made(ctx: StepContext, jobs: int, size: int = MB) -> list[Path]:
    """What fio leaves in the step's directory: its files, by its names, and a log."""
    ctx.work_dir.mkdir(parents=True, exist_ok=True)
    paths = [ctx.work_dir / job_file_name(ctx.step.name, (size, j)) for j in range(jobs)]
    for p in paths:
        p.write_bytes(os.urandom(size))
    (ctx.work_dir / "persec_iops.1.log").write_text("1000, 5, 0, 0, 0\n")
    return paths


def run_step(step, root: Path, later, status="ok", remove=True):
    ctx = ctx_for(step, root, later)
    ctx.work_dir.mkdir(parents=True, exist_ok=True)
    files = take(ctx)
    reused = sorted(p.name for p in ctx.work_dir.iterdir())
    missing = [j for j in range(files.need.jobs)
               if not (ctx.work_dir / job_file_name(step.name, (files.need.size, j))).exists()]
    made = fio_made(ctx, files.need.jobs)  # fio: lays out what is missing
    assert all(p.stat().st_size == MB for p in made)
    note = files.ran(status)
    put_back(ctx, files)
    if remove:
        shutil.rmtree(ctx.work_dir)
    return reused, missing, note


def stored(root: Path) -> list[str]:
    store = root / STORE
    return sorted(p.name for p in store.iterdir()) if store.is_dir() else []


def test_a_sweep_lays_out_once_and_removes_the_files_after_their_last_step(tmp_path):
    steps = plan()
    notes = []
    for i, step in enumerate(steps):
        reused, missing, note = run_step(step, tmp_path, steps[i + 1:])
        notes.append(note[0])
        if i == 0:
            assert (reused, missing) == ([], [0])
            assert stored(tmp_path) == [f"{MB}.0", MANIFEST]
        if i == 1:  # numjobs 2: job 0's file reused, job 1's laid out
            assert reused == [job_file_name(step.name, (MB, 0))] and missing == [1]
        if i >= 2:
            assert missing == [], (i, notes)
        if 0 < i < len(steps) - 1:
            assert stored(tmp_path) == [f"{MB}.0", f"{MB}.1", MANIFEST]
    assert notes[0] == "test files: 1 × 1.00 MiB laid out by this step"
    assert notes[1] == ("test files: 1 × 1.00 MiB reused (made by step 01-randread-4k-randread-1-1); "
                        "1 × 1.00 MiB laid out by this step")
    assert notes[7] == ("test files: 2 × 1.00 MiB reused (made by step 01-randread-4k-randread-1-1, "
                        "02-randread-4k-randread-1-2)")
    assert not (tmp_path / STORE).exists()  # nothing left once no step needs them


def test_files_no_later_step_uses_are_not_kept(tmp_path):
    steps = plan()
    only_one_job = [s for s in steps if s.spec.numjobs == 1]
    # step 2 (numjobs 2) is the last to use job 1's file: it goes with the step
    run_step(steps[1], tmp_path, only_one_job)
    assert stored(tmp_path) == [f"{MB}.0", MANIFEST]
    run_step(only_one_job[0], tmp_path, [])
    assert stored(tmp_path) == []


def test_a_read_after_writes_lays_out_the_files_the_writes_made(tmp_path):
    read, write = one("    rw: randread\n    size: 1M\n"), one("    rw: randwrite\n    size: 1M\n")
    run_step(write, tmp_path, [read])
    assert stored(tmp_path) == [f"{MB}.0", MANIFEST]
    reused, missing, note = run_step(read, tmp_path, [])
    assert (reused, missing) == ([], [0])
    assert "laid out again" in note[0]


def test_a_read_cut_short_does_not_leave_its_files_as_filled(tmp_path):
    steps = plan()
    run_step(steps[0], tmp_path, steps[2:3], status="interrupted")
    reused, missing, _ = run_step(steps[2], tmp_path, [])
    assert missing == [0]


def test_repetitions_say_it_once():
    sf = StepFiles(file_set(one("    size: 1M\n")))
    assert len(sf.ran("failed")) == 1 and sf.ran("ok") == [] and sf.ok


def test_a_reused_file_leaves_the_page_cache(tmp_path):
    steps = plan()
    run_step(steps[0], tmp_path, steps[2:])
    kept = tmp_path / STORE / f"{MB}.0"
    with open(kept, "r+b") as f:  # a buffered write: dirty pages in the cache
        f.write(b"x" * 4096)
    assert cached_bytes(kept) >= 4096
    ctx = ctx_for(steps[2], tmp_path, steps[3:])
    ctx.work_dir.mkdir(parents=True)
    take(ctx)
    path = ctx.work_dir / job_file_name(steps[2].name, (MB, 0))
    assert cached_bytes(path) == 0


def cached_bytes(path: Path) -> int:
    """Bytes of the file in the page cache, as util-linux's fincore counts them."""
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return int(out.strip())


# ------------------------------------------------------------------ resume
def test_resume_lays_out_again_and_counts_only_the_steps_still_to_run(tmp_path):
    steps = plan()
    run = RunDir.create(tmp_path / "runs", "r1")
    ex = Executor(steps, RunSettings("s", "s.yaml", SWEEP, str(tmp_path)), LocalTransport(),
                  run, tmp_path / "runs", TargetInfo(root=tmp_path / "scratch"))
    for result in ex.results.steps[4:]:
        result.status = "ok"  # done before the run was cut short: resume keeps them
    ctx = ex._context_maker(steps[0])(None)
    assert ctx.later == tuple(steps[1:4])
    # a resumed run has a fresh scratch directory: nothing kept, the step lays out again
    (tmp_path / "scratch").mkdir()
    reused, missing, note = run_step(steps[1], tmp_path / "scratch", steps[2:4])
    assert (reused, missing) == ([], [0, 1])
    assert note == ["test files: 2 × 1.00 MiB laid out by this step"]
