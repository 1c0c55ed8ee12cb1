"""The io500-like suite on a real directory, and metadata layouts (easy/hard) with real fio.

What must hold: all twelve IO500 phases ran in IO500's order with their figures in IO500's
units; the score is IO500's formula over them and carries the 'not an official IO500
score' label everywhere it is shown; the hard bandwidth phase really interleaves 47008-byte
transfers of every process in one shared file; find finds exactly the files IO500's find
criteria select; metadata 'easy' puts each process in its own directory and 'hard' all in
one; nothing is left in the target directory.
"""

from __future__ import annotations

import json
import math
import os

import pytest

from conftest import run_cli
from stackprobe.kinds.fio.fio_job import build_metadata_job, metadata_dirs
from stackprobe.kinds.hpc.io500_like import Io500LikeStep
from stackprobe.kinds.hpc.io500_like_jobs import PHASES, Client, phase_job

# beside the one-at-a-time system tests (tests/run_tiers.py): it checks phases, units and the score's formula, never a level
pytestmark = [pytest.mark.slow, pytest.mark.beside]

SUITE = """\
name: io500-like-test
steps:
  - kind: io500_like
    name: io5
    numjobs: 2
    easy_size: 16m
    hard_transfers: 200
    md_easy_files: 300
    md_hard_files: 250
    stripe: {ior-hard: {count: -1, size: 1M}}
  - kind: metadata
    name: md
    files: 200
    numjobs: 2
    file_size: 3901
    layout: [easy, hard]
    operations: [create, write, stat, read, delete]
    stripe: {count: 2}
"""
LABEL = "io500-like, not an official IO500 score"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("io500like")
    (d / "suite.yaml").write_text(SUITE)
    target = d / "target"
    target.mkdir()
    proc = run_cli(["run", d / "suite.yaml", "--target", target, "--out", d / "runs",
                    "--no-monitor"], timeout=600)
    run_dir = next((d / "runs").glob("*-io500-like-test"))
    results = json.loads((run_dir / "results.json").read_text())
    return proc, results, run_dir, target


def _step(results, name):
    return next(s for s in results["steps"] if s["name"] == name)


def test_run_ok_and_target_left_empty(run):
    proc, results, _, target = run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert all(s["status"] == "ok" for s in results["steps"]), [s["error"] for s in results["steps"]]
    assert list(target.iterdir()) == []


def test_twelve_phases_in_io500_order_and_units(run):
    _, results, _, _ = run
    [rec] = [r for r in _step(results, "io5")["records"] if r["type"] == "io500"]
    assert [p["name"] for p in rec["phases"]] == [name for name, _ in PHASES]
    for p in rec["phases"]:
        assert p["unit"] == ("GiB/s" if p["kind"] == "bw" else "kIOPS")
        assert p["value"] > 0 and p["scored"]
    assert rec["official"] is False and rec["label"] == LABEL
    short = [p["name"] for p in rec["phases"] if p["name"] != "find" and p.get("time_s", 0) < 0.1]
    warned = [w.split(" ran ")[0] for w in _step(results, "io5")["warnings"] if "raise its size" in w]
    assert short and warned == short  # tiny test sizes: fio's millisecond clock is too coarse


def test_score_is_io500_formula_over_the_phases(run):
    _, results, _, _ = run
    [rec] = [r for r in _step(results, "io5")["records"] if r["type"] == "io500"]
    bw = [p["value"] for p in rec["phases"] if p["kind"] == "bw"]
    md = [p["value"] for p in rec["phases"] if p["kind"] == "md"]
    assert len(bw) == 4 and len(md) == 8
    gbw = math.prod(bw) ** (1 / 4)
    gmd = math.prod(md) ** (1 / 8)
    s = rec["score_computed"]
    assert s["bw"] == pytest.approx(gbw, rel=1e-9) and s["md"] == pytest.approx(gmd, rel=1e-9)
    assert s["total"] == pytest.approx(math.sqrt(gbw * gmd), rel=1e-9)


