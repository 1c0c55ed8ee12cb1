"""The `rdma` step without a run: ports found in sysfs trees derived from a public ibstat
(the step's own listing command run on them), perftest's two command lines, the pair cells
and flags on records parsed from a public perftest log, the report's tables and the
criterion. Real runs here are in test_rdma_runs.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from stackprobe.analysis.rdma_pairs import build_cells
from stackprobe.kinds import registry
from stackprobe.kinds.checks import EveryHostReported
from stackprobe.kinds.network.pairs import resolve_pairs
from stackprobe.kinds.network.rdma_argv import Chosen, choose_port, listing_argv, perftest_argv
from stackprobe.kinds.network.rdma_report import NoFlaggedRdmaPair, rdma_tables
from stackprobe.kinds.network.rdma_run import UNREAD, no_pair, options, skip_line, unmeasured
from stackprobe.parsers.network.perftest_text import parse_perftest
from stackprobe.parsers.network.rdma_ports import parse_rdma_ports
from stackprobe.plan.expand import expand
from stackprobe.schema.fabric_records import PerftestRecord
from stackprobe.schema.results import StepResult
from stackprobe.suite.loader import SuiteError, load_hosts, parse_suite

FIX = Path(__file__).parent / "fixtures"
TREES = FIX / "synthetic" / "rdma"
PUBLIC_LOG = FIX / "public" / "perftest" / \
    "perftest_9-tests_write-read-send-atomic_bw-lat_mlx4_shell-log.txt"
HOSTS = FIX.parent / "golden" / "plans" / "hosts.yaml"
KIND = registry.kind("rdma")


def _ports(tree: str | None):
    """The step's own listing command run on a tree (None: this machine's /)."""
    root = None if tree is None else str(TREES / tree)
    out = subprocess.run(listing_argv(root), capture_output=True, text=True, check=True).stdout
    return parse_rdma_ports(out)


# ------------------------------------------------------------------ discovery

def test_the_active_port_of_a_recorded_tree_is_chosen():
    ports = _ports("mlx4-qdr")
    assert [(p.name, p.state, p.rate_gbps, p.link_layer) for p in ports] == [
        ("mlx4_0 port 1", "ACTIVE", 40.0, "InfiniBand"), ("mlx4_0 port 2", "DOWN", 10.0, "Ethernet")]
    assert ports[0].phys_state == "LinkUp" and ports[0].rate_text == "4X QDR"
    assert choose_port(ports, None, None).port == ports[0]
    assert choose_port(ports, "mlx4_0", 2).why == "no ACTIVE RDMA port (mlx4_0 port 2 DOWN)"
    assert choose_port(ports, "mlx5_0", None).why == "no mlx5_0 (it has mlx4_0 port 1, mlx4_0 port 2)"


def test_a_tree_whose_ports_are_down_and_this_machine_have_none_to_test():
    down = choose_port(_ports("mlx4-port1-down"), None, None)
    assert down.port is None and down.why == ("no ACTIVE RDMA port (mlx4_0 port 1 DOWN, "
                                              "mlx4_0 port 2 DOWN)")
    here = _ports(None) if not Path("/sys/class/infiniband").exists() else []
    assert here == [] and choose_port(here, None, None).why == "no RDMA device"
    assert _ports("no-such-tree") == []


def test_the_skip_line_names_the_hosts():
    chosen = {"h1": Chosen(None, "no RDMA device"), "h2": Chosen(None, "no RDMA device")}
    assert skip_line(chosen) == "no RDMA device on h1, h2"
    chosen["h3"] = Chosen(None, "no ACTIVE RDMA port (mlx4_0 port 1 DOWN)")
    assert skip_line(chosen) == ("no RDMA device on h1, h2; h3: no ACTIVE RDMA port "
                                 "(mlx4_0 port 1 DOWN)")
    assert no_pair(chosen).status == "skipped"
    chosen["h5"] = Chosen(None, f"{UNREAD} (RDMA port listing: line 1: not ...)")
    assert no_pair(chosen).status == "failed" and "h5: its RDMA ports" in no_pair(chosen).error
    del chosen["h5"]
    chosen["h4"] = Chosen(_ports("mlx4-qdr")[0])
    assert unmeasured([("h4", "h3"), ("h1", "h2"), ("h4", "h4")], chosen) == [
        "h4→h3 not measured: h3: no ACTIVE RDMA port (mlx4_0 port 1 DOWN)",
        "h1→h2 not measured: h1: no RDMA device; h2: no RDMA device"]


@pytest.mark.parametrize(("text", "message"), [
    ("mlx4_0/ports/1/state:ACTIVE\n", "line 1: mlx4_0 port 1 state 'ACTIVE' is not"),
    ("mlx4_0/ports/1/state:4: ACTIVE\nhello\n", "line 2: not '<device>/ports/<n>/"),
    ("mlx4_0/ports/1/rate:fast\n", "line 1: mlx4_0 port 1 rate 'fast' is not"),
])
def test_a_listing_that_is_not_sysfs_is_one_line_naming_the_line(text, message):
    with pytest.raises(ValueError) as exc:
        parse_rdma_ports(text)
    assert message in str(exc.value) and "\n" not in str(exc.value)


# ------------------------------------------------------------------ plan and commands

def _plan(step: str):
    suite = parse_suite(f"name: t\nsteps:\n  - {step}\n", "s.yaml")
    return expand(suite, hosts=load_hosts(HOSTS))[0]


def test_both_sides_get_the_same_options_and_the_client_the_address():
    planned = _plan("{kind: rdma, hosts: all, size: all, iterations: 2000, report_gbits: true,"
                    " gid_index: 3, tcp_port: 18600}")
    assert list(planned.hosts) == ["h1", "h2", "h3"]
    port = _ports("mlx4-qdr")[0]
    server = perftest_argv("ib_write_bw", port, options(planned.spec), None)
    assert server == ["ib_write_bw", "-d", "mlx4_0", "-i", "1", "-p", "18600", "-F", "-x", "3",
                      "-a", "-n", "2000", "--report_gbits"]
    assert perftest_argv("ib_write_bw", port, options(planned.spec), "10.99.0.12") == \
        [*server, "10.99.0.12"]
    timed = _plan("{kind: rdma, hosts: all, tests: [send_lat], size: 64k, duration: 5s}")
    assert perftest_argv("ib_send_lat", port, options(timed.spec), "h") == [
        "ib_send_lat", "-d", "mlx4_0", "-i", "1", "-p", "18515", "-F", "-s", "65536", "-D",
        "5", "h"]
    assert planned.estimate_s > 6 * 2 * 23 and timed.estimate_s < planned.estimate_s
    assert KIND.needs(planned.spec) == ()  # perftest only where a device is: the runner
    assert {t.package for t in KIND.tools} == {"perftest"}


@pytest.mark.parametrize(("step", "message"), [
    ("{kind: rdma, size: all, duration: 5}", "only by iterations"),
    ("{kind: rdma, pairs: [[h1, h1]]}", "a pair of one host"),
    ("{kind: rdma, probe_root: recorded}", "an absolute path"),
    ("{kind: rdma, tests: [write_lat, atomic_bw]}", "steps[0].tests[1]: Input should be"),
])
def test_a_bad_step_is_a_suite_error_naming_the_line(step, message):
    with pytest.raises(SuiteError) as exc:
        parse_suite(f"name: t\nsteps:\n  - {step}\n", "s.yaml")
    assert "s.yaml:3" in str(exc.value) and message in str(exc.value)


def test_listed_pairs_must_be_the_steps_hosts():
    spec = _plan("{kind: rdma, hosts: all, pairs: [[h1, h9]]}").spec
    assert resolve_pairs(spec.pairs, ["h1", "h2"], "run") == \
        "pairs: h9 not among the step's hosts (h1, h2)"


# ------------------------------------------------------------------ pairs on public outputs

def _public() -> dict[str, PerftestRecord]:
    records = parse_perftest(PUBLIC_LOG.read_text(encoding="utf-8"))
    return {r.benchmark: r for r in reversed(records)}  # the first of each test


def _scaled(rec: PerftestRecord, client: str, server: str, factor: float) -> PerftestRecord:
    """The record as a pair's: its figures times `factor` (a slower or a slower-to-answer link)."""
    rows = [r.model_copy(update={k: v * factor for k, v in r.model_dump().items()
                                 if k.endswith(("_bytes", "_ns")) and k != "size_bytes"
                                 and v is not None}) for r in rec.rows]
    return rec.model_copy(update={"client": client, "server": server, "rows": rows})


