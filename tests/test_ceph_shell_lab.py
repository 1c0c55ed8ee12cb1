"""Watching's librados client (kinds/ceph/shell.py) against the real lab cluster
(conftest.ceph_lab): it answers what the `ceph` CLI prints for every command it takes, a
step watched through it keeps the same files and figures as one watched through the CLI,
and when it is gone the watch goes on through the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from stackprobe.engine.ceph_watch import FILES, CephWatch
from stackprobe.kinds.ceph.shell import REQUESTS, CephShell
from stackprobe.kinds.ceph.target import CephTarget
from stackprobe.parsers.ceph.perf_dump import parse_perf_dump, split_tell_all
from stackprobe.transport.local import LocalTransport

pytestmark = pytest.mark.ceph


@pytest.fixture
def shell(ceph_lab):
    s = CephShell(CephTarget(ceph_lab.conf))
    assert s.start(), s.problem
    yield s
    s.close()


def _cli(conf, *args):
    return subprocess.run(["ceph", "-c", str(conf), *args, "-f", "json"], capture_output=True,
                          text=True, timeout=60)


def _same_shape(a, b):
    """The same keys all the way down (the counters themselves move between two reads)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(
            _same_shape(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and all(_same_shape(x, y) for x, y in zip(a, b))
    return type(a) is type(b) or {type(a), type(b)} <= {int, float}


def test_each_command_answers_what_the_cli_prints(ceph_lab, shell):
    for args in REQUESTS:
        mine, cli = shell.run(args), _cli(ceph_lab.conf, *args)
        assert mine is not None and mine.returncode == 0 == cli.returncode, (args, mine)
        assert _same_shape(json.loads(mine.stdout), json.loads(cli.stdout)), args
    mine = shell.run(("tell", "osd.*", "perf", "dump"))
    cli = _cli(ceph_lab.conf, "tell", "osd.*", "perf", "dump")
    ours, theirs = split_tell_all(mine.stdout), split_tell_all(cli.stdout)
    assert sorted(ours) == sorted(theirs) == [0, 1, 2]
    for osd in ours:
        assert _same_shape(json.loads(ours[osd]), json.loads(theirs[osd]))
        parse_perf_dump(ours[osd])


def test_a_command_it_does_not_take_goes_to_the_cli_and_errors_are_the_osds(shell):
    assert shell.run(("status",)) is None
    res = shell.run(("tell", "osd.*", "no-such-command"))
    assert res.returncode == 22 and res.stdout == ""
    assert res.stderr.count("Error osd.") == 3 and "no-such-command" in res.stderr


def test_a_wrong_key_is_a_problem_in_words_and_no_process_left(ceph_lab, tmp_path):
    keyring = tmp_path / "bad.keyring"
    keyring.write_text("[client.admin]\n\tkey = AQBSdFhjAAAAABAAcmGXfnZ9XwWdIDlDQLc0+w==\n")
    s = CephShell(CephTarget(ceph_lab.conf, keyring=keyring), op_timeout_s=10)
    t0 = time.monotonic()
    assert not s.start()
    assert s.problem and time.monotonic() - t0 < 60, s.problem
    assert s._proc is None


def test_a_step_watched_through_it_keeps_the_clis_files(ceph_lab, shell, tmp_path):
    target = CephTarget(ceph_lab.conf)
    views = {}
    for name, through in (("cli", None), ("shell", shell)):
        watch = CephWatch(target, LocalTransport("here"), interval_s=1.0, shell=through)
        watch.start()
        time.sleep(2.5)
        step_dir = tmp_path / name
        step_dir.mkdir()
        view, _, problems = watch.stop(step_dir)
        assert problems == [], (name, problems)
        assert sorted(p.name for p in step_dir.iterdir()) == sorted(FILES.values()), name
        assert view["samples"]["osd_perf"] >= 1 and sorted(view["osds"]) == ["osd.0", "osd.1", "osd.2"]
        views[name] = view
    assert views["cli"].keys() == views["shell"].keys()


def test_when_it_ends_the_watch_goes_on_through_the_cli(ceph_lab, shell, tmp_path):
    watch = CephWatch(CephTarget(ceph_lab.conf), LocalTransport("here"), shell=shell)
    watch.start()
    os.kill(shell._proc.pid, 9)  # the helper is this test's child: gone mid-step
    view, _, problems = watch.stop(tmp_path)
    assert problems == [] and sorted(view["osds"]) == ["osd.0", "osd.1", "osd.2"], problems
    assert shell.problem and shell.run(("osd", "perf")) is None
