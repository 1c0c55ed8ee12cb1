"""Bad input and failures: each gives a clear line, keeps what was measured, cleans up.

Real faults where they can be caused for real: a PATH without fio, a job that makes fio
fail with err=21, a read-only tmpfs, a tmpfs too small, SIGINT/SIGTERM mid-step.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import STACKPROBE, run_cli
from stackprobe.store.rundir import load_results

# beside the one-at-a-time system tests (tests/run_tiers.py): failures and interrupts: its one time limit (stopped well before a 60 s runtime) only gets harder to miss when slower
pytestmark = pytest.mark.beside

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting tmpfs needs root")


@contextlib.contextmanager
def tmpfs(path: Path, options: str):
    """A tmpfs mounted for the test and always unmounted."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=False)


def _run_dir(runs: Path) -> Path:
    (only,) = [p for p in runs.iterdir() if p.is_dir()]
    return only


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_fio_missing_is_one_line_with_apt_get(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "lscpu", "lsblk", "sysbench", "nproc"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    proc = run_cli(["run", "--out", tmp_path / "runs"], cwd=tmp_path,
                   env={"PATH": str(bin_dir)}, check=2)
    line = _one_line(proc.stderr)
    assert "fio not installed" in line and "apt-get install -y fio" in line
    assert not (tmp_path / "runs").exists(), "refused before any run directory or I/O"
    assert not any(p.name.startswith("stackprobe-") for p in tmp_path.iterdir())


FAILING_SUITE = """
name: failing
steps:
  - kind: fio
    job_file: clash.fio
  - kind: fio
    rw: read
    bs: 4k
    size: 8M
    runtime: 1
"""

# fio fails with err=21 (EISDIR) when the file a job writes is a directory: here the
# step's own scratch directory, which exists when fio starts.
CLASH_JOB = """
[clash]
filename=${STACKPROBE_DIR}
rw=write
bs=4k
size=1M
"""


def _failing_suite(tmp_path: Path) -> Path:
    (tmp_path / "clash.fio").write_text(CLASH_JOB)
    suite = tmp_path / "failing.yaml"
    suite.write_text(FAILING_SUITE)
    return suite


@pytest.mark.tools
def test_fio_failure_is_recorded_and_suite_goes_on(tmp_path):
    suite = _failing_suite(tmp_path)
    target = tmp_path / "target"
    target.mkdir()
    proc = run_cli(["run", suite, "--target", target, "--out", tmp_path / "runs"],
                   cwd=tmp_path, check=1)
    run_dir = _run_dir(tmp_path / "runs")
    results = load_results(run_dir)
    first, second = results.steps
    assert first.status == "failed"
    assert "err=21" in first.error and "Is a directory" in first.error, first.error
    assert second.status == "ok", "the suite goes on after a failed step"
    assert results.run.status == "failed"
    raw = (run_dir / "steps" / first.id / "fio.stderr").read_text()
    assert "Is a directory" in raw, "fio's own output is kept"
    assert (run_dir / "steps" / first.id / "clash.fio").read_text() == CLASH_JOB
    assert "failed" in proc.stdout
    assert list(target.iterdir()) == []

    proc = run_cli(["run", suite, "--target", target, "--out", tmp_path / "runs2", "--fail-fast"],
                   cwd=tmp_path, check=1)
    results = load_results(_run_dir(tmp_path / "runs2"))
    assert [s.status for s in results.steps] == ["failed", "skipped"]


@needs_root
def test_read_only_target_refused_before_io(tmp_path):
    with tmpfs(tmp_path / "ro", "ro,size=4m") as ro:
        proc = run_cli(["run", "--target", ro, "--out", tmp_path / "runs"], cwd=tmp_path, check=2)
        line = _one_line(proc.stderr)
        assert "not writable" in line and str(ro) in line
        assert not (tmp_path / "runs").exists()


@needs_root
def test_too_little_space_refused_with_figures(tmp_path):
    with tmpfs(tmp_path / "small", "size=16m") as small:
        proc = run_cli(["run", "--target", small, "--out", tmp_path / "runs"], cwd=tmp_path, check=2)
        line = _one_line(proc.stderr)
        assert "needs" in line and "free" in line and "MiB" in line
        assert "11-4m-throughput-write" in line, "names the step that needs the most"
        assert list(small.iterdir()) == []


def test_bad_suite_is_one_line(tmp_path):
    (tmp_path / "bad.yaml").write_text("name: b\nsteps:\n  - kind: fio\n    iodepth: -3\n")
    proc = run_cli(["run", "bad.yaml"], cwd=tmp_path, check=2)
    assert _one_line(proc.stderr).startswith("stackprobe: bad.yaml:4: steps[0].iodepth:")
    proc = run_cli(["plan", "bad.yaml"], cwd=tmp_path, check=2)
    assert "bad.yaml:4" in proc.stderr


LONG_SUITE = """
name: long
steps:
  - kind: fio
    name: first
    rw: randread
    bs: 4k
    size: 16M
    runtime: 1
    time_based: true
  - kind: fio
    name: second
    rw: randread
    bs: 4k
    size: 16M
    runtime: 60
    time_based: true
  - kind: fio
    name: third
    rw: read
    bs: 4k
    size: 16M
    runtime: 1
"""


@pytest.mark.tools
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_keeps_results_and_removes_test_files(tmp_path, sig):
    (tmp_path / "long.yaml").write_text(LONG_SUITE)
    target = tmp_path / "target"
    target.mkdir()
    proc = subprocess.Popen(
        STACKPROBE + ["run", "long.yaml", "--target", str(target), "--out", str(tmp_path / "runs")],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        results_file = None
        deadline = time.time() + 60
        while time.time() < deadline:  # wait until the 60 s step is running
            found = list((tmp_path / "runs").glob("*/results.json"))
            if found:
                results_file = found[0]
                if '"name": "second"' in results_file.read_text() and \
                        (results_file.parent / "steps" / "02-second").exists():
                    break
            time.sleep(0.2)
        time.sleep(2)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (out[-2000:], err[-2000:])
    assert "Traceback" not in err
    results = load_results(results_file.parent)
    assert [s.status for s in results.steps] == ["ok", "interrupted", "skipped"]
    assert results.run.status == "interrupted"
    assert results.steps[0].summary.headline_value > 0, "the finished step is kept"
    second = results.steps[1]
    assert second.duration_s < 30, "stopped well before its 60 s runtime"
    # fio reported what it had measured when it was stopped
    assert second.records and second.records[0].read.total_ios > 0
    assert list(target.iterdir()) == [], "test files removed"
    assert not _fio_children_left(proc.pid)


def _fio_children_left(parent_pid: int) -> bool:
    """Any fio process whose parent was the stopped stackprobe (checked by PID)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1: stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if comm == "fio" and ppid == parent_pid:
            return True
    return False


def test_python_module_entry_point_version():
    proc = subprocess.run([sys.executable, "-m", "stackprobe", "--version"],
                          capture_output=True, text=True, check=True)
    assert proc.stdout.startswith("stackprobe ")
