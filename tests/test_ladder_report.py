"""The ladder in every report: each upper-rung result beside the ceiling its lower rungs
allow, its efficiency and the layer named as the bottleneck, in the terminal, Markdown,
the JSON report and the HTML page (a chart of bar pairs, the sentences, the table).

The run is built in memory: a disk_baseline step whose three disks together deliver 34% of
their sum, and a network step with one slow direction (2% of a 10 Gbit/s link) and one
healthy one (91%).
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

from conftest import run_cli
from html_report_helpers import SvgCensus, chromium, open_offline
from stackprobe.report.html import to_html
from stackprobe.report.ladder_tables import TITLE, ladder_table, run_ladder
from stackprobe.report.render import extra_tables, to_csv, to_json, to_markdown
from stackprobe.report.terminal import print_summary
from stackprobe.schema.results import RunInfo, RunResults, StepResult

SVG = ""  # inline SVG in HTML carries no namespace
DISKS = {"h1": {"singles": {"/d1": 30e6, "/d2": 30e6, "/d3": 30e6}, "sum_bw": 90e6,
                "aggregate_bw": 31e6, "ratio": 0.344, "min_aggregate": 0.7, "flagged": True}}
LINKS = {"h1": {"nic": "eth0", "speed_mbps": 10000}, "h2": {"nic": "eth0", "speed_mbps": 10000}}


def _run(*steps: StepResult) -> RunResults:
    info = RunInfo(id="20260101T000000Z-ladder", suite="ladder", suite_source="builtin:ladder",
                   target="/srv/t", host="ctl", started="2026-01-01T00:00:00Z",
                   ended="2026-01-01T00:05:00Z", status="ok", stackprobe_version="0.1.0")
    return RunResults(run=info, steps=list(steps))


def _disk_step(status: str = "ok") -> StepResult:
    return StepResult(id="01-disks", index=1, name="disks", kind="disk_baseline",
                      title="Disks alone and together", layer="disk", params={"rw": "read"},
                      status=status, hosts=["h1"], duration_s=30.0,
                      findings={"disk_scaling": DISKS})


def _network_step(cells: list[dict], links: dict | None = None) -> StepResult:
    # "hosts" is what the network matrix table (report/host_tables.py) lays out
    network = {"hosts": ["h1", "h2"], "links": LINKS if links is None else links, "cells": cells}
    return StepResult(id="02-network", index=2, name="network", kind="network",
                      title="Network pairs", layer="network", params={}, status="ok",
                      hosts=["h1", "h2"], duration_s=20.0, findings={"network": network})


def ladder_run() -> RunResults:
    cells = [{"client": "h1", "server": "h2", "bps": 0.19e9},
             {"client": "h2", "server": "h1", "bps": 9.1e9}]
    return _run(_disk_step(), _network_step(cells))


def _markdown_rows(md: str) -> dict[str, list[str]]:
    """The ladder table's rows in the Markdown report, by rung name."""
    part = md[md.index(f"## {TITLE}") + 3:]
    part = part[:part.index("\n## ")]  # up to the next table
    lines = [ln for ln in part.splitlines() if ln.startswith("| ")]
    return {cells[0]: cells for cells in
            ([c.strip() for c in ln.strip("|").split(" | ")] for ln in lines[1:])}


# -- terminal, Markdown, CSV, JSON -------------------------------------------------------

def test_markdown_has_the_ladder_table():
    results = ladder_run()
    md = to_markdown(results)
    assert f"## {TITLE}" in md
    assert "| Rung | Measured | Ceiling | Efficiency | Bottleneck | Ceiling from |" in md
    rows = _markdown_rows(md)
    assert list(rows) == ["disks of h1 together (read)", "network h1→h2", "network h2→h1"]
    disks, slow, fast = rows.values()
    assert disks[1:5] == ["29.6 MiB/s", "85.8 MiB/s", "34%", "host/controller layer of h1"]
    assert disks[5].startswith("devices: sum of 3 targets alone")
    assert slow[3:5] == ["2%", "network path h1→h2"]
    assert slow[5].startswith("NIC link: slower NIC of the pair")
    assert fast[3:5] == ["91%", "NIC link"]
    # the sentences under the table, whole (with the suspects the cells leave out)
    for rung in run_ladder(results):
        assert f"_{rung.verdict}_" in md
    assert "host/controller layer of h1 (HBA, backplane, PCIe link) limits" in md
    # first among the extra tables: right after the summary
    assert md.index(f"## {TITLE}") < md.index("## Disks alone and together")


