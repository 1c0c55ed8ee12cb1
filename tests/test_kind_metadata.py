"""Metadata, io500 and io500-like steps in a plan: where they may run, their sweeps, titles,
layers, estimates; bad combinations refused with the file, line and field."""

from __future__ import annotations

import pytest

from stackprobe.errors import UserError
from stackprobe.plan.expand import expand
from stackprobe.suite.loader import parse_suite


def _plan(text: str):
    return expand(parse_suite(text, "s.yaml"))


def test_layout_and_target_sweep_with_titles_layers_and_ceph():
    steps = _plan("""
name: s
steps:
  - kind: metadata
    layout: [easy, hard]
    target: [local, cephfs]
""")
    assert [(s.params["layout"], s.params["target"]) for s in steps if s.kind == "metadata"] == [
        ("easy", "local"), ("easy", "cephfs"), ("hard", "local"), ("hard", "cephfs")]
    md = [s for s in steps if s.kind == "metadata"]
    assert md[0].title == "File metadata operations (easy: a directory per process)"
    assert md[3].title == "File metadata operations (hard: one shared directory) on CephFS"
    assert [s.layer for s in md] == ["disk", "client", "disk", "client"]
    assert [s.on_ceph for s in md] == [False, True, False, True]
    assert steps[1].kind == "ceph_inventory"  # recorded before the first step on Ceph


def test_io500_kinds_are_planned_with_estimates():
    steps = _plan("""
name: s
steps:
  - kind: io500_like
    numjobs: 4
    easy_size: 1g
  - kind: io500
    stonewall: 30s
""")
    like, real = steps
    assert like.title == "io500-like phases (not an official IO500 score)"
    assert like.space_bytes >= 4 * 1024**3 and like.estimate_s > 10
    assert real.layer == "client" and real.estimate_s == 12 * 30 + 60


@pytest.mark.parametrize(("step", "where"), [
    ("  - kind: metadata\n    directory: /mnt/x\n",
     "s.yaml:3: steps[0]: directory: is for steps with hosts"),
    ("  - kind: metadata\n    hosts: all\n    target: cephfs\n    directory: /mnt/x\n",
     "s.yaml:3: steps[0]: target cephfs is the run's CephFS, mounted by each host"),
    ("  - kind: metadata\n    layout: medium\n", "s.yaml:4: steps[0].layout"),
    ("  - kind: io500_like\n    numjobs: 0\n", "s.yaml:4: steps[0].numjobs"),
    ("  - kind: io500\n    tool: elbencho\n", "s.yaml:4: steps[0].tool"),
])
def test_bad_steps_name_line_and_field(step, where):
    with pytest.raises(UserError) as err:
        _plan("name: s\nsteps:\n" + step)
    text = str(err.value)
    assert text.startswith(where) and "\n" not in text
