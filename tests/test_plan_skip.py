"""A suite written for every cluster asks for the BMCs with `hosts: all`; a hosts file
without a management entry makes that step skipped, saying why, not a refused run — while
naming a role or host that offers none is still refused before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from stackprobe.errors import UserError
from stackprobe.kinds.host.ipmi import DEVICES
from stackprobe.plan.expand import expand
from stackprobe.spec.hosts import HostsFile
from stackprobe.suite.models import Suite

# beside the one-at-a-time system tests (tests/run_tiers.py): which steps are skipped: no level
pytestmark = pytest.mark.beside

SHELL_ONLY = {"hosts": [{"name": "h1", "access": "local"},
                        {"name": "h2", "access": "local", "address": "127.0.0.2"}]}
SUITE = """name: skip
criteria: [no failed step, every bmc answers]
steps:
  - kind: ipmi
    hosts: all
  - kind: link_state
    hosts: all
"""


def _suite(hosts):
    return Suite.model_validate({"name": "s", "steps": [{"kind": "ipmi", "hosts": hosts}]})


def test_all_without_a_bmc_is_a_skipped_step_with_its_reason():
    step, = expand(_suite("all"), None, HostsFile.model_validate(SHELL_ONLY))
    assert step.skip == "no management controller in the hosts file"
    assert step.hosts == () and step.estimate_s == 0


def test_a_bmc_entry_is_chosen_and_nothing_skipped():
    hosts = HostsFile.model_validate({"hosts": [*SHELL_ONLY["hosts"], {
        "name": "h1-bmc", "access": "management", "address": "127.0.0.9",
        "bmc": {"user": "admin", "password_file": "/nonexistent"}}]})
    step, = expand(_suite("all"), None, hosts)
    assert step.skip is None and step.hosts == ("h1-bmc",)


@pytest.mark.parametrize("selector", ["client", "h1", ["all", "h2"]])
def test_a_named_role_or_host_without_a_bmc_is_still_refused(selector):
    with pytest.raises(UserError, match="step 1 \\(ipmi\\): hosts: "):
        expand(_suite(selector), None, HostsFile.model_validate(SHELL_ONLY))


def test_the_run_records_it_skipped_and_passes(tmp_path):
    (tmp_path / "hosts.yaml").write_text(json.dumps(SHELL_ONLY))
    (tmp_path / "s.yaml").write_text(SUITE)
    plan = run_cli(["plan", "s.yaml", "--hosts", "hosts.yaml"], cwd=tmp_path, timeout=60)
    assert "skipped: no management controller in the hosts file" in " ".join(plan.stdout.split())
    proc = run_cli(["run", "s.yaml", "--hosts", "hosts.yaml", "--runs-dir", tmp_path / "runs",
                    "--target", tmp_path, "--no-monitor"], cwd=tmp_path, timeout=120)
    results = json.loads(next((tmp_path / "runs").glob("*/results.json")).read_text())
    ipmi, links = results["steps"]
    assert ipmi["status"] == "skipped", ipmi
    assert ipmi["error"] == "no management controller in the hosts file"
    assert links["status"] == "ok"
    items = {i["rule"]: i["status"] for i in results["verdict"]["items"]}
    assert items["no failed step"] == "pass" and items["every bmc answers"] == "not measured"
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


@pytest.mark.tools
@pytest.mark.skipif(any(Path(d).exists() for d in DEVICES), reason="this machine has a BMC")
def test_this_machine_without_an_ipmi_device_skips_the_step(tmp_path):
    (tmp_path / "s.yaml").write_text("name: local-bmc\nsteps:\n  - kind: ipmi\n")
    proc = run_cli(["run", "s.yaml", "--runs-dir", tmp_path / "runs", "--target", tmp_path,
                    "--no-monitor"], cwd=tmp_path, timeout=120)
    step, = json.loads(next((tmp_path / "runs").glob("*/results.json")).read_text())["steps"]
    assert step["status"] == "skipped" and step["error"].startswith("no IPMI device on ")
    assert "/dev/ipmi0: no BMC, or the ipmi_si / ipmi_devintf modules not loaded" in step["error"]
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
