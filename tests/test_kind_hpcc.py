"""The hpl and stream steps on this machine with Debian's hpcc, Open MPI and OpenBLAS: a
small N on two processes (seconds), the raw files kept, a FAILED residual and a killed hpcc
failing the step without a figure."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import STACKPROBE, run_cli

pytestmark = [pytest.mark.tools, pytest.mark.slow]

SUITE = """name: hpcc
steps:
  - {kind: hpl, n: 2000, processes: 2}
  - {kind: stream, n: 2000, processes: 2}
"""


def _run(tmp_path: Path, suite: str, check: int) -> tuple[Path, dict]:
    (tmp_path / "s.yaml").write_text(suite)
    run_cli(["run", "s.yaml", "--target", tmp_path, "--out", tmp_path / "runs", "--no-monitor"],
            cwd=tmp_path, check=check)
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    return run_dir, json.loads((run_dir / "results.json").read_text())


def test_hpl_and_stream_on_two_processes(tmp_path):
    run_dir, results = _run(tmp_path, SUITE, check=0)
    hpl, stream = results["steps"]
    assert hpl["status"] == stream["status"] == "ok", (hpl.get("error"), stream.get("error"))
    [rec] = hpl["records"]
    assert rec["type"] == "hpcc" and rec["complete"] and rec["success"] and rec["procs"] == 2
    t = rec["hpl"]
    assert (t["n"], t["nb"], t["p"], t["q"], t["passed"]) == (2000, 192, 1, 2, True)
    assert t["residual"] < t["residual_threshold"] and t["flops_per_s"] > 1e9
    assert rec["blas"].startswith("openblas-pthread ")
    [srec] = stream["records"]
    assert all(srec["stream_bw_bytes"][f"star_{k}"] > 1e8 for k in ("copy", "scale", "add", "triad"))
    for step in (hpl, stream):  # the raw files and the hpccinf.txt used stay with the step
        d = run_dir / "steps" / step["id"]
        assert "N=2000" not in (d / "hpccinf.txt").read_text()
        assert (d / "hpccinf.txt").read_text().splitlines()[5].split()[0] == "2000"
        assert "End of Summary section." in (d / "hpccoutf.txt").read_text()
    shown = " ".join(run_cli(["show", run_dir], check=0).stdout.split())
    assert "HPL, N=2000 NB=192 P x Q=1x2" in shown and "Gflop/s" in shown
    assert "STREAM triad (all processes)" in shown
    assert list((tmp_path).glob("stackprobe-*")) == []  # the work directory is removed


def test_a_failed_residual_fails_the_step_without_a_figure(tmp_path):
    """A threshold no solve can meet: HPL prints FAILED, hpcc Success=0."""
    inf = (Path(__file__).parent / "fixtures/synthetic/hpccinf/n2000-1x2.txt").read_text().splitlines()
    inf[12] = "1e-30         residual threshold"
    (tmp_path / "strict.txt").write_text("\n".join(inf) + "\n")
    run_dir, results = _run(tmp_path, "name: strict\nsteps:\n  - {kind: hpl, hpccinf: strict.txt}\n",
                            check=1)
    [step] = results["steps"]
    assert step["status"] == "failed"
    assert step["error"].startswith("HPL residual check FAILED (scaled residual ")
    [rec] = step["records"]
    assert rec["success"] is False and rec["hpl"]["passed"] is False
    assert rec["hpl"].get("flops_per_s") is None and rec["hpl"]["untrusted_flops_per_s"] > 0
    assert "FAILED" in (run_dir / "steps" / step["id"] / "hpccoutf.txt").read_text()
    shown = " ".join(run_cli(["show", run_dir], check=0).stdout.split())
    assert "HPL, N=2000 NB=192 P x Q=1x2" in shown and "failed" in shown


def _hpcc_pids_under(root: Path) -> list[int]:
    """hpcc processes whose working directory is below `root` (ours alone)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / "comm").read_text().strip() == "hpcc" and \
                    Path(os.readlink(proc / "cwd")).is_relative_to(root):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_killed_hpcc_fails_the_step_and_keeps_the_cut_file(tmp_path):
    (tmp_path / "s.yaml").write_text("name: killed\nsteps:\n  - {kind: hpl, n: 6000, processes: 2}\n")
    proc = subprocess.Popen([*STACKPROBE, "run", "s.yaml", "--target", str(tmp_path), "--out",
                             str(tmp_path / "runs"), "--no-monitor"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while not (pids := _hpcc_pids_under(tmp_path)) and time.time() < deadline:
            time.sleep(0.1)
        assert pids, "hpcc never started"
        time.sleep(1.0)  # some sections written
        os.kill(pids[0], signal.SIGKILL)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    [step] = json.loads((run_dir / "results.json").read_text())["steps"]
    assert step["status"] == "failed" and step["records"] == []
    assert "\n" not in step["error"] and "(no summary)" in step["error"]
    assert "no figure taken" in step["error"]
    kept = (run_dir / "steps" / step["id"] / "hpccoutf.txt").read_text()
    assert "Begin of" in kept and "End of Summary section." not in kept


def test_the_step_runs_with_openblas_not_the_reference_blas(tmp_path):
    """The same N on the same two processes with Debian's reference BLAS (libblas3, its own
    directory first on LD_LIBRARY_PATH): the step's HPL must be at least twice as fast, or
    OpenBLAS was not the one loaded. The same library twice comes out about 1:1; OpenBLAS
    against the reference came out above 3x in earlier clean-clone `make test` runs and 2.84x
    in one (the idle lab Ceph cluster beside it), so 2x is the line between the two."""
    _, results = _run(tmp_path, "name: one\nsteps:\n  - {kind: hpl, n: 2000, processes: 2}\n", check=0)
    openblas = results["steps"][0]["records"][0]["hpl"]["flops_per_s"]
    reference_dir = Path("/usr/lib/x86_64-linux-gnu/blas")
    if not (reference_dir / "libblas.so.3").exists():
        pytest.skip("the reference BLAS (libblas3) is not installed")
    work = tmp_path / "reference"
    work.mkdir()
    (work / "hpccinf.txt").write_text(
        (Path(__file__).parent / "fixtures/synthetic/hpccinf/n2000-1x2.txt").read_text())
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    subprocess.run(["mpirun", "-np", "2", *root, "hpcc"], cwd=work, check=True, timeout=300,
                   capture_output=True,
                   env={**os.environ, "LD_LIBRARY_PATH": str(reference_dir), "OPENBLAS_NUM_THREADS": "1"})
    summary = (work / "hpccoutf.txt").read_text()
    reference = float(summary.split("HPL_Tflops=")[1].split()[0]) * 1e12
    assert openblas > 2 * reference, (openblas, reference)


def _path_without_hpcc(tmp_path: Path) -> str:
    """A PATH with every tool of this machine but hpcc and Open MPI's launchers."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for d in ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        for tool in Path(d).iterdir() if Path(d).is_dir() else ():
            if tool.name not in ("hpcc", "mpirun", "mpiexec", "orterun") and not (bin_dir / tool.name).exists():
                (bin_dir / tool.name).symlink_to(tool)
    return str(bin_dir)


def test_without_hpcc_the_steps_fall_back_to_stress_ng_and_sysbench_and_say_so(tmp_path):
    path = _path_without_hpcc(tmp_path)
    (tmp_path / "s.yaml").write_text("name: fallback\nsteps:\n"
                                     "  - {kind: hpl, n: 2000, fallback_seconds: 2}\n"
                                     "  - {kind: stream, n: 2000, fallback_seconds: 2}\n")
    env = {"PATH": path}
    run_cli(["run", "s.yaml", "--target", tmp_path, "--out", tmp_path / "runs", "--no-monitor"],
            cwd=tmp_path, env=env, check=0)
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    hpl, stream = json.loads((run_dir / "results.json").read_text())["steps"]
    assert hpl["status"] == stream["status"] == "ok", (hpl.get("error"), stream.get("error"))
    [cpu] = hpl["records"]
    assert cpu["type"] == "cpu" and cpu["stressor"] == "matrix" and cpu["bogo_ops_per_s"] > 0
    assert cpu["fallback"].startswith("HPL: hpcc or mpirun not found on ")
    assert {r["type"] for r in stream["records"]} == {"membw"}
    assert {r["operation"] for r in stream["records"]} == {"read", "write"}
    assert all(r["fallback"].startswith("STREAM: hpcc or mpirun not found") for r in stream["records"])
    assert any("stress-ng matrix measured instead" in w for w in hpl["warnings"])
    shown = " ".join(run_cli(["show", run_dir], env=env, check=0).stdout.split())
    assert "CPU matrix bogo ops/s" in shown and "fallback for HPL" in shown
    assert "fallback for STREAM" in shown and "Gflop/s" not in shown

    (tmp_path / "strict.yaml").write_text("name: strict\nsteps:\n  - {kind: hpl, n: 2000, fallback: false}\n")
    refused = run_cli(["run", "strict.yaml", "--target", tmp_path, "--out", tmp_path / "runs2",
                       "--no-monitor"], cwd=tmp_path, env=env)
    assert refused.returncode != 0 and "hpcc" in refused.stderr and "Traceback" not in refused.stderr
