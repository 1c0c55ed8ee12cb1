"""`stackprobe export` as a user runs it: a subprocess, standard output or --output, and
one line with exit 2 for what the user can fix."""

from __future__ import annotations

import csv
import io
import shutil

from line_protocol_parser import parse_line
from prometheus_client.openmetrics.parser import text_string_to_metric_families as read_om

from conftest import FIXTURES, run_cli
from stackprobe.report.figure_keys import run_figures
from stackprobe.store.rundir import load_results

RUN = FIXTURES / "recorded" / "runs-after-kind-contract" / "20261124T053610Z-trust"


def test_export_to_standard_output_in_each_format():
    figures = run_figures(load_results(RUN))
    om = run_cli(["export", RUN, "--format", "openmetrics"], check=0)
    samples = [s for f in read_om(om.stdout) for s in f.samples
               if f.name != "stackprobe_run_start_timestamp_seconds"]
    assert len(samples) == len(figures)
    influx = run_cli(["export", RUN, "-f", "influx"], check=0)
    points = [parse_line(line) for line in influx.stdout.splitlines()]
    assert [p["fields"]["value"] for p in points] == [f.value for f in figures]
    table = run_cli(["export", RUN, "--format", "csv"], check=0)
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert [r["key"] for r in rows] == [f.key.text for f in figures]
    assert om.stderr == influx.stderr == table.stderr == ""


def test_export_by_run_id_under_out_to_a_file(tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(RUN, runs / RUN.name)
    target = tmp_path / "metrics" / "stackprobe.prom"
    run_cli(["export", RUN.name, "--out", runs, "--format", "openmetrics", "--output", target],
            check=0)
    assert target.read_text().endswith("# EOF\n")
    assert [p.name for p in target.parent.iterdir()] == ["stackprobe.prom"], "no temp file left"


def test_bad_run_is_one_line_exit_2(tmp_path):
    missing = run_cli(["export", tmp_path / "nope", "--format", "csv"], check=2)
    assert missing.stdout == "" and len(missing.stderr.strip().splitlines()) == 1
    assert "nope" in missing.stderr and "Traceback" not in missing.stderr
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.json").write_text('{"run": \n  oops}\n')
    bad = run_cli(["export", broken, "--format", "influx"], check=2)
    assert len(bad.stderr.strip().splitlines()) == 1
    assert "results.json:2" in bad.stderr and "Traceback" not in bad.stderr


def test_bad_format_is_one_line_exit_2():
    bad = run_cli(["export", RUN, "--format", "xml"], check=2)
    assert bad.stderr.strip() == "stackprobe: --format xml: choose one of openmetrics, influx, csv"