def _fleet() -> list[PerftestRecord]:
    """3 hosts, every ordered pair, both tests: h1→h3 writes at 56/100 of the others (an FDR
    cable in an EDR fabric, one way), h2→h3's send latency is doubled, h3→h2 failed."""
    pub = _public()
    out = []
    for a, b in [("h1", "h2"), ("h1", "h3"), ("h2", "h1"), ("h2", "h3"), ("h3", "h1"), ("h3", "h2")]:
        out.append(_scaled(pub["ib_write_bw"], a, b, 0.56 if (a, b) == ("h1", "h3") else 1.0))
        if (a, b) == ("h3", "h2"):
            out.append(PerftestRecord(benchmark="ib_send_lat", title="ib_send_lat", client=a,
                                      server=b, error="ib_send_lat: Couldn't connect to h2:18515"))
        else:
            out.append(_scaled(pub["ib_send_lat"], a, b, 2.0 if (a, b) == ("h2", "h3") else 1.0))
    return out


def test_the_slow_direction_the_slow_answer_and_the_failure_are_flagged_alone():
    cells = build_cells(_fleet())
    flagged = {(c.test, c.pair): c.flags for c in cells if c.flags}
    assert flagged == {("ib_write_bw", "h1→h3"): ["slow"], ("ib_send_lat", "h2→h3"): ["latency"],
                       ("ib_send_lat", "h3→h2"): ["failed"]}
    write = next(c for c in cells if c.test == "ib_write_bw" and c.pair == "h1→h2")
    assert write.size_bytes == 8388608 and write.bw_avg_bytes == pytest.approx(3665.25 * 2**20)
    lat = next(c for c in cells if c.test == "ib_send_lat" and c.pair == "h1→h2")
    assert lat.size_bytes == 2 and lat.lat_typical_ns is not None and lat.lat_p99_ns is not None
    slow = next(c for c in cells if c.flags == ["slow"])
    assert "0.56× the median pair" in slow.notes[0]