def test_phase_figures_come_from_fio_records(run):
    _, results, _, _ = run
    recs = _step(results, "io5")["records"]
    [rec] = [r for r in recs if r["type"] == "io500"]
    value = {p["name"]: p["value"] for p in rec["phases"]}
    io = {r["job"]: r for r in recs if r["type"] == "io"}
    ops = {r["operation"]: r for r in recs if r["type"] == "ops"}
    assert io["ior-hard-write"]["write"]["bw_bytes"] / 2**30 == pytest.approx(
        value["ior-hard-write"])
    assert io["ior-hard-write"]["write"]["total_ios"] == 2 * 200
    assert io["ior-hard-write"]["write"]["io_bytes"] == 2 * 200 * 47008
    assert ops["mdtest-hard-stat"]["ops_per_s"] / 1000 == pytest.approx(value["mdtest-hard-stat"])
    assert ops["mdtest-easy-write"]["total_ops"] == 2 * 300
    assert ops["mdtest-hard-read"]["total_ops"] == 2 * 250


def test_striping_without_lfs_is_a_warning_not_a_failure(run):
    """No Lustre here: the step says striping was not applied and runs on."""
    _, results, _, _ = run
    assert "lfs not found: striping for ior-hard not applied" in _step(results, "io5")["warnings"]
    for layout in ("easy", "hard"):
        assert "lfs not found: striping for . not applied" in _step(
            results, f"md-{layout}")["warnings"]


def test_find_finds_what_io500_find_selects(run):
    """newer than the timestamp (mdtest-hard files only), 3901 bytes, '01' in the name."""
    _, results, _, _ = run
    [rec] = [r for r in _step(results, "io5")["records"] if r["type"] == "io500"]
    find = next(p for p in rec["phases"] if p["name"] == "find")
    expected = sum("01" in f"f.{j}.{n}" for j in range(2) for n in range(250))
    assert find["details"] == {"found": expected, "total_files": 2 * 300 + 2 * 250}


def test_label_shown_in_every_report(run):
    proc, _, run_dir, _ = run
    assert LABEL in proc.stdout
    for fmt in ("md", "html", "csv"):
        run_cli(["report", run_dir, "-f", fmt], check=0)
        assert LABEL in (run_dir / f"report.{fmt}").read_text(), fmt
    md = (run_dir / "report.md").read_text()
    assert "## IO500 phases: io500-like phases" in md and "| mdtest-hard-read | md |" in md


def test_metadata_layouts_give_every_operation(run):
    _, results, run_dir, _ = run
    for layout in ("easy", "hard"):
        step = _step(results, f"md-{layout}")
        ops = {r["operation"]: r for r in step["records"]}
        assert list(ops) == ["create", "write", "stat", "read", "delete"]
        for r in ops.values():
            assert r["layout"] == layout and r["total_ops"] == 2 * 200 and r["ops_per_s"] > 0
        job = (run_dir / "steps" / step["id"] / "metadata.fio").read_text()
        names = "easy.$jobnum/f.$filenum" if layout == "easy" else "hard/f.$jobnum.$filenum"
        assert f"filename_format={names}" in job


def test_hard_write_interleaves_processes_in_one_file(tmp_path):
    """Run the ior-hard-write job alone and read the file back: transfer k of process i
    sits at (k * N + i) * 47008, the whole file written, no gap, no overlap."""
    import subprocess

    (tmp_path / "ior-hard").mkdir()
    spec = Io500LikeStep(kind="io500_like", numjobs=3, hard_transfers=5)
    job = phase_job("ior-hard-write", spec, str(tmp_path))
    job = job.replace("[ior-hard-write]", "buffer_pattern=0x00\n[ior-hard-write]")
    job += "verify=pattern\nverify_pattern=%o\ndo_verify=0\n"  # each block stamped with its offset
    job += "verify_state_save=0\n"  # no local-<job>-verify.state files where fio runs
    (tmp_path / "h.fio").write_text(job)
    subprocess.run(["fio", "--output-format=json", str(tmp_path / "h.fio")], check=True,
                   capture_output=True, cwd=tmp_path)
    assert not list(tmp_path.glob("*verify.state"))
    data = (tmp_path / "ior-hard" / "file").read_bytes()
    assert len(data) == 3 * 5 * 47008
    for block in range(15):
        chunk = data[block * 47008:(block + 1) * 47008]
        assert int.from_bytes(chunk[:8], "little") == block * 47008, block


