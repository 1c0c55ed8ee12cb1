"""--hosts as a range and SSH as OpenSSH does it, on real hosts: three lab hosts (network
namespaces, each with its own sshd) named only `h[1-3]` on the command line, reached through
an ssh config file of the test's own (--ssh-config) that gives each its HostName, the user,
the lab's key and known_hosts. `run` measures all three (over SSH, and a fio fleet whose
clients reach each host's server at the address the config's HostName gives); `doctor`
reports them reachable,
their tools, free space and clock; without the ssh config the same names reach nothing.

Run under the lab lock: flock /tmp/briefs/lab.lock .venv/bin/python -m pytest -q THIS_FILE
"""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from hostslab import hosts_lab_missing
from stackprobe.lab import hosts_lab
from stackprobe.lab.hosts_lab import HostsLab

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.netns, pytest.mark.tools]

PREFIX = "sph"  # this module's lab names: sph-br, sph-h1 ...
SUITE = """\
name: hosts-sources-lab
steps:
  - kind: inventory
    hosts: all
  - kind: fio
    hosts: all
    name: fleet
    rw: read
    bs: 1M
    size: 4M
    runtime: 1
    time_based: true
"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Three lab hosts and an ssh config naming them; the lab down in `finally`."""
    why = hosts_lab_missing()
    if why:
        pytest.skip(why)
    scratch = tmp_path_factory.mktemp("hosts-sources")
    lab = HostsLab(scratch / "lab", prefix=PREFIX, log=lambda *_: None)
    try:
        state = lab.up(3)
        config = scratch / "ssh_config"
        config.write_text("".join(f"Host {h.name}\n  HostName {h.address}\n" for h in state.hosts)
                          + f"Host h*\n  User root\n  IdentityFile {state.identity}\n"
                          f"  UserKnownHostsFile {state.known_hosts}\n  ConnectTimeout 5\n")
        yield scratch, state, config
    finally:
        if (scratch / "lab" / hosts_lab.STATE_FILE).exists():
            lab.down()


def test_run_on_a_range_through_the_ssh_config(lab, tmp_path):
    scratch, state, config = lab
    (tmp_path / "suite.yaml").write_text(SUITE)
    proc = run_cli(["run", tmp_path / "suite.yaml", "--hosts", "h[1-3]", "--ssh-config", config,
                    "--runs-dir", tmp_path / "runs", "--no-monitor", "--no-health"],
                   cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    (results,) = (tmp_path / "runs").glob("*/results.json")
    run = json.loads(results.read_text())
    for step in run["steps"]:  # fio's clients reach the servers at the config's HostName
        assert step["status"] == "ok" and sorted(step["hosts"]) == ["h1", "h2", "h3"], step
    assert run["run"]["hosts_file"] == "h[1-3]"  # resume reads the same hosts again


def test_doctor_reports_each_host(lab, tmp_path):
    scratch, state, config = lab
    proc = run_cli(["doctor", "--json", "--hosts", "h[1-3]", "--ssh-config", config],
                   cwd=tmp_path, timeout=120)
    found = {h["name"]: h for h in json.loads(proc.stdout)["hosts"]}
    assert sorted(found) == ["h1", "h2", "h3"], proc.stderr
    for h in found.values():
        assert h["reachable"], h
        assert h["free_bytes"]["/tmp"] > 0
        assert abs(h["clock_offset_s"]) <= h["clock_error_s"] + 0.05  # one kernel, one clock
        assert "fio" not in h["missing_tools"]  # the lab hosts share this machine's files


def test_without_the_ssh_config_the_names_reach_nothing(lab, tmp_path, monkeypatch):
    from stackprobe.cli.doctor_hosts import check_hosts
    from stackprobe.spec.host_sources import parse_hostlist
    from stackprobe.spec.host_sources.ssh_options import with_ssh_options

    scratch, state, config = lab
    empty = tmp_path / "empty_config"
    empty.write_text("")
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh of root's is read
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    hosts = with_ssh_options(parse_hostlist("h1"), user="root", config=str(empty))
    (finding,) = check_hosts(hosts, ())
    assert not finding.reachable and finding.error
