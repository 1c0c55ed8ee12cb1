"""The ipmi kind against a real BMC: OpenIPMI's ipmi_sim on 127.0.0.1 (`stackprobe lab bmc`).

One lab for the module. Three short runs of a one-step suite: the lab's BMC beside one at an
address where nothing answers (127.0.0.2), criteria failing by name (the sensor over its
critical threshold, the SEL's power supply failure, the BMC that does not answer); an entry
added to the SEL between runs found as the only new event; a wrong password as one clear
line. No run directory holds a password. `lab bmc down` leaves no ipmi_sim behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bmclab import bmc_lab
from stackprobe.verdict.codes import EXIT_CRITERIA_FAILED, EXIT_STEP_FAILED

pytestmark = [pytest.mark.tools]

CRITERIA = ["every bmc answers", "no sensor out of range", "no sel error", "no chassis fault"]


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stackprobe", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    d = tmp_path_factory.mktemp("bmc") / "lab"
    with bmc_lab(d) as (bmc, state, printed):
        assert f"hosts: {d / 'hosts.yaml'}" in printed
        yield bmc, state, printed


def _run(tmp: Path, hosts: list[dict], step: dict, env: dict | None = None):
    (tmp / "hosts.yaml").write_text(yaml.safe_dump({"hosts": hosts}))
    suite = {"name": "bmc-check", "steps": [{"kind": "ipmi", "hosts": "all", **step}]}
    (tmp / "suite.yaml").write_text(yaml.safe_dump(suite))
    proc = _cli("run", str(tmp / "suite.yaml"), "--hosts", str(tmp / "hosts.yaml"),
                "--out", str(tmp / "runs"), "--target", str(tmp), env=env)
    runs = sorted((tmp / "runs").glob("*-bmc-check"))
    assert runs, proc.stdout + proc.stderr
    return proc, json.loads((runs[-1] / "results.json").read_text()), runs[-1]


def _nowhere(secret: str, run_dir: Path) -> None:
    assert len(secret) >= 8
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path


def _lab_host(lab) -> dict:
    bmc, _, _ = lab
    return yaml.safe_load(bmc.hosts_yaml.read_text())["hosts"][0]


def test_findings_named_and_a_silent_bmc_fails_its_criterion(lab, tmp_path):
    bmc, state, _ = lab
    good = _lab_host(lab)
    silent = {**good, "name": "gone", "address": "127.0.0.2"}
    proc, results, run_dir = _run(tmp_path, [good, silent], {"criteria": CRITERIA})
    assert proc.returncode in (EXIT_STEP_FAILED, EXIT_CRITERIA_FAILED), proc.stdout[-2000:]
    items = {i["rule"]: i for i in results["verdict"]["items"] if i["kind"] == "criterion"}
    assert {r: i["status"] for r, i in items.items()} == {
        "every bmc answers": "fail", "no sensor out of range": "fail", "no sel error": "fail",
        "no chassis fault": "pass"}, items
    assert "gone: BMC at 127.0.0.2:" in items["every bmc answers"]["measured"]
    assert "does not answer" in items["every bmc answers"]["measured"]
    assert "bmc1 Inlet Temp: 45 degrees C > ucr 42" in items["no sensor out of range"]["measured"]
    assert "PSU1 Status: Failure detected" in items["no sel error"]["measured"]
    (rec,) = [r for r in results["steps"][0]["records"] if r["host"] == "bmc1"]
    assert rec["reachable"] and rec["info"]["firmware"] == "9.08"
    assert "BMC (" in proc.stdout and "Inlet Temp" in proc.stdout
    _nowhere(Path(state["password_file"]).read_text(), run_dir)


def test_an_entry_added_to_the_sel_is_the_new_event(lab, tmp_path):
    bmc, state, _ = lab
    (tmp_path / "event.txt").write_text("0x04 0x04 0x03 0x01 0x02 0x00 0x00\n")  # fan lcr low
    before = bmc.ipmitool(state, "sel", "list")
    last = before.stdout.strip().splitlines()[-1].split("|")[0].strip()
    added = bmc.ipmitool(state, "sel", "add", str(tmp_path / "event.txt"))
    assert added.returncode == 0, added.stderr
    _, results, _ = _run(tmp_path, [_lab_host(lab)], {"sel_since": last})
    (rec,) = results["steps"][0]["records"]
    assert [(e["sensor"], e["event"]) for e in rec["new_events"]] == [
        ("Fan #0x03", "Lower Critical going low")]  # added by ipmitool (generator 0x41): no SDR name
    assert f"1 new SEL entries since {last}" in " ".join(results["steps"][0]["notes"])


def test_a_wrong_password_is_one_clear_line(lab, tmp_path):
    host = _lab_host(lab)
    host["bmc"] = {**host["bmc"], "password_env": "LAB_BMC_PW"}
    del host["bmc"]["password_file"]
    wrong = "not-the-password-1"
    proc, results, run_dir = _run(tmp_path, [host], {}, env={"LAB_BMC_PW": wrong})
    step = results["steps"][0]
    assert step["status"] == "failed"
    port = host["bmc"]["port"]
    assert step["error"] == (f"bmc1: BMC at 127.0.0.1:{port} refused the login of user "
                             "'admin' (wrong user or password?)")
    _nowhere(wrong, run_dir)
