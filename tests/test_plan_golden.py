"""Every built-in suite plans exactly the steps it planned before the kind contract.

The goldens in tests/golden/plans were written by the code before step kinds moved into
one module each: for every built-in suite, without and with a hosts file
(tests/golden/plans/hosts.yaml), every planned step's fields as JSON and the `stackprobe
plan` table as printed 250 columns wide. A refactoring that changes a name, a title, a
parameter, an estimate or the space a step needs fails here. A change of behaviour made on
purpose rewrites the suites' goldens it touches in the same commit (mpi_pairs' one-way
bandwidth, then its recheck: cluster-acceptance and fabric).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stackprobe.cli.app import app
from stackprobe.plan.expand import expand
from stackprobe.suite.loader import builtin_names, load_hosts, load_suite

GOLDEN = Path(__file__).resolve().parent / "golden" / "plans"
HOSTS = GOLDEN / "hosts.yaml"
SUITES = builtin_names()


def plan_doc(suite: str, hosts_file: Path | None) -> list[dict]:
    """The planned steps' fields, as the goldens hold them."""
    loaded = load_suite(suite)
    hosts = load_hosts(hosts_file) if hosts_file is not None else None
    out = []
    for s in expand(loaded.suite, loaded.base_dir, hosts):
        out.append(dict(
            index=s.index, name=s.name, kind=s.kind, title=s.title, layer=s.layer,
            params=s.params, swept=s.swept, headline=s.headline, estimate_s=s.estimate_s,
            space_bytes=s.space_bytes,
            repeat=None if s.repeat is None else [s.repeat.min, s.repeat.max, s.repeat.cov],
            sweep=s.sweep, hosts=list(s.hosts), timeout_s=s.timeout_s, on_ceph=s.on_ceph,
            per_node=s.per_node))
    return json.loads(json.dumps(out, sort_keys=True, default=str))


def test_every_builtin_suite_has_goldens():
    assert SUITES, "built-in suites found"
    for suite in SUITES:
        for name in (f"{suite}.json", f"{suite}.hosts.json", f"{suite}.txt", f"{suite}.hosts.txt"):
            assert (GOLDEN / name).is_file(), name


@pytest.mark.parametrize("with_hosts", [False, True], ids=["local", "hosts"])
@pytest.mark.parametrize("suite", SUITES)
def test_planned_steps_unchanged(suite, with_hosts):
    name = f"{suite}.hosts.json" if with_hosts else f"{suite}.json"
    expected = json.loads((GOLDEN / name).read_text())
    assert plan_doc(suite, HOSTS if with_hosts else None) == expected


@pytest.mark.parametrize("with_hosts", [False, True], ids=["local", "hosts"])
@pytest.mark.parametrize("suite", SUITES)
def test_plan_table_unchanged(suite, with_hosts):
    args = ["plan", suite] + (["--hosts", str(HOSTS)] if with_hosts else [])
    result = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    name = f"{suite}.hosts.txt" if with_hosts else f"{suite}.txt"
    assert result.output == (GOLDEN / name).read_text()
