"""A planted regression, caught by the gate: one lab host (a network namespace with its own
sshd), the same small fio suite run on it three times, the disk throttled for one of them.

The "normal" disk is h1's data disk under a generous blkio cap, the regressed one the same
disk under a cap a quarter of it: a cap turns a shared virtual disk's bandwidth into a
steady figure, so the unchanged rerun stays well inside the gate on a busy machine too,
while the capped run is four times slower. The workload keys are the same in every run
(the same suite on the same host), only the figure moves.

What must hold (the CLI, as a CI job would call it): `baseline set` names the first run;
`compare SLOW --against NAME --max-regression 10%` exits 4 and names the figures' keys;
`compare RERUN --against NAME --max-regression 10%` exits 0; the JUnit file of the failed
gate has a failure per gated figure, named by its key. The labs come down in `finally`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from child_run import run_to_end
from conftest import run_cli
from hostslab import hosts_lab_missing
from stackprobe.lab import hosts_lab
from stackprobe.lab.hosts_lab import HostsLab

pytestmark = [pytest.mark.slow, pytest.mark.root, pytest.mark.netns, pytest.mark.tools]

PREFIX = "spg"  # this module's lab names: spg-br, spg-h1
NORMAL, SLOW = "64M", "16M"  # h1's disk: bytes/s read and written
SUITE = """\
name: gate-lab
steps:
  - kind: fio
    name: seq-read
    hosts: [h1]
    rw: read
    bs: 1M
    size: 24M
    iodepth: 4
    ioengine: libaio
    direct: 1
    runtime: 2
    time_based: true
    repeat: 3
"""
WORKLOAD = "fio:bs=1M,direct=1,hosts=1,iodepth=4,ioengine=libaio,rw=read,size=24M"
# the fleet step's rows: all its clients together, and h1's own
FIGURES = [f"{WORKLOAD}@h1:read.bw", f"{WORKLOAD}:read.bw"]




def _run_on_lab(tmp: Path, cap: str, count: int) -> list[Path]:
    """`count` runs of SUITE against a fresh one-host lab whose disk is capped at `cap`."""
    lab_dir = tmp / f"lab-{cap}"
    lab = HostsLab(lab_dir, prefix=PREFIX, log=lambda *_: None)
    try:
        state = lab.up(1, slow_disks={"h1": cap})
        paths = []
        for _ in range(count):
            before = set((tmp / "runs").glob("*-gate-lab*"))
            proc = run_to_end(
                [sys.executable, "-m", "stackprobe", "run", str(tmp / "suite.yaml"),
                 "--hosts", str(state.hosts_yaml), "--out", str(tmp / "runs"), "--target", str(tmp)],
                timeout=120)
            new = sorted(set((tmp / "runs").glob("*-gate-lab*")) - before)
            assert proc.returncode == 0 and len(new) == 1, (proc.stdout[-2000:], proc.stderr[-2000:])
            # the step's three runs used one fio server, and the step stopped it: none is
            # left on the host (each run used to start its own and the first two stayed)
            assert _no_fio_server(state.hosts[0].address)
            paths.append(new[0])
        return paths
    finally:
        if (lab_dir / hosts_lab.STATE_FILE).exists():
            lab.down()


def _no_fio_server(address: str, within_s: float = 5.0) -> bool:
    """No `fio --server` process of `address` is left within `within_s` (a lab host's
    processes are this machine's: the lab isolates the network, not the process table).
    The server's child for the last client connection outlives the stopped server by a
    second or so while it ends by itself; a server the step never stopped does not end."""
    deadline = time.monotonic() + within_s
    while True:
        ps = subprocess.run(["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True,
                            check=True).stdout.splitlines()
        left = [line for line in ps if f"--server=ip:{address}," in line
                and not line.split()[1].startswith("Z")]
        if not left:
            return True
        assert time.monotonic() < deadline, f"fio servers left running: {left}"
        time.sleep(0.2)


def _bw(run: Path) -> float:
    results = json.loads((run / "results.json").read_text())
    return results["steps"][0]["summary"]["repeat"]["mean"]


def test_a_capped_disk_fails_the_gate_and_a_rerun_passes(tmp_path):
    why = hosts_lab_missing("fio",)
    if why:
        pytest.skip(why)
    (tmp_path / "suite.yaml").write_text(SUITE)
    base, rerun = _run_on_lab(tmp_path, NORMAL, 2)
    (slow,) = _run_on_lab(tmp_path, SLOW, 1)
    print(f"bandwidth: base {_bw(base) / 2**20:.1f} MiB/s, rerun {_bw(rerun) / 2**20:.1f} MiB/s, "
          f"capped {_bw(slow) / 2**20:.1f} MiB/s")

    runs = tmp_path / "runs"
    run_cli(["baseline", "set", base, "--name", "lab-normal", "--out", runs], check=0)
    junit = tmp_path / "gates.xml"
    gated = run_cli(["compare", slow.name, "--against", "lab-normal", "--max-regression", "10%",
                     "--out", runs, "--junit", junit], check=4)
    fail_lines = [line for line in gated.stdout.splitlines() if line.strip().startswith("FAIL")]
    assert [line.split()[1] for line in fail_lines] == FIGURES, gated.stdout
    assert "a gated figure regressed (exit 4)" in gated.stdout

    suites = ET.parse(junit).getroot()
    assert suites.get("failures") == "2" and suites.get("tests") == "2"
    cases = list(suites.iter("testcase"))
    assert [c.get("name") for c in cases] == FIGURES
    assert all(c.find("failure") is not None for c in cases)

    again = run_cli(["compare", rerun.name, "--against", "lab-normal", "--max-regression", "10%",
                     "--out", runs], check=0)
    assert all(f"pass  {key}" in again.stdout for key in FIGURES), again.stdout
    assert "FAIL" not in again.stdout and "no gated figure regressed (exit 0)" in again.stdout
