"""The HTML report: its SVG pieces on hand-built data, a hand-built run with every finding
the page draws, and a real fio run opened offline in headless Chromium.

The browser tests leave screenshots in tests/artifacts/ for a person to look at.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markupsafe import escape

from conftest import ROOT, run_cli
from html_report_helpers import (
    EVIL,
    START,
    SvgCensus,
    built_results,
    chromium,
    monitor_doc,
    open_offline,
    write_built_run,
)
from stackprobe.report.html import to_html
from stackprobe.report.html_timeline import step_timeline
from stackprobe.report.render import extra_tables, formatted, to_markdown
from stackprobe.report.svg import Scale, domain, linear_ticks, log_ticks, nines, tidy
from stackprobe.report.svg_charts import (
    Axis,
    Bar,
    HeatCell,
    Line,
    Point,
    RefLine,
    hbar_chart,
    heatmap,
    line_chart,
)
from stackprobe.report.table import summary_rows
from stackprobe.store.rundir import load_results
from stackprobe.units import fmt_iops, fmt_ns

ARTIFACTS = ROOT / "tests" / "artifacts"


def parse(svg: str) -> ET.Element:
    """An SVG string must be well-formed XML: that is what escaping buys."""
    return ET.fromstring(svg)


# -- (a) the SVG pieces -------------------------------------------------------------------

def test_labels_are_escaped_and_svg_stays_well_formed():
    svg = hbar_chart(EVIL, [Bar(EVIL, 5.0, tip=f"{EVIL} & more")], fmt_iops)
    line = line_chart(EVIL, [Line(EVIL, [Point(1, 2, tip=EVIL, label=EVIL)])], Axis(EVIL), Axis("y"),
                      [RefLine(1.5, EVIL)])
    heat = heatmap(EVIL, [EVIL], ["m"], {(EVIL, "m"): HeatCell(EVIL, "#ffffff", tip=EVIL)}, note=EVIL)
    for s in (svg, line, heat):
        assert "<script" not in s
        assert "&lt;script&gt;" in s
        parse(s)


@pytest.mark.parametrize("draw", [
    lambda: hbar_chart("bars", [], fmt_iops),
    lambda: line_chart("lines", [], Axis("x"), Axis("y")),
    lambda: line_chart("empty line", [Line("a", [])], Axis("x"), Axis("y", log=True)),
    lambda: heatmap("heat", [], [], {}),
])
def test_empty_data_says_so(draw):
    svg = draw()
    assert "no data" in svg
    parse(svg)


def test_one_point_is_drawn_as_a_marker_on_a_sane_scale():
    svg = line_chart("one", [Line("a", [Point(5.0, 7.0, tip="only")], markers=False)],
                     Axis("x"), Axis("y"))
    root = parse(svg)
    circles = root.findall(".//circle")
    assert len(circles) == 1
    assert "nan" not in svg.lower() and "inf" not in svg.lower()
    x = float(circles[0].get("cx"))
    assert 74 <= x <= 720 - 18


def test_scales_domains_and_ticks():
    log = Scale(1e3, 1e6, 0, 300, log=True)
    assert log(1e3) == 0 and log(1e6) == 300 and math.isclose(log(1e4), 100)
    assert log(0) == 0  # below the domain: pinned, not a math error
    assert log_ticks(1e3, 1e6) == [1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6]
    assert log_ticks(1, 1e8)[:3] == [1, 10, 100]
    assert domain([]) == (0.0, 1.0) and domain([], log=True) == (1.0, 10.0)
    assert domain([3.0]) == (0.0, 3.0)
    lo, hi = domain([5.0, 5.0], zero=False)
    assert lo < 5 < hi
    assert domain([0.0, 50.0, 200.0], log=True) == (10.0, 1000.0)  # zero left out on log
    assert [x / 2**30 for x in linear_ticks(0, 15 * 2**30, 3, binary=True)] == [0, 5, 10, 15]
    assert [nines(p) for p in (90, 99, 99.9)] == pytest.approx([1, 2, 3])
    assert tidy("10.0 ms") == "10 ms" and tidy("2.50k") == "2.5k" and tidy("1.05M") == "1.05M"


def test_log_axis_skips_non_positive_values_and_keeps_ticks():
    line = Line("lat", [Point(nines(p), v) for p, v in ((50, 0.0), (90, 1e5), (99, 1e6), (99.9, 3e7))])
    svg = line_chart("log", [line], Axis("percentile", ticks=[(nines(99), "p99")]),
                     Axis("latency", fmt_ns, log=True))
    root = parse(svg)
    labels = [t.text for t in root.iter("text")]
    assert "p99" in labels and "100 µs" in labels and "10 ms" in labels
    d = root.find(".//path").get("d")
    assert d.count("L") == 2  # three positive points, the zero left out


def test_a_huge_confidence_interval_does_not_squash_the_bars():
    bars = [Bar("repeated", 100.0, err_lo=-900.0, err_hi=1100.0), Bar("once", 80.0)]
    root = parse(hbar_chart("ci", bars, fmt_iops))
    ticks = [float(t.text) for t in root.iter("text") if t.text and t.text.isdigit()]
    assert max(ticks) <= 200  # the axis ends near twice the largest bar, not at 1100
    assert any(ln.get("stroke-dasharray") for ln in root.iter("line"))  # the cut whisker


def test_fixed_domain_cuts_points_outside_it():
    line = Line("t", [Point(-5, 1), Point(1, 2), Point(2, 3), Point(50, 4)])
    root = parse(line_chart("t", [line], Axis("s", lo=0, hi=10), Axis("v")))
    assert root.find(".//path").get("d").count("L") == 1


# -- (b) a hand-built run with findings, monitor files, an slo search ---------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    run_dir = write_built_run(tmp_path_factory.mktemp("built"))
    proc = run_cli(["report", run_dir, "--format", "html"], check=0)
    assert proc.stdout.strip().endswith("report.html")
    return run_dir, (run_dir / "report.html").read_text()


def test_hostile_text_stays_text(built):
    _, html = built
    assert "<script" not in html
    assert str(escape(EVIL)) in html


def test_no_external_reference(built):
    _, html = built
    assert "http://" not in html and "https://" not in html
    assert "src=" not in html and "<link" not in html


def test_heatmaps_monitor_panels_and_verdicts(built):
    _, html = built
    census = SvgCensus()
    census.feed(html)
    labels = census.labels
    assert any(lab.startswith("Network matrix") for lab in labels)
    assert any(lab.startswith("Node consistency: ratio to the median") for lab in labels)
    assert any(lab.startswith("Latency-bounded IOPS") for lab in labels)
    assert any(lab.startswith("IOPS per interval") for lab in labels)
    for panel in ("h1: CPU %", "h1: disk utilisation %", "h1: network bytes/s"):
        assert any(lab.startswith(panel) for lab in labels), panel
    assert not any(lab.startswith("h2:") for lab in labels)  # its file is missing...
    assert "h2: monitor file monitor-h2.json is missing" in html  # ...and the page says so
    assert "⚠ failed" in html and "⚠ 0.41×" in html  # the failed pair, the weak node
    assert "Stability: fluctuating" in html and "rand: 1 s below 80% of the median" in html
    assert "Where the limit was" in html
    disks = html[html.index('aria-label="h1: disk utilisation %"'):]
    disks = disks[:disks.index("</svg>")]
    assert ">vda<" in disks and not any(d in disks for d in ("vda1", "loop0", "sdb"))
    assert "<th>cpu.busy_max_pct</th><td class=\"num\">91.5</td>" in html
    assert "cpu.core_busy_max_pct.0" in html and "speed_mbps" not in html  # None left out
    assert html.index('id="layer-hardware"') < html.index('id="layer-disk"') \
        < html.index('id="layer-network"') < html.index('id="layer-client"')


def test_html_carries_the_markdown_tables(built):
    run_dir, html = built
    results = built_results()
    assert to_markdown(results)  # Markdown still renders the same results
    for row in summary_rows(results):
        for cell in formatted(row):
            assert str(escape(cell)) in html, cell
    for table in extra_tables(results):
        assert str(escape(table.title)) in html
        for row in table.rows:
            for cell in row:
                assert str(escape(cell)) in html, (table.title, cell)
        for note in table.notes:
            assert str(escape(note)) in html, note


@pytest.mark.parametrize("count", [0, 1])
def test_too_few_monitor_samples_draw_nothing_and_say_nothing(tmp_path, count):
    run_dir = write_built_run(tmp_path)
    doc = monitor_doc("h1", START + 180, n=count)
    (run_dir / "steps" / "03-rand" / "monitor-h1.json").write_text(json.dumps(doc))
    timeline = step_timeline(built_results().steps[2], run_dir)
    assert not any("h1:" in c for c in timeline.charts)
    assert not any(n.startswith("h1") for n in timeline.notes)


def test_without_run_directory_monitor_is_noted_not_fatal():
    html = to_html(built_results(), None)
    assert "not read (no run directory)" in html


@pytest.mark.slow
@pytest.mark.beside
def test_built_report_in_a_browser(built, tmp_path):
    if chromium() is None:
        pytest.skip("chromium is not installed (make system-deps installs it)")
    run_dir, _ = built
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report-html-findings.png"
    load = open_offline(run_dir / "report.html", shot, tmp_path / "profile")
    assert not load.page_errors, load.page_errors
    census = SvgCensus()
    census.feed(load.dom)
    assert len(census.labels) >= 10 and census.rects >= 15 and census.paths >= 8
    assert shot.stat().st_size > 10_000


# -- (c) a real run, opened offline in Chromium -------------------------------------------

SUITE = f"""
name: htmlreport
defaults:
  ioengine: libaio
  direct: 1
  size: 16M
  runtime: 1
  time_based: true
