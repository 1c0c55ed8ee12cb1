"""Faults the suite must survive: a tool that hangs is stopped by its step's timeout and the
suite goes on; a host that dies mid-step leaves that step partial (the other hosts' results
kept) and the suite goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import run_cli


@pytest.mark.tools
def test_a_hung_tool_is_stopped_by_the_step_timeout_and_the_suite_goes_on(tmp_path):
    """fio told to wait 10 minutes before its job starts stands for any tool that stops
    making progress: the step's `timeout: 4` must end it by PID."""
    target = tmp_path / "t"
    target.mkdir()
    job = tmp_path / "hang.fio"
    job.write_text("[hang]\nfilename=${STACKPROBE_DIR}/hang.dat\nrw=read\nbs=4k\nsize=64k\n"
                   "ioengine=psync\nstartdelay=600\n")
    suite = tmp_path / "s.yaml"
    suite.write_text(f"name: hang\nsteps:\n  - {{kind: fio, job_file: {job}, timeout: 4}}\n"
                     "  - {kind: fio, name: after, rw: read, bs: 4k, size: 4M, runtime: 1, "
                     "time_based: true, ioengine: psync}\n")
    t0 = time.monotonic()
    proc = run_cli(["run", suite, "--target", target, "--out", tmp_path / "runs"], cwd=tmp_path,
                   timeout=120)
    took = time.monotonic() - t0
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    doc = json.loads(next((tmp_path / "runs").glob("*/results.json")).read_text())
    hung, after = doc["steps"]
    assert hung["status"] == "failed" and "timed out after 4 s" in hung["error"]
    assert hung["commands"][0]["timed_out"] is True
    assert after["status"] == "ok"
    assert took < 60
    # the hung fio is gone: no process runs its job file
    assert not [p for p in Path("/proc").iterdir() if p.name.isdigit() and _runs(p, str(job))]


def _runs(proc_dir: Path, arg: str) -> bool:
    try:
        return arg.encode() in (proc_dir / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.root
@pytest.mark.netns
def test_a_host_dying_mid_step_leaves_the_step_partial(tmp_path):
    from stackprobe.lab import netns
    from stackprobe.lab.hosts_lab import HostsLab

    lab = HostsLab(tmp_path / "lab", prefix="spf", log=lambda *_: None)
    lab.up(3)
    try:
        suite = tmp_path / "s.yaml"
        suite.write_text("name: dies\nsteps:\n  - {kind: cpu, hosts: client, seconds: 8}\n"
                         "  - {kind: cpu, hosts: [h1, h3], seconds: 2}\n")
        proc = subprocess.Popen(
            [sys.executable, "-m", "stackprobe", "run", str(suite), "--hosts",
             str(lab.dir / "hosts.yaml"), "--out", str(tmp_path / "runs"), "--target",
             str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out: list[str] = []
        reader = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
        reader.start()
        inode = netns.netns_inode("spf-h2")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _running(inode, "stress-ng"):
            time.sleep(0.3)
        assert _running(inode, "stress-ng"), "stress-ng never started on h2"
        time.sleep(1)
        for pid in netns.pids_in_netns(inode):  # h2 dies: its sshd, sessions and commands
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait(timeout=180)
        reader.join(timeout=10)
    finally:
        lab.down()
    doc = json.loads(next((tmp_path / "runs").glob("*/results.json")).read_text())
    first, second = doc["steps"]
    assert first["status"] == "partial", (first["status"], first["error"], out)
    assert first["findings"]["failed_hosts"] == ["h2"]
    assert "h2:" in first["error"]
    assert {r["host"] for r in first["records"]} == {"h1", "h3"}
    assert second["status"] == "ok"  # the suite went on
    assert doc["run"]["status"] == "failed" and proc.returncode == 1


def _running(inode: int | None, name: str) -> bool:
    from stackprobe.lab import netns

    if inode is None:
        return False
    for pid in netns.pids_in_netns(inode):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip().startswith(name):
                return True
        except OSError:
            pass
    return False
