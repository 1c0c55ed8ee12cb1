"""The run's health deltas in the Markdown and HTML reports (`stackprobe report RUN --format
md|html`), not only on the terminal (tests/test_health_lab.py).

The run is built from recorded outputs the way the run-level watch builds it
(engine/health_watch.py): the two health-probe snapshots of this machine's recorded run
(tests/fixtures/recorded/health_probe, RECORDED.md: the after-snapshot holds the kernel line
written to /dev/kmsg during the fio step), compared by analysis/health_delta.py, and the SEL
of the lab BMC (tests/fixtures/recorded/ipmitool/ipmi_sim_sel-elist.stdout: ipmi_sim's PSU
failure) as the entries new during the run. That machine's NIC counters never moved, so the
after-snapshot given here is the recorded one with eth0's rx_crc_errors raised from 0 to 3,
the one value changed: a counter rise in the report is otherwise never seen.

Why both formats: the Markdown report is what is attached to an acceptance record and the
HTML page what is read offline; a rise shown only on the terminal of the run is lost once
the terminal is closed.
"""

from __future__ import annotations

import html
import re

import pytest

from conftest import FIXTURES, run_cli
from stackprobe.analysis.health_delta import StepWindow, compare_runs, sel_findings
from stackprobe.parsers.host.health_probe import parse_health_probe
from stackprobe.parsers.host.ipmitool_sel import parse_ipmitool_sel
from stackprobe.schema.health_records import HealthWatch
from stackprobe.schema.results import RunInfo, RunResults, StepResult

RECORDED = FIXTURES / "recorded"
CRC = "/sys/class/net/eth0/statistics/rx_crc_errors:"
KERNEL_LINE = "stackprobe test: I/O error, dev sdz, sector 42 (a test line, not a fault)"
STEPS = [("01-health", "health", "2026-11-24T23:24:36Z", "2026-11-24T23:24:36Z"),
         ("02-rr", "fio", "2026-11-24T23:24:36Z", "2026-11-24T23:24:41Z")]


def _watch() -> HealthWatch:
    before_text = (RECORDED / "health_probe" / "vm-before_no-cursor.txt").read_text()
    after_text = (RECORDED / "health_probe" / "vm-after_with-test-io-error.txt").read_text()
    assert after_text.count(f"{CRC}0\n") == 1
    after_text = after_text.replace(f"{CRC}0\n", f"{CRC}3\n")
    before = parse_health_probe(before_text, host="vm")
    after = parse_health_probe(after_text, host="vm", since=before.kmsg_cursor)
    windows = [StepWindow(id, started, ended) for id, _kind, started, ended in STEPS]
    findings, compared = compare_runs([before], [after], windows)
    sel = parse_ipmitool_sel((RECORDED / "ipmitool" / "ipmi_sim_sel-elist.stdout").read_text())
    findings += sel_findings("bmc1", sel, windows)
    return HealthWatch(hosts=["vm"], bmcs=["bmc1"], before=[before], after=[after],
                       sel_last={"bmc1": "0"}, sel_new={"bmc1": sel}, compared=compared,
                       findings=findings, cost_s=0.08, complete=True)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    run = RunInfo(id="20261124T232436Z-health-watch", suite="health-watch",
                  suite_source="suite.yaml", target="/srv/t", host="vm",
                  started="2026-11-24T23:24:36Z", ended="2026-11-24T23:24:41Z", status="ok",
                  stackprobe_version="0.1.0")
    steps = [StepResult(id=id, index=i, name=id[3:], kind=kind, title=kind, layer="hardware",
                        params={}, status="ok", started=started, ended=ended, duration_s=1.0)
             for i, (id, kind, started, ended) in enumerate(STEPS, 1)]
    results = RunResults(run=run, steps=steps, health=_watch())
    path = tmp_path_factory.mktemp("runs") / run.id
    path.mkdir()
    (path / "results.json").write_text(results.model_dump_json(indent=1))
    return path


def test_the_built_watch_holds_the_three_rises():
    watch = _watch()
    assert [(f.what, f.subject, f.before, f.after, f.step) for f in watch.findings] == [
        ("rose", "eth0 rx_crc_errors", 0, 3, None),
        ("kernel", "kernel log", None, None, "02-rr"),
        ("sel", "SEL", None, None, None)]  # the SEL entry is Pre-Init: no time, no step


def _section(text: str, title: str, next_heading: str) -> str:
    assert title in text, text[:2000]
    return text.split(title, 1)[1].split(next_heading, 1)[0]


def test_markdown_report_shows_the_rises(run_dir):
    run_cli(["report", run_dir, "--format", "md"], check=0)
    md = (run_dir / "report.md").read_text()
    section = _section(md, "Health during the run", "\n## ")
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in section.splitlines() if line.startswith("|")]
    assert rows[0] == ["host", "counter", "before", "after", "change", "step"]
    assert ["vm", "eth0 rx_crc_errors", "0", "3", "+3", "-"] in rows
    assert ["vm", "kernel log", "-", "-", "new line", "02-rr"] in rows
    assert ["bmc1", "SEL", "-", "-", "new line", "-"] in rows
    assert KERNEL_LINE in section and "during step 02-rr (I/O error)" in section
    assert "bmc1 SEL: Power Supply PSU1 Status: Failure detected (Asserted)" in section
    assert "13 counters on 2 hosts/BMCs compared" in section


def test_html_report_shows_the_rises(run_dir):
    run_cli(["report", run_dir, "--format", "html"], check=0)
    page = (run_dir / "report.html").read_text()
    assert "Health during the run" in page
    cells = [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
              for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
             for row in re.findall(r"<tr[^>]*>(.*?)</tr>", _section(page, "Health during the run",
                                                                      "</table>"), re.S)]
    assert ["vm", "eth0 rx_crc_errors", "0", "3", "+3", "-"] in cells, cells
    assert ["vm", "kernel log", "-", "-", "new line", "02-rr"] in cells
    assert ["bmc1", "SEL", "-", "-", "new line", "-"] in cells
    text = html.unescape(page)
    assert KERNEL_LINE in text and "Failure detected (Asserted)" in text
