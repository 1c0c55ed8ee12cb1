"""The run-level health watch for real: counters that rise during a run are found.

One BMC lab (OpenIPMI's ipmi_sim, `stackprobe lab bmc up`) for the module, its host in the
run's hosts file. Two runs of a one-step suite (a 4 s fio randread here) with the criterion
'no health counter rose':

- during the first, the test writes an error line to the kernel log through /dev/kmsg (it
  says it is a test; there is no sdz) and adds an entry to the simulated BMC's SEL: both
  are found, the kernel line placed in the fio step, and the criterion fails (exit 3);
- the second run, with nothing written, passes it.

Counters that never move on this machine (EDAC, SMART) are tested on recorded trees in
tests/test_health.py; here the two that can be made to move for real are.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from bmclab import bmc_lab
from stackprobe.lab.bmc import BmcLab
from stackprobe.verdict.codes import EXIT_CRITERIA_FAILED, EXIT_OK

pytestmark = [pytest.mark.root, pytest.mark.slow, pytest.mark.tools]

TEST_LINE = "stackprobe test: I/O error, dev sdz, sector 42 (written by test_health_lab, not a fault)"
FAN_LOW = "0x04 0x04 0x03 0x01 0x02 0x00 0x00\n"  # fan 3 lower critical going low


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stackprobe", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    with bmc_lab(tmp_path_factory.mktemp("bmc") / "lab") as (bmc, state, _):
        yield bmc, state


def _start(tmp: Path, bmc: BmcLab) -> subprocess.Popen:
    host = yaml.safe_load(bmc.hosts_yaml.read_text())["hosts"][0]
    (tmp / "hosts.yaml").write_text(yaml.safe_dump({"hosts": [host]}))
    suite = {"name": "health-watch", "criteria": ["no health counter rose"], "steps": [
        {"kind": "fio", "name": "randread", "rw": "randread", "bs": "4k", "size": "16M",
         "ioengine": "psync", "runtime": 4, "time_based": True}]}
    (tmp / "suite.yaml").write_text(yaml.safe_dump(suite))
    return subprocess.Popen(
        [sys.executable, "-m", "stackprobe", "run", str(tmp / "suite.yaml"), "--hosts",
         str(tmp / "hosts.yaml"), "--out", str(tmp / "runs"), "--target", str(tmp)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "COLUMNS": "200"})  # notes on one line each


def _results(tmp: Path) -> dict | None:
    found = sorted((tmp / "runs").glob("*-health-watch/results.json"))
    try:
        return json.loads(found[-1].read_text()) if found else None
    except (OSError, ValueError):
        return None  # being rewritten


def _wait_for_fio(tmp: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        doc = _results(tmp)
        if doc and doc["steps"][0]["status"] == "running" and doc.get("health"):
            time.sleep(1.0)  # well inside the step's 4 s
            return
        time.sleep(0.1)
    raise AssertionError("the fio step never started: " + (proc.stdout.read() if proc.stdout else ""))


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=120)
    return proc.returncode, out


def test_a_kernel_error_and_a_sel_entry_during_the_run_fail_the_criterion(lab, tmp_path):
    bmc, state = lab
    (tmp_path / "event.txt").write_text(FAN_LOW)
    proc = _start(tmp_path, bmc)
    try:
        _wait_for_fio(tmp_path, proc)
        with open("/dev/kmsg", "w") as kmsg:
            kmsg.write(f"<3>{TEST_LINE}\n")
        added = bmc.ipmitool(state, "sel", "add", str(tmp_path / "event.txt"))
        assert added.returncode == 0, added.stderr
    finally:
        code, out = _finish(proc)
    print(out)  # shown with -s or -rP: the health deltas and the failed criterion
    assert code == EXIT_CRITERIA_FAILED, out[-3000:]
    doc = _results(tmp_path)
    health = doc["health"]
    assert health["complete"] and health["bmcs"] == ["bmc1"] and len(health["hosts"]) == 1
    host = health["hosts"][0]
    kernel = [f for f in health["findings"] if f["what"] == "kernel"]
    mine = [f for f in kernel if "stackprobe test: I/O error, dev sdz" in f["sentence"]]
    assert len(mine) == 1, kernel
    assert mine[0]["step"] == "01-randread" and mine[0]["host"] == host
    assert mine[0]["sentence"].endswith("during step 01-randread (I/O error)")
    sel = [f for f in health["findings"] if f["what"] == "sel"]
    assert [f["sentence"].split(" (entry")[0] for f in sel] == [
        "bmc1 SEL: Fan #0x03: Lower Critical going low (Asserted)"]
    assert [e["event"] for e in health["sel_new"]["bmc1"]] == ["Lower Critical going low"]
    (item,) = [i for i in doc["verdict"]["items"] if i["rule"] == "no health counter rose"]
    assert item["status"] == "fail" and "dev sdz" in item["measured"]
    assert "Fan #0x03" in item["measured"]
    run_dir = sorted((tmp_path / "runs").glob("*-health-watch"))[-1]
    assert (run_dir / "health" / f"{host}-before.stdout").is_file()
    assert (run_dir / "health" / "bmc1-sel-after.stdout").is_file()
    assert "Health during the run" in out and "dev sdz" in out
    assert health["cost_s"] < 5, health["cost_s"]


def test_a_run_without_rises_passes(lab, tmp_path):
    bmc, _ = lab
    code, out = _finish(_start(tmp_path, bmc))
    doc = _results(tmp_path)
    (item,) = [i for i in doc["verdict"]["items"] if i["rule"] == "no health counter rose"]
    assert item["status"] == "pass", (item, out[-2000:])
    assert code == EXIT_OK, out[-2000:]
    assert doc["health"]["sel_new"] == {"bmc1": []}
    assert "none changed, no new kernel-log error, no new SEL entry" in out
