"""`stackprobe doctor --hosts`: what it reads back from a host (the probe's parser), what it
finds on a real host (this machine through its own transport: tools, free space, clock),
an unreachable host (SSH to a closed port on 127.0.0.1, no ssh config read), and the JSON
and exit status."""

from __future__ import annotations

import json
import os
import socket
import time

import pytest

from conftest import run_cli
from stackprobe.cli.doctor_hosts import check_host, check_hosts
from stackprobe.parsers.host.doctor_probe import parse_clock, parse_doctor_probe
from stackprobe.spec.host_sources import parse_hostlist
from stackprobe.spec.host_sources.ssh_options import with_ssh_options
from stackprobe.spec.hosts import Host
from stackprobe.spec.tools import Tool
from stackprobe.transport.local import LocalTransport

# beside the one-at-a-time system tests (tests/run_tiers.py): what doctor finds; its one time limit bounds an unreachable host, which a slower run only makes harder
pytestmark = pytest.mark.beside


def test_probe_lines_are_read_and_anything_else_refused():
    probe = parse_doctor_probe("tool\tfio\tyes\ntool\tiperf3\tno\nspace\t/srv\t10 4096\n"
                               "space\t/gone\t?\n")
    assert probe.tools == {"fio": True, "iperf3": False}
    assert probe.free_bytes == {"/srv": 40960, "/gone": None}
    for bad in ("hello\n", "space\t/srv\t1\n", "space\trelative\t1 2\n", "tool\tfio\tmaybe\n"):
        with pytest.raises(ValueError, match=r"^doctor probe line 1: "):
            parse_doctor_probe(bad)
    assert parse_clock("1764000000.123456789\n") == pytest.approx(1764000000.123456789)
    for bad in ("", "%s.%N", "1e999", "nan"):
        with pytest.raises(ValueError, match="date"):
            parse_clock(bad)


def closed_port(address: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]  # closed again when the socket is


def test_a_host_is_checked_for_tools_space_and_clock(tmp_path):
    host = Host(name="here", access="local", directories=[str(tmp_path), "/nonexistent-dir"])
    tools = (Tool("sh", "dash", ("true",), "x"), Tool("no-such-tool-here", "pkg-x", ("true",), "x"))
    finding = check_host(host, LocalTransport("here"), tools)
    assert finding.reachable and finding.error is None
    assert finding.missing_tools == ["no-such-tool-here"]
    assert finding.apt_line == "apt-get install -y pkg-x"
    st = os.statvfs(tmp_path)
    assert finding.free_bytes[str(tmp_path)] == pytest.approx(st.f_bavail * st.f_frsize, rel=0.05)
    assert finding.free_bytes["/nonexistent-dir"] is None
    assert abs(finding.clock_offset_s) <= finding.clock_error_s + 0.05  # the same clock


def test_an_unreachable_host_is_said_so_with_why():
    hosts = with_ssh_options(parse_hostlist("127.0.0.1"), port=closed_port(), config="none")
    t0 = time.monotonic()
    (finding,) = check_hosts(hosts, (Tool("sh", "dash", ("true",), "x"),))
    assert not finding.reachable and "127.0.0.1" in finding.error and "\n" not in finding.error
    assert time.monotonic() - t0 < 10


@pytest.mark.tools
def test_doctor_json_reports_hosts_and_suites_and_exits_2_when_one_is_down(tmp_path):
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text(f"hosts:\n  - {{name: here, access: local, directories: [{tmp_path}]}}\n"
                     f"  - {{name: down, address: 127.0.0.2, ssh: {{port: {closed_port('127.0.0.2')}, "
                     "config: none}}\n")
    found = json.loads(run_cli(["doctor", "--json", "--hosts", hosts], check=2).stdout)
    assert {h["name"]: h["reachable"] for h in found["hosts"]} == {"here": True, "down": False}
    assert found["hosts"][0]["free_bytes"][str(tmp_path)] > 0
    assert {s["name"] for s in found["suites"]} >= {"quick", "standard", "fabric"}
    assert all(isinstance(s["can_run"], bool) for s in found["suites"])


def test_the_terminal_names_each_host_its_apt_line_and_the_unreachable(tmp_path, capsys,
                                                                       monkeypatch):
    from stackprobe.cli.doctor_print import print_findings

    monkeypatch.delenv("COLUMNS", raising=False)  # pytest-xdist's workers set 80: piped width
    tools = (Tool("sh", "dash", ("true",), "x"), Tool("no-such-tool-here", "pkg-x", ("true",), "x"))
    here = check_host(Host(name="here", access="local", directories=[str(tmp_path)]),
                      LocalTransport("here"), tools)
    (down,) = check_hosts(with_ssh_options(parse_hostlist("127.0.0.1"), port=closed_port(), config="none"), tools)
    print_findings([], [], [], [here, down])
    out = " ".join(capsys.readouterr().out.split())
    assert "here: apt-get install -y pkg-x" in out and "Unreachable: 127.0.0.1" in out
    assert f"{tmp_path} " in out and " ms ± " in out
