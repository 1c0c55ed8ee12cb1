"""The `rdma` step run for real here, where there is no RDMA device: skipped in one line with
exit 0 (NOT MEASURED, and exit 3 under --strict, only when a criterion names it); with a
recorded tree standing for / every pair taken as far as perftest, each failing in words;
and the server start its pairs use, on programs that listen or exit."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from stackprobe.kinds.network.rdma_run import start_server
from stackprobe.spec.hosts import Host
from stackprobe.transport.fleet import HostHandle
from stackprobe.transport.local import LocalTransport

# beside the one-at-a-time system tests (tests/run_tiers.py): the steps' records from the installed tools: no level
pytestmark = pytest.mark.beside

TREES = Path(__file__).parent / "fixtures" / "synthetic" / "rdma"

SUITE = """name: rdma-here
steps:
  - kind: rdma
    hosts: all
{extra}"""


@pytest.fixture(scope="module")
def here(tmp_path_factory):
    """Two hosts that are this machine (local entries on two loopback addresses)."""
    d = tmp_path_factory.mktemp("rdma")
    (d / "hosts.yaml").write_text("hosts:\n  - {name: h1, access: local}\n"
                                  "  - {name: h2, access: local, address: 127.0.0.2}\n")
    return d


def _run(here: Path, name: str, extra: str, *args: str):
    (here / f"{name}.yaml").write_text(SUITE.format(extra=extra))
    proc = run_cli(["run", f"{name}.yaml", "--hosts", "hosts.yaml", "--runs-dir", here / name,
                    "--target", here, "--no-monitor", *args], cwd=here, timeout=120)
    results = json.loads(next((here / name).glob("*/results.json")).read_text())
    return proc, results["steps"][0]


@pytest.mark.tools
@pytest.mark.skipif(Path("/sys/class/infiniband").exists(), reason="this machine has RDMA")
def test_a_run_without_rdma_devices_is_skipped_in_one_line_and_passes(here):
    proc, step = _run(here, "plain", "    criteria: [no flagged rdma pair]\n")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert step["status"] == "skipped" and step["error"] == "no RDMA device on h1, h2"
    assert "skipped: no RDMA device on h1, h2" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr and "NOT MEASURED" in proc.stdout
    strict, _ = _run(here, "strict", "    criteria: [no flagged rdma pair]\n", "--strict")
    assert strict.returncode == 3 and "NOT MEASURED" in strict.stdout  # named: not measured


@pytest.mark.tools
def test_a_recorded_tree_takes_every_pair_to_perftest_which_fails_in_words(here):
    """With the tree standing for /, both hosts have an ACTIVE port: each pair and test
    reaches perftest (not installed: named with its package; installed: its server finds
    no mlx4_0 and exits), every pair failed with its reason, no server left running."""
    proc, step = _run(here, "tree", f"    probe_root: {TREES / 'mlx4-qdr'}\n"
                      "    tests: [write_bw]\n    tcp_port: 18777\n")
    assert proc.returncode == 1 and step["status"] == "failed"
    assert step["error"] == "no pair could be measured"
    assert [(r["client"], r["server"]) for r in step["records"]] == [("h1", "h2"), ("h2", "h1")]
    for rec in step["records"]:
        assert rec["benchmark"] == "ib_write_bw" and "\n" not in rec["error"]
        assert "ib_write_bw" in rec["error"]
    assert step["findings"]["rdma"]["ports"]["h1"] == "mlx4_0 port 1 (40 Gb/s 4X QDR InfiniBand)"
    assert "Traceback" not in proc.stdout + proc.stderr
    matrix = proc.stdout[proc.stdout.index("RDMA ib_write_bw matrix"):]
    assert matrix.count("⚠ failed") >= 2  # both cells of the two-host matrix, in words
    listening = subprocess.run(["ss", "-Hltn", "sport = :18777"], capture_output=True, text=True)
    assert listening.stdout.strip() == ""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.tools
def test_a_server_side_is_waited_for_kept_for_cleanup_or_said_to_have_exited(tmp_path):
    """The server start perftest's pairs use, on real programs: one that listens (kept in
    the step's list, stopped by PID), one that exits first (its words in its log)."""
    h = HostHandle(Host(name="h1", access="local"), LocalTransport(), str(tmp_path))
    started: list = []
    port = _free_port()
    listens = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)]
    assert start_server(started, h, listens, "up", port) is None
    (name, proc), = started
    assert name == "h1" and proc.alive()
    proc.stop(grace_s=2.0)
    assert not proc.alive() and not h.listening(port)
    gone = ["sh", "-c", "echo 'IB device mlx4_0 not found' >&2; exit 1"]
    assert start_server(started, h, gone, "gone", port) == \
        f"h1: sh server exited before listening on port {port}"
    assert "IB device mlx4_0 not found" in (tmp_path / "gone-server.log").read_text()
