"""`stackprobe resume`: a run cut short by SIGKILL finishes, and every step completed before
the kill is present, unchanged, exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import run_cli

SUITE = """\
name: resumable
defaults: {ioengine: psync, size: 8M, runtime: 2, time_based: true}
steps:
  - {kind: fio, name: a, rw: randread, bs: 4k}
  - {kind: fio, name: b, rw: randwrite, bs: 4k}
  - {kind: fio, name: c, rw: read, bs: 64k}
  - {kind: fio, name: d, rw: write, bs: 64k}
"""


def _results(out: Path) -> tuple[Path, dict]:
    run = next(p for p in out.iterdir() if p.is_dir())
    return run, json.loads((run / "results.json").read_text())


@pytest.mark.slow
def test_sigkill_mid_suite_then_resume(tmp_path):
    suite, out, target = tmp_path / "s.yaml", tmp_path / "runs", tmp_path / "t"
    suite.write_text(SUITE)
    target.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "stackprobe", "run", str(suite), "--target",
                             str(target), "--out", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        done: list = []
        while time.monotonic() < deadline:
            time.sleep(0.2)
            try:
                _, doc = _results(out)
            except (StopIteration, FileNotFoundError, json.JSONDecodeError):
                continue
            done = [s for s in doc["steps"] if s["status"] == "ok"]
            # two steps done and the third's monitor (sadc, in a session of its own) running
            if len(done) >= 2 and _running_with(f"stackprobe-{doc['run']['id']}/monitor.sa"):
                break
        assert len(done) >= 2, "the run never completed two steps"
        os.killpg(proc.pid, signal.SIGKILL)  # the controller and whatever fio it had started
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    run, before = _results(out)
    assert before["run"]["status"] == "running"  # cut short: never finished
    kept = {s["id"]: s for s in before["steps"] if s["status"] in ("ok", "failed")}
    kept_files = {p: p.read_bytes() for sid in kept for p in (run / "steps" / sid).rglob("*")
                  if p.is_file()}
    assert len(kept) >= 2 and len(kept) < 4

    scratch = str(target / f"stackprobe-{before['run']['id']}") + "/"
    proc2 = run_cli(["resume", run.name, "--out", out, "--quiet"], cwd=tmp_path, check=0)
    assert "steps kept" in proc2.stdout
    # the killed run's monitor (sadc, in its own session) was found and stopped
    assert "stopped" in proc2.stdout and not _running_with(scratch)
    after = json.loads((run / "results.json").read_text())
    assert after["run"]["status"] == "ok" and after["run"]["resumed"]
    assert [s["id"] for s in after["steps"]] == [s["id"] for s in before["steps"]]
    assert all(s["status"] == "ok" for s in after["steps"])
    for sid, step in kept.items():  # unchanged, once
        assert next(s for s in after["steps"] if s["id"] == sid) == step
    for step in after["steps"]:  # resumed --quiet: fio ran without live intervals
        if step["id"] not in kept:
            fio = [c["argv"] for c in step["commands"] if c["argv"][0] == "fio"]
            assert fio and not any("--status-interval" in " ".join(a) for a in fio), fio
    for path, data in kept_files.items():
        assert path.read_bytes() == data
    assert [p.name for p in target.iterdir()] == []  # the cut-short run's test files are gone
    again = run_cli(["resume", run.name, "--out", out], cwd=tmp_path, check=2)
    assert "nothing to resume" in again.stderr


@pytest.mark.tools
def test_resume_refuses_a_changed_suite_and_a_live_run(tmp_path):
    suite, out, target = tmp_path / "s.yaml", tmp_path / "runs", tmp_path / "t"
    suite.write_text(SUITE.replace("runtime: 2", "runtime: 1"))
    target.mkdir()
    run_cli(["run", suite, "--target", target, "--out", out], cwd=tmp_path, check=0)
    run, doc = _results(out)
    doc["steps"][3]["status"] = "pending"
    doc["run"]["status"] = "running"
    # a live process that looks like a stackprobe controller holds the run
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "stackprobe"])
    try:
        doc["run"]["pid"] = holder.pid
        (run / "results.json").write_text(json.dumps(doc))
        live = run_cli(["resume", run, "--out", out], cwd=tmp_path, check=2)
        assert f"still being run by process {holder.pid}" in live.stderr
    finally:
        holder.kill()
        holder.wait()
    doc["run"]["pid"] = None
    (run / "results.json").write_text(json.dumps(doc))
    (run / "suite.yaml").write_text((run / "suite.yaml").read_text().replace("bs: 64k", "bs: 1M"))
    changed = run_cli(["resume", run, "--out", out], cwd=tmp_path, check=2)
    assert "no longer expands to the run's steps" in changed.stderr


def _running_with(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line names `marker`."""
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if marker.encode() not in (proc / "cmdline").read_bytes():
                continue
            if (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                out.append(int(proc.name))
        except OSError:
            continue
    return out
