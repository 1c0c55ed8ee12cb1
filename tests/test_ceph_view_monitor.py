"""Which hosts a Ceph step watches, and a storage host's figures kept after Ctrl-C.

The storage hosts of a hosts file are opened for a run with Ceph steps (and monitoring
on) although no step names them; each is watched once, beside the step's own hosts. A
storage host's transport is not one the runner clears after Ctrl-C, so the monitors clear
it themselves: sadf must still read its samples (real sadc, hence `tools`).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from stackprobe.engine.step_monitor import StepMonitors, storage_names, storage_targets
from stackprobe.monitor.sampler import DATA_FILE, SADF, sadf_argv
from stackprobe.parsers.host.sadf_json import parse_sadf_json
from stackprobe.plan.expand import expand
from stackprobe.spec.hosts import HostsFile
from stackprobe.suite.loader import load_suite
from stackprobe.transport.fleet import Fleet
from stackprobe.transport.local import LocalTransport

HOSTS = HostsFile.model_validate({"hosts": [
    {"name": "cephhost", "access": "local", "roles": ["storage"]},
    {"name": "both", "access": "local", "roles": ["client", "storage"], "address": "127.0.0.2"},
    {"name": "c1", "address": "127.0.0.3", "roles": ["client"]},
    {"name": "bmc", "access": "management", "address": "127.0.0.4", "roles": ["storage"]},
]})


def test_storage_hosts_opened_only_for_runs_that_load_ceph_with_monitoring():
    ceph = expand(load_suite("ceph-quick").suite)
    local = [s for s in expand(load_suite("quick").suite) if not s.on_ceph]
    assert storage_names(HOSTS, ceph, monitor=True) == {"cephhost", "both"}  # no BMC: no shell
    assert storage_names(HOSTS, ceph, monitor=False) == set()
    assert storage_names(HOSTS, local, monitor=True) == set()


def test_a_host_already_watched_for_the_step_is_not_added_twice():
    fleet = Fleet(HOSTS, {"cephhost", "both", "c1", "bmc"}, "run1")
    added = storage_targets(fleet, {"both", "c1"})
    assert [(name, directory) for name, _, directory in added] == \
        [("cephhost", "/tmp/stackprobe-run1-cephhost")]
    assert storage_targets(None, set()) == []


@pytest.mark.tools
def test_a_storage_host_interrupted_by_ctrl_c_keeps_its_figures_and_roles(tmp_path):
    transport = LocalTransport("cephhost")
    monitors = StepMonitors([("cephhost", transport, str(tmp_path))], {},
                            roles={"cephhost": ["storage"]})
    monitors.start()
    _until_one_sample(tmp_path / DATA_FILE)
    transport.interrupt()  # what the executor's request_stop does to every fleet host
    out, _, problems = monitors.stop(tmp_path)
    assert problems == []
    assert out["cephhost"]["summary"]["roles"] == ["storage"]
    assert out["cephhost"]["summary"]["samples"] >= 1
    assert monitors.ceph_view is None  # no Ceph watch asked for


def _until_one_sample(datafile: Path, timeout_s: float = 60.0) -> None:
    """Wait until sadc's file holds a sample (two readings), as sadf itself reads it. A
    fixed 3 s was once not enough with CI's load beside: sadc was stopped inside its first
    record, and sadf exits 2 on that ('End of system activity file unexpected')."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        res = subprocess.run(sadf_argv(SADF, str(datafile)), capture_output=True, text=True,
                             env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}, timeout=60)
        try:
            if res.returncode == 0 and parse_sadf_json(res.stdout).samples:
                return
        except ValueError:
            pass
        time.sleep(0.5)
    pytest.fail(f"sadc wrote no sample to {datafile} in {timeout_s:.0f} s")