steps:
  - kind: fio
    name: randread
    title: 4k random read IOPS
    rw: randread
    bs: 4k
    iodepth: [1, 4, 16]
    headline: iops
  - kind: fio
    name: seqwrite
    title: 1M sequential write
    rw: write
    bs: 1M
    iodepth: 4
    headline: bw
    repeat: 2
  - kind: fio
    name: lat
    title: "4k random write latency {EVIL}"
    rw: randwrite
    bs: 4k
    iodepth: 1
    runtime: 3
    headline: lat
"""


@pytest.mark.slow
@pytest.mark.beside
def test_real_run_report_opens_offline_in_chromium(tmp_path):
    if chromium() is None:
        pytest.skip("chromium is not installed (make system-deps installs it)")
    target, out = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    run_cli(["run", suite, "--target", target, "--out", out], cwd=tmp_path, check=0)
    run_dir = next(p for p in out.iterdir() if p.is_dir())
    run_cli(["report", run_dir, "--format", "html"], check=0)
    report = run_dir / "report.html"
    html = report.read_text()
    assert "http://" not in html and "https://" not in html
    assert "<script" not in html  # the hostile step title is text

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report-html.png"
    load = open_offline(report, shot, tmp_path / "profile")
    assert not load.page_errors, load.page_errors
    census = SvgCensus()
    census.feed(load.dom)
    expected = ["IOPS / ops/s (fio)", "Bandwidth (fio)", "Mean latency, lower is better (fio)",
                "Sweep: 4k randread", "Latency percentiles: sweep 4k random read IOPS",
                "Latency percentiles: 1M sequential write"]
    for label in expected:
        assert label in census.labels, (label, census.labels)
    assert any(lab.endswith("per interval: 4k random write latency " + EVIL) for lab in census.labels)
    assert census.rects >= 5 and census.paths >= 5 and census.circles >= 3
    assert "4k random write latency &lt;script&gt;" in load.dom
    for step in load_results(run_dir).steps:  # monitor panels wherever sadc left two samples
        for host, info in step.monitor.items():
            doc = json.loads((run_dir / "steps" / step.id / info["file"]).read_text())
            if len(doc["samples"]) > 1:
                assert any(lab.startswith(f"{host}: CPU %") for lab in census.labels), step.id
    assert shot.stat().st_size > 20_000
    assert Path(shot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
@pytest.mark.beside
def test_the_console_check_catches_a_broken_page(tmp_path):
    """The browser tests' 'no console errors' means something: a page that logs an error
    and throws is caught by the same check."""
    if chromium() is None:
        pytest.skip("chromium is not installed (make system-deps installs it)")
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><p>x</p>"
                    "<script>console.error('marker'); notDefinedAnywhere();</script></body></html>")
    load = open_offline(page, tmp_path / "broken.png", tmp_path / "profile")
    assert any("Uncaught" in line for line in load.page_errors), load.log[-2000:]
    assert any("marker" in line for line in load.page_errors)