def test_hard_write_interleaves_every_clients_processes(tmp_path):
    """Three clients of two processes each, through a real fio server as a fleet runs
    them, on one file made at its full size: block b holds process b mod 6's transfer,
    each block written, nothing written beside the one shared file (fio's server would
    prefix each client's file names with its address unless told not to)."""
    import socket
    import subprocess
    import time

    from stackprobe.kinds.fio.fio_fleet import client_args

    (tmp_path / "ior-hard").mkdir()
    spec = Io500LikeStep(kind="io500_like", numjobs=2, hard_transfers=4)
    size = 3 * 2 * 4 * 47008
    (tmp_path / "ior-hard" / "file").write_bytes(b"")
    os.truncate(tmp_path / "ior-hard" / "file", size)  # as the fleet's prepare makes it
    jobs = []
    for i in range(3):
        job = phase_job("ior-hard-write", spec, str(tmp_path), Client(f"h{i}.", 2 * i, 6, f"@h{i}"))
        job = job.replace(f"[ior-hard-write@h{i}]", f"buffer_pattern=0x00\n[ior-hard-write@h{i}]")
        job += "verify=pattern\nverify_pattern=%o\ndo_verify=0\nverify_state_save=0\n"
        (tmp_path / f"h{i}.fio").write_text(job)
        jobs.append(("127.0.0.1", tmp_path / f"h{i}.fio"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(["fio", f"--server=ip:127.0.0.1,{port}"], cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        for host, job in jobs:  # one client at a time: one server here, three hosts in a fleet
            subprocess.run(["fio", "--output-format=json", *client_args([(host, job)], port)],
                           check=True, capture_output=True, timeout=120)
    finally:
        server.terminate()  # this PID only
        server.wait(timeout=10)
    assert sorted(p.name for p in (tmp_path / "ior-hard").iterdir()) == ["file"]
    data = (tmp_path / "ior-hard" / "file").read_bytes()
    assert len(data) == size
    for block in range(24):
        chunk = data[block * 47008:(block + 1) * 47008]
        assert int.from_bytes(chunk[:8], "little") == block * 47008, block


def test_fleet_needs_one_file_system_every_client_sees():
    with pytest.raises(ValueError, match="target: cephfs, or directory"):
        Io500LikeStep(kind="io500_like", hosts="client")
    Io500LikeStep(kind="io500_like", hosts="client", target="cephfs")
    Io500LikeStep(kind="io500_like", hosts="client", directory="/mnt/lustre")
    with pytest.raises(ValueError, match="directory: is for steps with hosts"):
        Io500LikeStep(kind="io500_like", directory="/mnt/lustre")


def test_metadata_directories_per_layout():
    assert metadata_dirs("easy", 3, "h1.") == ["easy.h1.0", "easy.h1.1", "easy.h1.2"]
    assert metadata_dirs("hard", 3) == ["hard"]
    job = build_metadata_job("m", "/d", files=5, numjobs=2, file_size="3901",
                             operations=["write", "read"], layout="hard", owner="h2.",
                             job_suffix="@h2")
    assert "filename_format=hard/f.h2.$jobnum.$filenum" in job
    assert "[write@h2]" in job and "create_on_open=1" in job and "[read@h2]" in job
