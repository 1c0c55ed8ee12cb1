"""Exports read back by the formats' own parsers: what a Prometheus server, InfluxDB or a
spreadsheet would see, not what our writer thinks it wrote.

OpenMetrics through prometheus_client's OpenMetrics parser (and its Prometheus text parser,
which the textfile collector and the Pushgateway speak); line protocol through
line-protocol-parser; CSV through csv.DictReader. Every figure of every recorded run must
come back with its labels and value; nasty suite and host names must survive the trip.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from line_protocol_parser import parse_line
from prometheus_client.openmetrics.parser import text_string_to_metric_families as read_om
from prometheus_client.parser import text_string_to_metric_families as read_prometheus_text

from conftest import FIXTURES
from fuzz_support import FUZZ
from stackprobe.report.export_csv import to_figures_csv
from stackprobe.report.export_influx import to_line_protocol
from stackprobe.report.export_labels import LABELS, exported, iso_to_ns
from stackprobe.report.export_openmetrics import to_openmetrics
from stackprobe.report.figure_keys import run_figures
from stackprobe.schema.results import RunResults
from stackprobe.schema.verdict import CheckItem, Verdict
from stackprobe.store.rundir import load_results

RUNS = sorted((FIXTURES / "recorded" / "runs-after-kind-contract").iterdir())
NASTY = 'a "quoted" \\back\\slash\nnew,line = x'
FAMILY = {"iops": "stackprobe_iops", "bw": "stackprobe_bandwidth_bytes_per_second",
          "lat": "stackprobe_latency_seconds", "p99": "stackprobe_latency_seconds"}


def _load(run: Path) -> RunResults:
    return load_results(run)


def _nasty(run: Path) -> RunResults:
    """A recorded run under a suite, run id and controller host no exporter should trust."""
    results = load_results(run)
    results.run.suite = "suite " + NASTY
    results.run.id = "run=" + NASTY
    results.run.host = "host," + NASTY
    return results


def _expected(results: RunResults) -> dict[tuple, tuple[dict, float]]:
    """(step, key) -> (labels, value in the unit the format uses), from run_figures."""
    out = {}
    for item in exported(results):
        value = item.value / 1e9 if item.unit == "ns" else item.value
        out[(item.labels["step"], item.labels["key"])] = (item.labels, value)
    return out


# --- OpenMetrics -------------------------------------------------------------------------

def _om_samples(text: str, reader=read_om) -> dict[tuple, tuple[str, dict, float]]:
    out = {}
    for family in reader(text):
        if family.name not in set(FAMILY.values()):
            continue
        for sample in family.samples:
            ident = (sample.labels["step"], sample.labels["key"])
            assert ident not in out, f"one series twice: {ident}"
            out[ident] = (family.name, sample.labels, sample.value)
    return out


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
@pytest.mark.parametrize("nasty", [False, True], ids=["as-recorded", "nasty-names"])
def test_openmetrics_every_figure_back_with_labels(run, nasty):
    results = _nasty(run) if nasty else _load(run)
    expected = _expected(results)
    assert expected, "a recorded run has figures"
    text = to_openmetrics(results)
    assert text.endswith("# EOF\n")
    for reader in (read_om, read_prometheus_text):
        got = _om_samples(text, reader)
        assert set(got) == set(expected)
        for ident, (labels, value) in expected.items():
            family, got_labels, got_value = got[ident]
            assert family == FAMILY[labels["figure"]]
            stat = {"lat": "mean", "p99": "p99"}.get(labels["figure"])
            assert got_labels == {**labels, **({"stat": stat} if stat else {})}
            assert math.isclose(got_value, value, rel_tol=1e-12)
    if nasty:
        some = next(iter(_om_samples(text).values()))[1]
        assert some["suite"] == "suite " + NASTY and some["run"] == "run=" + NASTY


def test_openmetrics_metadata_and_units():
    results = _load(RUNS[0])
    families = {f.name: f for f in read_om(to_openmetrics(results))}
    assert families["stackprobe_latency_seconds"].unit == "seconds"
    assert families["stackprobe_bandwidth_bytes_per_second"].unit == "bytes_per_second"
    assert all(f.type == "gauge" and f.documentation for f in families.values())
    start = families["stackprobe_run_start_timestamp_seconds"].samples[0]
    assert start.value == iso_to_ns(results.run.started) / 1e9
    assert start.labels["host"] == results.run.host
    assert "stackprobe_check" not in families, "a run without a verdict has no checks"


def test_openmetrics_verdict_checks_and_exit_code():
    results = _load(RUNS[-1])
    rule = 'fio:rw=randread,bs=4k:iops >= 1k "quoted" \\ and\nmore'
    results.verdict = Verdict(status="fail", exit_code=3, items=[
        CheckItem(kind="criterion", rule=rule, origin="suite.yaml:4", status="fail"),
        CheckItem(kind="criterion", rule="fio:rw=randread:p99 <= 1ms", origin="suite.yaml:5",
                  status="pass"),
        CheckItem(kind="finding", rule="steady state", status="warn"),
        CheckItem(kind="regression", rule="fio:rw=read:bw", status="not measured"),
    ])
    families = {f.name: f for f in read_om(to_openmetrics(results))}
    checks = {s.labels["rule"]: (s.labels, s.value) for s in families["stackprobe_check"].samples}
    assert len(checks) == 4
    assert checks[rule][0]["status"] == "fail" and checks[rule][1] == 0
    assert checks[rule][0]["kind"] == "criterion" and checks[rule][0]["origin"] == "suite.yaml:4"
    assert checks["fio:rw=randread:p99 <= 1ms"][1] == 1
    assert checks["steady state"][0]["status"] == "warn" and checks["steady state"][1] == 0
    assert checks["fio:rw=read:bw"][0]["status"] == "not measured"
    (code,) = families["stackprobe_verdict_exit_code"].samples
    assert code.value == 3 and code.labels["status"] == "fail"


def test_openmetrics_per_host_rows_name_their_host():
    results = _load(next(r for r in RUNS if "multi-host" in r.name))
    hosts = {labels["host"] for _, labels, _ in _om_samples(to_openmetrics(results)).values()}
    assert {"h1", "h2", "h3"} <= hosts
    assert results.run.host in hosts  # the rows about no one host: the controller


# --- InfluxDB line protocol --------------------------------------------------------------

def _points(text: str) -> list[dict]:
    lines = text.splitlines()
    points = [parse_line(line) for line in lines]
    assert all(p is not None for p in points), "no line read as a comment"
    return points


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
@pytest.mark.parametrize("nasty", [False, True], ids=["as-recorded", "nasty-names"])
def test_line_protocol_every_figure_back_with_tags(run, nasty):
    results = _nasty(run) if nasty else _load(run)
    items = exported(results)
    points = _points(to_line_protocol(results))
    assert len(points) == len(items)
    steps = {s.id: s for s in results.steps}
    for item, point in zip(items, points):
        assert point["measurement"] == "stackprobe"
        want = {k: v.replace("\n", "\\n") for k, v in item.labels.items() if v}
        assert point["tags"] == want
        assert point["fields"] == {"value": item.value, "unit": item.unit}
        ended = steps[item.labels["step"]].ended
        assert point["time"] == iso_to_ns(ended) and point["time"] > 1.7e18
    if nasty:
        assert points[0]["tags"]["host"] in ("host," + NASTY.replace("\n", "\\n"), "h1")
        assert points[0]["tags"]["suite"] == "suite " + NASTY.replace("\n", "\\n")


# any label text but one ending in a backslash (docs/export.md: InfluxDB 1.x cannot read it)
_LABEL_TEXT = st.text(alphabet=st.sampled_from(list('ab\\,= "#=\n\'{}:@')), min_size=1).filter(
    lambda t: not t.endswith("\\"))


@FUZZ
@given(suite=_LABEL_TEXT, host=_LABEL_TEXT)
def test_any_label_text_survives_both_formats(suite, host):
    results = _load(RUNS[-1])
    results.run.suite, results.run.host = suite, host
    point = _points(to_line_protocol(results))[0]
    assert point["tags"]["suite"] == suite.replace("\n", "\\n")
    assert point["tags"]["host"] == host.replace("\n", "\\n")
    sample = next(iter(_om_samples(to_openmetrics(results)).values()))[1]
    assert (sample["suite"], sample["host"]) == (suite, host)


def test_line_protocol_series_are_distinct():
    """Points of one measurement, tag set and time overwrite each other in InfluxDB."""
    for run in RUNS:
        points = _points(to_line_protocol(_load(run)))
        series = {(tuple(sorted(p["tags"].items())), p["time"]) for p in points}
        assert len(series) == len(points), run.name


# --- CSV ---------------------------------------------------------------------------------

@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
@pytest.mark.parametrize("nasty", [False, True], ids=["as-recorded", "nasty-names"])
def test_csv_every_figure_back(run, nasty):
    results = _nasty(run) if nasty else _load(run)
    rows = list(csv.DictReader(io.StringIO(to_figures_csv(results))))
    figures = run_figures(results)
    assert len(rows) == len(figures)
    for row, fig in zip(rows, figures):
        assert row["key"] == fig.key.text and row["step"] == fig.step
        assert row["workload"] == fig.key.workload and row["figure"] == fig.key.figure
        assert row["direction"] == fig.key.direction
        assert float(row["value"]) == fig.value and row["unit"] == fig.unit
        assert row["suite"] == results.run.suite and row["run"] == results.run.id
        assert row["host"] == (fig.key.host or results.run.host)


def test_labels_are_the_documented_ones():
    item = exported(_load(RUNS[0]))[0]
    assert tuple(item.labels) == LABELS