def test_terminal_shows_the_ladder_at_any_width():
    for width in (80, 120, 200):
        buf = io.StringIO()
        print_summary(ladder_run(), Console(width=width, file=buf))
        out = buf.getvalue()
        assert TITLE in out or "The ladder" in out, width
        assert "34%" in out and "2%" in out and "91%" in out, width
        flat = " ".join(out.split())
        assert "the network path h1→h2 (switch, cabling, shaping) limits" in flat, width
    assert "host/controller layer of h1 │" in out  # at 200 columns the row is one line


def test_json_report_has_the_ladder():
    doc = json.loads(to_json(ladder_run()))
    rungs = doc["ladder"]
    assert len(rungs) == 3
    assert [r["name"] for r in rungs] == ["disks of h1 together (read)", "network h1→h2",
                                          "network h2→h1"]
    assert rungs[0]["bottleneck"].startswith("host/controller layer of h1")
    assert rungs[1]["bottleneck"].startswith("network path h1→h2")
    assert rungs[2]["bottleneck"] == "NIC link"
    assert [round(r["efficiency"], 2) for r in rungs] == [0.34, 0.02, 0.91]
    disks = rungs[0]
    assert set(disks) == {"name", "step", "layer", "metric", "measured", "ceiling", "efficiency",
                          "bottleneck", "verdict", "limiting", "terms", "missing", "notes",
                          "warnings"}
    assert (disks["step"], disks["layer"], disks["metric"]) == ("01-disks", "disk", "bw")
    assert disks["measured"] == 31e6 and disks["ceiling"] == 90e6
    assert disks["limiting"] == disks["terms"][0]
    assert disks["limiting"]["layer"] == "devices" and disks["limiting"]["culprit"] is None
    assert disks["limiting"]["inputs"][0] == "/d1 alone 28.6 MiB/s (01-disks)"
    assert disks["verdict"].startswith("disks of h1 together (read): 29.6 MiB/s = 34%")
    assert rungs[1]["limiting"]["value"] == pytest.approx(10e9 / 8)
    assert rungs[1]["step"] == "02-network" and rungs[1]["layer"] == "network"


def test_csv_stays_as_it_was():
    header = to_csv(ladder_run()).splitlines()[0]
    assert "ceiling" not in header and "bottleneck" not in header


def test_missing_inputs_and_a_result_above_its_ceiling():
    """No link speeds: no ceiling, '-' cells and a 'missing' sentence; a pair above its
    link: a warning under the table, the bar drawn in the warning colour."""
    cells = [{"client": "h1", "server": "h2", "bps": 12e9}]
    over = ladder_table(_run(_network_step(cells)))
    assert over.rows[0][3] == "120%"
    assert any("exceeds the NIC link ceiling" in n for n in over.notes)
    html = to_html(_run(_network_step(cells)), None)
    assert "exceeds the NIC link ceiling" in html
    assert 'fill="#c43b2f" class="bar-value"' in html

    unknown = _run(_network_step(cells, links={}))
    table = ladder_table(unknown)
    assert table.rows == [["network h1→h2", "1.40 GiB/s", "-", "-", "-", "-"]]
    assert table.notes == ["network h1→h2: 1.40 GiB/s; no ceiling: missing h1 NIC link speed; "
                           "h2 NIC link speed"]  # said once, in the rung's sentence
    md = to_markdown(unknown)
    assert "| network h1→h2 | 1.40 GiB/s | - | - | - | - |" in md
    rung = json.loads(to_json(unknown))["ladder"][0]
    assert rung["ceiling"] is None and rung["efficiency"] is None and rung["limiting"] is None
    assert rung["missing"] == ["h1 NIC link speed", "h2 NIC link speed"]
    chart = _ladder_svg(to_html(unknown, None))
    assert len(_by_class(chart, "g", "bar-pair")) == 1
    assert not _by_class(chart, "rect", "bar-ref") and len(_by_class(chart, "rect", "bar-value")) == 1


