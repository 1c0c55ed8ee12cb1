"""The link_state kind: its parsers on public outputs of real machines, the fleet's verdicts
(one FDR port among EDR ones, a bond on one leg, an 802.3ad bond without LACP), and
`stackprobe run` over recorded trees (local hosts, `probe_root:`) and on this machine.

Why a run over recorded trees: no InfiniBand hardware exists here; the probe reads the
trees exactly as it reads a live host, so the kind, the analysis, the criterion and the
report all run for real on them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES
from stackprobe.analysis.link_fleet import judge_links
from stackprobe.kinds.network.link_probe_script import probe_argv
from stackprobe.parsers.network.bonding import parse_bonding
from stackprobe.parsers.network.ethtool_text import parse_ethtool, parse_ethtool_info
from stackprobe.parsers.network.ib_values import parse_ib_rate, parse_ibstatus
from stackprobe.parsers.network.ibstat import parse_ibstat
from stackprobe.parsers.network.link_probe import parse_link_probe
from stackprobe.suite.loader import SuiteError, load_hosts

# beside the one-at-a-time system tests (tests/run_tiers.py): the links' state: no level
pytestmark = pytest.mark.beside

PUBLIC = FIXTURES / "public"
TREES = FIXTURES / "synthetic" / "link_state"
FDR_SENTENCE = "h7 mlx5_0 port 1: 56 Gb/sec (4X FDR) while 15 hosts run 100 Gb/sec (4X EDR)"
BOND_SENTENCE = "b2 bond0: member eth2 MII status down (1 of 2 members up)"


def probe(root: Path, host: str):
    """The real probe script over a recorded tree, parsed."""
    out = subprocess.run(probe_argv(str(root)), capture_output=True, text=True, check=True)
    return parse_link_probe(out.stdout, host=host)


# ------------------------------------------------------------------ parsers, public outputs

def test_ibstat_ports_state_rate_and_firmware():
    roce = parse_ibstat((PUBLIC / "ibstat/ibstat_mlx5-roce-100g_l2fwd-nv-6.txt").read_text())
    assert [(p.name, p.state, p.phys_state, p.speed_mbps, p.link_layer, p.firmware)
            for p in roce] == [
        ("mlx5_0/1", "Active", "LinkUp", 100000.0, "Ethernet", "22.32.2004"),
        ("mlx5_1/1", "Active", "LinkUp", 100000.0, "Ethernet", "22.32.2004")]
    ib = parse_ibstat((PUBLIC / "ibstat/ibstat_mlx5-ib-hdr200-and-down_nccl-tests-128.txt")
                      .read_text())
    assert [(p.name, p.state, p.phys_state, p.speed_mbps) for p in ib] == [
        ("mlx5_0/1", "Active", "LinkUp", 200000.0), ("mlx5_1/1", "Down", "Disabled", 10000.0)]
    fdr = parse_ibstat((PUBLIC / "ibstat/ibstat_mlx4-fdr56-cut_rdma-core-847.txt").read_text())
    assert [(p.name, p.state, p.speed_mbps) for p in fdr] == [
        ("mlx4_0/1", "Down", 10000.0), ("mlx4_0/2", "Active", 56000.0)]
    assert fdr[1].link_layer is None  # cut before its Link layer line: not guessed


def test_ibstatus_and_sysfs_rate_strings():
    ports = parse_ibstatus((PUBLIC / "sysfs/ibstatus_mlx5-edr-100g_nccl-1866.txt").read_text())
    assert [(p.name, p.state, p.phys_state, p.speed_mbps, p.width, p.generation)
            for p in ports] == [("mlx5_0/1", "ACTIVE", "LinkUp", 100000.0, "4X", "EDR"),
                                ("mlx5_1/1", "ACTIVE", "LinkUp", 100000.0, "4X", "EDR")]
    assert parse_ib_rate("56 Gb/sec (4X FDR)") == (56000.0, "4X", "FDR")
    with pytest.raises(ValueError, match="IB rate"):
        parse_ib_rate("fast")


def test_ethtool_speed_and_driver():
    link = parse_ethtool((PUBLIC / "ethtool/ethtool_eth0-1000_dklog-33.txt").read_text())
    assert (link.name, link.speed_mbps, link.duplex, link.link_detected) == \
        ("eth0", 1000.0, "full", True)
    info = parse_ethtool_info((PUBLIC / "ethtool/ethtool-i_mlx5_core-25g_ethq-8.txt").read_text())
    assert (info.driver, info.firmware, info.bus_info) == ("mlx5_core", "14.23.1020",
                                                           "0000:af:00.0")


def test_bonding_members_and_lacp():
    ab = parse_bonding((PUBLIC / "bonding/bonding_active-backup-10g_ibm-linuxonibm.txt")
                       .read_text(), name="bond0", host="z1")
    assert ab.bond_mode.startswith("fault-tolerance (active-backup)")
    assert [(m.name, m.mii_status, m.speed_mbps) for m in ab.members] == [
        ("eth1", "up", 10000.0), ("eth2", "up", 10000.0)]
    lacp = parse_bonding((PUBLIC / "bonding/bonding_8023ad-no-aggregator_accelerated-text-387"
                          ".txt").read_text(), name="bond0", host="v1")
    assert lacp.active_aggregator == "none"
    assert [m.aggregator_id for m in lacp.members] == ["N/A", "N/A"]
    flags = [f for v in judge_links([ab, lacp], {}) for f in v.flags]
    assert flags == ["v1 bond0: 802.3ad with no active aggregator (LACP not negotiated with "
                     "the switch)"]


def test_probe_output_cut_short_is_one_line():
    text = (FIXTURES / "synthetic/link_probe/fdr-among-edr_h7.txt").read_text()
    with pytest.raises(ValueError, match=r"^link probe: no '### end' line"):
        parse_link_probe(text[: len(text) // 2])


# ------------------------------------------------------------------ the fleet's verdicts

def test_one_fdr_port_among_edr_is_flagged_with_the_sentence():
    records = [r for i in range(1, 17) for r in probe(TREES / "fdr-among-edr" / f"h{i}", f"h{i}")]
    verdicts = judge_links(records, {})
    flagged = [(v.host, v.name, v.flags) for v in verdicts if v.flags]
    assert flagged == [("h7", "mlx5_0/1", [FDR_SENTENCE])]
    eth0 = next(r for r in records if r.host == "h3" and r.name == "eth0")
    assert (eth0.speed_mbps, eth0.driver, eth0.firmware, eth0.physical) == \
        (25000.0, "mlx5_core", "14.23.1020", True)
    # the hosts file's expectation flags it too, and names a port a host lacks
    expected = {"h7": {"mlx5_0/1": 100000.0}, "h8": {"mlx5_1/1": 100000.0}}
    flags = [f for v in judge_links(records, expected) for f in v.flags]
    assert "h7 mlx5_0 port 1: 56 Gb/sec (4X FDR), the hosts file expects 100 Gb/s" in flags
    assert "h8 mlx5_1/1: not found, the hosts file expects 100 Gb/s" in flags


def test_a_bond_with_one_member_down_is_flagged():
    records = probe(TREES / "bond-member-down/b1", "b1") + probe(TREES / "bond-member-down/b2",
                                                                 "b2")
    verdicts = judge_links(records, {})
    assert {v.host: v.flags for v in verdicts} == {"b1": [], "b2": [BOND_SENTENCE]}
    assert verdicts[1].speed == "unknown (eth1 10 Gb/s, eth2 down)"  # no bond0 in its sysfs


def test_hosts_file_links_field_and_its_errors(tmp_path):
    good = tmp_path / "hosts.yaml"
    good.write_text("hosts:\n  - name: n1\n    address: 10.99.0.11\n    nic_speed_mbps: 25000\n"
                    "    links: {eth0: 25000, \"mlx5_0/1\": 100000}\n")
    assert load_hosts(good).hosts[0].links == {"eth0": 25000, "mlx5_0/1": 100000}
    bad = tmp_path / "bad.yaml"
    bad.write_text("hosts:\n  - name: n1\n    address: 10.99.0.11\n    links: {eth0: fast}\n")
    with pytest.raises(SuiteError) as err:
        load_hosts(bad)
    assert str(bad) in str(err.value) and "links" in str(err.value)
    assert len(str(err.value).splitlines()) == 1


# ------------------------------------------------------------------ stackprobe run

def _run(tmp: Path, suite: str, hosts: dict | None) -> tuple[subprocess.CompletedProcess, dict]:
    (tmp / "suite.yaml").write_text(suite)
    argv = [sys.executable, "-m", "stackprobe", "run", str(tmp / "suite.yaml"), "--out",
            str(tmp / "runs"), "--target", str(tmp), "--no-monitor"]
    if hosts is not None:
        (tmp / "hosts.yaml").write_text(yaml.safe_dump(hosts))
        argv += ["--hosts", str(tmp / "hosts.yaml")]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    runs = sorted(p for p in (tmp / "runs").glob("*") if (p / "results.json").is_file())
    assert runs, proc.stdout + proc.stderr
    return proc, json.loads((runs[-1] / "results.json").read_text())


def test_run_over_recorded_trees_flags_fdr_and_bond(tmp_path):
    """One run, two steps on `local` hosts: the EDR fleet (h7 at FDR; the hosts file
    expects 100 Gb/s on every port) and the bond pair; 'no degraded link' fails on both."""
    hosts = [{"name": f"h{i}", "access": "local", "address": f"127.0.1.{i}", "roles": ["ib"],
              "links": {"mlx5_0/1": 100000}} for i in range(1, 17)]
    hosts += [{"name": f"b{i}", "access": "local", "address": f"127.0.2.{i}",
               "roles": ["bond"]} for i in (1, 2)]
    suite = (f"name: links\ncriteria: [no degraded link]\nsteps:\n"
             f"  - kind: link_state\n    name: fabric\n    hosts: ib\n"
             f"    probe_root: {TREES}/fdr-among-edr/{{host}}\n"
             f"  - kind: link_state\n    name: bonds\n    hosts: bond\n"
             f"    probe_root: {TREES}/bond-member-down/{{host}}\n")
    proc, results = _run(tmp_path, suite, {"hosts": hosts})
    assert proc.returncode == 3, proc.stdout + proc.stderr  # a criterion failed
    fabric, bonds = results["steps"]
    assert fabric["status"] == bonds["status"] == "ok"
    assert FDR_SENTENCE in fabric["warnings"]
    assert BOND_SENTENCE in bonds["warnings"]
    assert {r["host"] for r in fabric["records"]} == {f"h{i}" for i in range(1, 17)}
    out = " ".join(proc.stdout.split())  # the terminal wraps long lines
    assert FDR_SENTENCE in out and BOND_SENTENCE in out
    assert "FAIL" in out and "no degraded link" in out


@pytest.mark.tools
def test_run_on_this_machine_without_probe_root(tmp_path):
    """The live host: every interface sysfs lists, ethtool's driver where installed."""
    proc, results = _run(tmp_path, "name: here\nsteps:\n  - kind: link_state\n", None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    step = results["steps"][0]
    names = {r["name"] for r in step["records"]}
    live = {p.name for p in Path("/sys/class/net").iterdir()}
    assert names == live
    up = [r for r in step["records"] if r["state"] == "up" and r["name"] != "lo"]
    assert up, step["records"]
    assert "Link state" in proc.stdout
