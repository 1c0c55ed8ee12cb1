"""How steps meet hosts: the entries of hosts.yaml (SSH, local, management-only), which
hosts a selector gives a kind, and the fleet's transports and barrier start.

Local entries are this machine reached without SSH, so a per-node step over two of them
runs for real here (lscpu, lsblk: util-linux, on every Debian) without namespaces or sshd.
"""

from __future__ import annotations

import json
import time

import pytest

from conftest import run_cli
from stackprobe.errors import UserError
from stackprobe.plan.expand import expand
from stackprobe.spec.hosts import LOCAL_ADDRESS, HostsFile, Reach
from stackprobe.suite.models import Suite
from stackprobe.transport.fleet import Fleet
from stackprobe.transport.local import LocalTransport

HOSTS = {
    "ssh": {"user": "root"},
    "hosts": [
        {"name": "ceph1", "access": "local", "roles": ["storage"]},
        {"name": "ceph2", "access": "local", "address": "127.0.0.2", "roles": ["storage"]},
        {"name": "ceph1-bmc", "access": "management", "address": "127.0.0.3",
         "roles": ["storage", "bmc"]},
    ],
}


def hosts_file(tmp_path=None) -> HostsFile:
    data = json.loads(json.dumps(HOSTS))
    if tmp_path is not None:  # scratch directories of this test's own
        for h in data["hosts"]:
            h["directories"] = [str(tmp_path)]
    return HostsFile.model_validate(data)


def plan(step: dict, hosts: HostsFile):
    return expand(Suite.model_validate({"name": "t", "steps": [step]}), None, hosts)


def test_entries_say_how_they_are_reached():
    h = hosts_file()
    local, local2, bmc = h.hosts
    assert local.address == LOCAL_ADDRESS and local.reach is Reach.SHELL
    assert local2.address == "127.0.0.2"
    assert bmc.reach is Reach.MANAGEMENT
    with pytest.raises(ValueError, match="address is required"):
        HostsFile.model_validate({"hosts": [{"name": "x", "access": "management"}]})


def test_all_and_roles_give_a_kind_the_hosts_it_can_reach():
    h = hosts_file()
    assert [x.name for x in h.select("all")] == ["ceph1", "ceph2"]
    assert [x.name for x in h.select("storage")] == ["ceph1", "ceph2"]
    assert [x.name for x in h.select("all", Reach.MANAGEMENT)] == ["ceph1-bmc"]
    assert [x.name for x in h.select("storage", Reach.MANAGEMENT)] == ["ceph1-bmc"]
    with pytest.raises(ValueError, match="offers no shell"):
        h.select(["ceph1", "ceph1-bmc"])
    with pytest.raises(ValueError, match="no host of role 'bmc' offers a shell"):
        h.select("bmc")
    with pytest.raises(ValueError, match="offers no management controller"):
        h.select("ceph2", Reach.MANAGEMENT)


def test_the_plan_refuses_a_shell_kind_on_a_management_entry():
    with pytest.raises(UserError, match="ceph1-bmc is an `access: management` entry"):
        plan({"kind": "inventory", "hosts": ["ceph1-bmc"]}, hosts_file())
    [step] = plan({"kind": "inventory", "hosts": "all"}, hosts_file())
    assert step.hosts == ("ceph1", "ceph2") and step.per_node


def test_local_entries_use_this_machine_and_management_ones_nothing(tmp_path):
    h = hosts_file(tmp_path)
    fleet = Fleet(h, ["ceph1", "ceph2", "ceph1-bmc"], "20260101T000000Z-modes")
    assert isinstance(fleet["ceph1"].transport, LocalTransport)
    assert fleet["ceph1-bmc"].transport is None
    assert [x.name for x in fleet.shells()] == ["ceph1", "ceph2"]
    fleet.open()
    try:
        made = sorted(p.name for p in tmp_path.iterdir())
        assert made == ["stackprobe-20260101T000000Z-modes-ceph1",
                        "stackprobe-20260101T000000Z-modes-ceph2"]
        out = fleet.each(lambda x: x.transport.run(["hostname"], timeout=10).ok)
        assert out == {"ceph1": True, "ceph2": True}
        described = {d["name"]: d for d in fleet.describe()}
        assert described["ceph1-bmc"]["access"] == "management"
        assert described["ceph1-bmc"]["scratch"] is None
    finally:
        assert fleet.close() == []
    assert list(tmp_path.iterdir()) == []


def test_together_starts_every_host_at_one_barrier(tmp_path):
    """Hosts that get ready one after another (each 50 ms slower) start their work within
    a few milliseconds of each other behind the barrier; without it, 250 ms apart."""
    names = [f"h{i}" for i in range(6)]
    h = HostsFile.model_validate({"hosts": [
        {"name": n, "access": "local", "address": f"127.0.0.{i + 10}",
         "directories": [str(tmp_path)]} for i, n in enumerate(names)]})
    fleet = Fleet(h, names, "20260101T000000Z-barrier")

    def spread(together: bool) -> float:
        started: dict[str, float] = {}
        fleet.each(lambda x: started.__setitem__(x.name, time.monotonic()), names,
                   together=together, ready=lambda x: time.sleep(0.05 * names.index(x.name)))
        return max(started.values()) - min(started.values())

    assert spread(False) > 0.2
    assert spread(True) < 0.05


def test_a_host_failing_to_get_ready_releases_the_barrier(tmp_path):
    """One host whose preparation fails ends the call with its own error at once; the
    others, already waiting at the barrier, are released rather than left waiting."""
    names = [f"h{i}" for i in range(4)]
    h = HostsFile.model_validate({"hosts": [
        {"name": n, "access": "local", "address": f"127.0.0.{i + 10}",
         "directories": [str(tmp_path)]} for i, n in enumerate(names)]})
    fleet = Fleet(h, names, "20260101T000000Z-broken")
    ran: list[str] = []

    def ready(x):
        if x.name == "h2":
            time.sleep(0.05)  # the others reach the barrier first
            raise OSError("h2: no space for the job file")

    t0 = time.monotonic()
    with pytest.raises(OSError, match="h2: no space"):
        fleet.each(lambda x: ran.append(x.name), names, together=True, ready=ready)
    assert time.monotonic() - t0 < 5
    assert ran == []


@pytest.mark.tools
def test_a_per_node_step_on_local_entries_runs_here(tmp_path):
    h = dict(HOSTS)
    h["hosts"] = [dict(x, directories=[str(tmp_path / "scratch")]) for x in HOSTS["hosts"]]
    (tmp_path / "scratch").mkdir()
    (tmp_path / "hosts.yaml").write_text(json.dumps(h))
    (tmp_path / "s.yaml").write_text("name: local-hosts\nsteps:\n"
                                     "  - {kind: inventory, hosts: storage}\n")
    run_cli(["run", "s.yaml", "--hosts", "hosts.yaml", "--target", tmp_path, "--out",
             tmp_path / "runs", "--no-monitor"], cwd=tmp_path, check=0)
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    results = json.loads((run_dir / "results.json").read_text())
    [step] = results["steps"]
    assert step["status"] == "ok" and step["hosts"] == ["ceph1", "ceph2"]
    assert sorted(r["host"] for r in step["records"]) == ["ceph1", "ceph2"]
    assert {c["host"] for c in step["commands"]} == {"ceph1", "ceph2"}
    assert [h["name"] for h in results["run"]["hosts"]] == ["ceph1", "ceph2"]
    assert list((tmp_path / "scratch").iterdir()) == []  # both scratch directories removed