def test_two_pairs_have_no_median_to_be_far_from():
    two = [_scaled(_public()["ib_write_bw"], "h1", "h2", 1.0),
           _scaled(_public()["ib_write_bw"], "h2", "h1", 0.3)]
    assert [c.flags for c in build_cells(two)] == [[], []]


def _step(records: list[PerftestRecord]) -> StepResult:
    cells = build_cells(records)
    found = {"hosts": ["h1", "h2", "h3"], "tests": ["ib_write_bw", "ib_send_lat"],
             "ports": {"h1": "mlx4_0 port 1 (40 Gb/s 4X QDR InfiniBand)"},
             "cells": [c.as_dict() for c in cells]}
    return StepResult(id="01-rdma", index=1, kind="rdma", name="rdma", title="RDMA",
                      layer="network", params={}, status="ok", findings={"rdma": found})


def test_the_pair_table_matrices_and_criterion_read_the_stored_finding():
    step = _step(_fleet())
    pairs, write, send = rdma_tables([step])
    assert len(pairs.rows) == 12 and pairs.rows[0][:3] == ["h1→h2", "ib_send_lat", "2 B"]
    failed = next(r for r in pairs.rows if r[:2] == ["h3→h2", "ib_send_lat"])
    assert failed[3] == "⚠ failed" and failed[5] == "failed"
    assert write.title.startswith("RDMA ib_write_bw matrix") and write.headers[1:] == ["h1", "h2", "h3"]
    assert write.rows[0][3].startswith("⚠ ") and not write.rows[2][1].startswith("⚠")
    assert pairs.headers[3] == "BW peak / lat typical"  # no '|' to break a Markdown table
    assert send.rows[1][3].startswith("⚠ ") and send.rows[2][2] == "⚠ failed"
    outcomes = NoFlaggedRdmaPair().outcomes(None, [step])
    assert sum(not o.ok for o in outcomes) == 3 and len(outcomes) == 12
    single = _step([_scaled(_public()["ib_write_bw"], "h1", "h2", 1.0)])
    assert [t.title.split(" (")[0] for t in rdma_tables([single])] == ["RDMA pairs, perftest"]
    skipped = StepResult(id="02-rdma", index=2, kind="rdma", name="rdma", title="RDMA",
                         layer="network", params={}, status="skipped",
                         error="no RDMA device on h1, h2")
    assert rdma_tables([skipped]) == [] and NoFlaggedRdmaPair().outcomes(None, [skipped]) == []
    skipped.hosts = ["h1", "h2"]  # not run: its hosts are not missing (no warning, so
    assert EveryHostReported().outcomes(None, [skipped]) == []  # --strict passes unnamed)
