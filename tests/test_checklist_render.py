"""The stored checklist in every output — terminal, Markdown, CSV, JSON, HTML — read back
(CSV by csv, JSON by json, HTML by an HTML parser), and the same in each."""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser

from rich.console import Console

from html_report_helpers import built_results
from stackprobe.report import checklist, render
from stackprobe.report.html import to_html
from stackprobe.schema.verdict import CheckItem, Verdict

ITEMS = [
    CheckItem(kind="criterion", rule="fio:rw=randread,bs=4k:iops >= 150k", origin="acc.yaml:4",
              status="fail", measured="96.1k IOPS", value=96100.0, unit="IOPS",
              sources=["fio:bs=4k,rw=randread:read.iops"], detail="from 03-randread"),
    CheckItem(kind="criterion", rule="no flagged link", origin="acc.yaml:5", status="pass",
              measured="6 links, none flagged", sources=["05-network"]),
    CheckItem(kind="criterion", rule="node spread (memory bandwidth) <= 10%", origin="acc.yaml:6",
              status="not measured", detail="nothing in the run answers 'node spread'"),
    CheckItem(kind="finding", rule="no flagged node", origin="analysis", status="warn",
              measured='CPU throughput (matrix): h3 0.22× the median, "quoted" | piped',
              sources=["01-cpu"]),
]
VERDICT = Verdict(status="fail", exit_code=3, items=ITEMS,
                  baseline={"name": "before", "run": "20261124T000000Z-acc", "other_machine": True,
                            "differences": [["CPU", "A: 2 × Xeon · B: 1 × Xeon"]]})


def _results():
    results = built_results()
    results.verdict = VERDICT
    return results


def test_terminal_shows_each_rule_its_result_and_the_verdict():
    console = Console(file=io.StringIO(), width=200, color_system=None)
    checklist.print_checklist(VERDICT, console)
    text = console.file.getvalue()
    for mark, rule in [("FAIL", "iops >= 150k"), ("PASS", "no flagged link"),
                       ("NOT MEASURED", "node spread"), ("WARN", "no flagged node (finding)")]:
        assert any(mark in line and rule in line for line in text.splitlines()), (mark, text)
    assert "Verdict: FAIL: a criterion failed (exit 3; 1 pass, 1 fail, 1 not measured, 1 warn)" in text
    assert text.index("different machine") < text.index("Checklist")  # said first


def test_csv_and_json_read_back():
    rows = list(csv.DictReader(io.StringIO(checklist.checklist_csv(VERDICT))))
    assert [(r["status"], r["rule"]) for r in rows] == [
        ("FAIL", ITEMS[0].rule), ("PASS", "no flagged link"),
        ("NOT MEASURED", ITEMS[2].rule), ("WARN", "no flagged node")]
    assert rows[0]["value"] == "96100.0" and rows[3]["measured"] == ITEMS[3].measured
    assert Verdict.model_validate_json(checklist.checklist_json(VERDICT)) == VERDICT
    report = json.loads(render.to_json(_results()))
    assert report["verdict"]["exit_code"] == 3 and len(report["verdict"]["items"]) == 4


def test_markdown_report_has_the_checklist():
    text = render.to_markdown(_results())
    section = text[text.index("## Verdict"):]
    assert "| FAIL | fio:rw=randread,bs=4k:iops >= 150k — from 03-randread | 96.1k IOPS |" in section
    assert "\\| piped" in section  # a pipe in a value does not split the cell


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self._in, self._table = [], False, False

    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("class", "checklist") in attrs:
            self._table = True
        elif self._table and tag == "tr":
            self.rows.append([])
        elif self._table and tag == "td":
            self._in = True
            self.rows[-1].append("")

    def handle_endtag(self, tag):
        if tag == "td":
            self._in = False
        elif tag == "table":
            self._table = False

    def handle_data(self, data):
        if self._in:
            self.rows[-1][-1] += data


def test_html_report_has_the_checklist_first():
    page = to_html(_results())
    assert page.index('id="verdict"') < page.index('id="summary"')
    cells = _Cells()
    cells.feed(page)
    rows = [r for r in cells.rows if r]
    assert [r[0] for r in rows] == ["FAIL", "PASS", "NOT MEASURED", "WARN"]
    assert rows[3][2] == ITEMS[3].measured  # escaped in the page, the same text read back
    assert "different machine" in page
    assert 'verdict <a href="#verdict" class="bad">FAIL</a>' in page  # beside the run's status


def test_runs_without_a_verdict_render_as_before():
    results = built_results()
    assert "## Verdict" not in render.to_markdown(results)
    assert 'id="verdict"' not in to_html(results)
