"""kinds/ceph/shell.py without a cluster: which commands the librados helper takes, the
text of `tell osd.*` made from its answers (read back by the CLI's parser), and finding the
`ceph` CLI's interpreter from its first line. Against the lab cluster:
tests/test_ceph_shell_lab.py."""

from __future__ import annotations

import json
import os

import pytest

from stackprobe.kinds.ceph.shell import cli_python, request_of, tell_all_text
from stackprobe.parsers.ceph.perf_dump import split_tell_all


def test_the_commands_it_takes_and_the_ones_it_leaves_to_the_cli():
    assert request_of(("health", "detail")) == {
        "cmd": {"prefix": "health", "detail": "detail", "format": "json"}}
    assert request_of(("osd", "pool", "stats"))["cmd"]["prefix"] == "osd pool stats"
    assert request_of(("tell", "osd.*", "perf", "dump")) == {
        "tell_osds": {"prefix": "perf dump", "format": "json"}}
    for other in (("status",), ("osd", "pool", "rm"), ("tell", "osd.*"), ("tell", "osd.1", "bench")):
        assert request_of(other) is None, other


def test_tell_text_reads_back_per_osd_and_names_the_silent_ones():
    dump = json.dumps({"osd": {"op": 5}})
    answers = {"10": {"rc": 0, "out": dump + "\n", "err": ""},
               "2": {"rc": 0, "out": dump, "err": ""},
               "3": {"rc": 110, "out": "", "err": "timed out"}}
    rc, out, err = tell_all_text(answers)
    assert rc == 110 and split_tell_all(out) == {2: dump, 10: dump}
    assert err == "Error osd.3: timed out (errno 110)\n"
    assert tell_all_text({"0": {"rc": 0, "out": dump, "err": ""}})[1] == f"osd.0: {dump}\n"


@pytest.mark.parametrize("first, expected", [
    ("#! /usr/bin/python3\n", "/usr/bin/python3"),
    ("#!/usr/bin/env sh\n", "/usr/bin/sh"),
    ("#!/no/such/python3\n", None),
    ("import sys\n", None),
])
def test_the_clis_interpreter_from_its_first_line(tmp_path, monkeypatch, first, expected):
    cli = tmp_path / "ceph"
    cli.write_text(first + "print('ceph')\n")
    cli.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    found = cli_python()
    assert found == expected or (expected and os.path.realpath(found) == os.path.realpath(expected))


def test_no_cli_no_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert cli_python() is None
