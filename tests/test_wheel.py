"""`pip install stackprobe` from the wheel the project builds (as `make dist` does: the sdist,
then the wheel from the sdist, so a file the sdist leaves out fails here) gives the CLI and
its Python dependencies alone: installed into a fresh venv with no system package and no
extra, it ingests a tool's output, lists and plans the built-in suites (the package data
came along), and has not pulled in mpi4py (the `mpi` extra)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT

pytestmark = [pytest.mark.slow, pytest.mark.beside]

FIO_JSON = FIXTURES / "public" / "fio" / "fio-3.19_json_jobs_disk_util_pbench.json"


def _wheel(tmp: Path) -> Path:
    """Built now, from this checkout, into the test's own directory: `make test` no longer
    builds `dist/` before the tests, and a `dist/` left by an older `make dist` may not be
    this source."""
    out = tmp / "dist"
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    assert len(list(out.glob("stackprobe-*.tar.gz"))) == 1  # the sdist the wheel came from
    (wheel,) = out.glob("stackprobe-*.whl")
    return wheel


def test_the_wheel_installs_into_a_fresh_venv_and_ingests(tmp_path):
    wheel = _wheel(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr[-3000:]
    cli = venv / "bin" / "stackprobe"

    def run(*args: str) -> subprocess.CompletedProcess:
        proc = subprocess.run([str(cli), *args], env=env, capture_output=True, text=True,
                              timeout=120, cwd=tmp_path)
        assert proc.returncode == 0, (args, proc.stdout[-2000:], proc.stderr[-2000:])
        return proc

    assert run("--version").stdout.startswith("stackprobe ")
    records = json.loads(run("ingest", str(FIO_JSON), "--json").stdout)
    assert records and all(r["source"] == str(FIO_JSON) for r in records)
    assert any(r.get("read", {}).get("iops", 0) > 0 for r in records)
    assert "quick" in run("suites").stdout
    assert run("plan", "quick", "--json").stdout.count('"kind": "fio"') >= 5
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import stackprobe, importlib.util as u; print(stackprobe.__file__);"
                            "print(u.find_spec('mpi4py') is None)"],
                           env=env, capture_output=True, text=True, timeout=60, check=True)
    module, no_mpi = where.stdout.split()
    assert module.startswith(str(venv)) and no_mpi == "True"  # the wheel's code, no extra
