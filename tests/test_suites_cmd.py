"""`stackprobe suites` lists every built-in suite with `plan`'s step count and estimate;
`suites show NAME` prints the shipped YAML, comments and all, so a copy runs as the original."""

from __future__ import annotations

from typer.testing import CliRunner

from conftest import run_cli
from stackprobe.cli.app import app
from stackprobe.plan.expand import expand
from stackprobe.suite.loader import builtin_names, load_suite, parse_suite
from stackprobe.units import fmt_seconds


def test_every_builtin_suite_is_listed_with_its_plan():
    out = CliRunner().invoke(app, ["suites"], env={"COLUMNS": "250"})
    assert out.exit_code == 0, out.output
    rows = {line.split("│")[1].strip(): line for line in out.output.splitlines()
            if line.startswith("│")}
    assert sorted(rows) == builtin_names()
    for name in builtin_names():
        loaded = load_suite(name)
        plan = expand(loaded.suite, loaded.base_dir, None)
        cells = [c.strip() for c in rows[name].split("│")[1:-1]]
        assert cells[1:3] == [str(len(plan)), fmt_seconds(sum(s.estimate_s for s in plan))]
        assert cells[3] == (loaded.suite.description or "")


def test_show_prints_the_shipped_yaml_which_loads_as_the_original():
    out = CliRunner().invoke(app, ["suites", "show", "check"])
    assert out.exit_code == 0, out.output
    shipped = load_suite("check")
    assert out.output == shipped.text and out.output.startswith("# check:")
    assert parse_suite(out.output, "copy.yaml") == shipped.suite


def test_an_unknown_name_is_one_line_naming_the_built_in_ones():
    proc = run_cli(["suites", "show", "nope"], timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("stackprobe: nope: not a built-in suite (ceph-clients,")
    assert len(proc.stderr.splitlines()) == 1