def test_a_run_without_upper_rungs_has_no_ladder():
    """A failed disk step and a network step with no figure: nothing to put a ceiling on."""
    results = _run(_disk_step(status="failed"), _network_step([{"client": "h1", "server": "h2",
                                                                 "bps": None, "error": "refused"}]))
    assert ladder_table(results) is None
    assert all(t.title != TITLE for t in extra_tables(results))
    assert TITLE not in to_markdown(results)
    assert json.loads(to_json(results))["ladder"] == []
    html = to_html(results, None)
    assert 'id="ladder"' not in html and "The ladder" not in html and "bar-pair" not in html


# -- HTML --------------------------------------------------------------------------------

def _ladder_svg(html: str) -> ET.Element:
    section = html[html.index('<section id="ladder">'):]
    section = section[:section.index("</section>")]
    svg = section[section.index("<svg"):section.index("</svg>") + len("</svg>")]
    return ET.fromstring(svg)  # well-formed: every label went through esc()


def _by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}{tag}") if e.get("class") == cls]


def test_html_ladder_section_chart_and_sentences():
    results = ladder_run()
    html = to_html(results, None)
    assert "<h2>The ladder</h2>" in html and '<a href="#ladder">The ladder</a>' in html
    # after the summary, before the rungs' own sections
    assert html.index('id="summary"') < html.index('id="ladder"') < html.index('id="layer-disk"')
    svg = _ladder_svg(html)
    pairs = _by_class(svg, "g", "bar-pair")
    assert len(pairs) == 3
    assert len(_by_class(svg, "rect", "bar-ref")) == 3 and len(_by_class(svg, "rect", "bar-value")) == 3
    texts = [[t.text for t in g.iter(f"{SVG}text")] for g in pairs]  # without tooltips
    rungs = run_ladder(results)
    for rung, words in zip(rungs, texts):
        assert words[0] == rung.name
        assert rung.fmt(rung.ceiling) in words and rung.fmt(rung.measured) in words
        assert f"{rung.efficiency:.0%}" in words
    assert "bottleneck: host/controller layer of h1" in texts[0]
    assert "bottleneck: network path h1→h2" in texts[1]
    # each pair on its own scale: the larger of ceiling and measured fills the bar width
    widths = [[float(r.get("width")) for r in g.iter(f"{SVG}rect")] for g in pairs]
    assert all(max(w) == pytest.approx(widths[0][0]) for w in widths)
    assert widths[0][1] / widths[0][0] == pytest.approx(31 / 90, abs=0.01)
    # the sentences under the chart, then the table (its notes are those sentences)
    section = html[html.index('<section id="ladder">'):html.index("</section>", html.index('id="ladder"'))]
    for rung in rungs:  # once each, not again as the table's notes
        assert section.count(f"<li>{rung.verdict}</li>") == 1
        assert f'<p class="note">{rung.verdict}' not in section
    assert section.index("ladder-verdicts") < section.index(TITLE)
    # the table is in the ladder section and nowhere else
    assert html.count(f"<h4>{TITLE}</h4>") == 1 and f"<h4>{TITLE}</h4>" in section


@pytest.mark.slow
@pytest.mark.beside
def test_html_opens_offline_with_the_ladder(tmp_path):
    html = to_html(ladder_run(), None)
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    if chromium() is None:
        pytest.skip("chromium is not installed (make system-deps installs it)")
    page = tmp_path / "report.html"
    page.write_text(html)
    load = open_offline(page, tmp_path / "ladder.png", tmp_path / "profile")
    assert not load.page_errors, load.page_errors
    census = SvgCensus()
    census.feed(load.dom)
    assert "Measured against the ceiling of the lower rungs" in census.labels
    assert len(re.findall(r'<g class="bar-pair">', load.dom)) == 3
    assert len(re.findall(r'class="bar-(?:ref|value)"', load.dom)) == 6
    assert (tmp_path / "ladder.png").stat().st_size > 10_000


def test_cli_report_json_and_show(tmp_path):
    results = ladder_run()
    run_dir = tmp_path / results.run.id
    run_dir.mkdir()
    (run_dir / "results.json").write_text(results.model_dump_json(indent=1))
    run_cli(["report", run_dir, "--format", "json"], check=0)
    doc = json.loads((run_dir / "report.json").read_text())
    assert [r["efficiency"] is not None for r in doc["ladder"]] == [True] * 3
    shown = run_cli(["show", run_dir], check=0).stdout
    assert "The ladder" in shown and "network path h1→h2" in shown
