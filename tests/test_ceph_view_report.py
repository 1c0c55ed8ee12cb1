"""The role and per-OSD tables in every format, from runs recorded on the lab
(fixtures/ceph_view/run-results*.json), and results.json from before the Ceph view."""

from __future__ import annotations

import json

from rich.console import Console

from conftest import FIXTURES
from stackprobe.report.html import to_html
from stackprobe.report.osd_tables import osd_tables
from stackprobe.report.render import to_markdown
from stackprobe.report.role_tables import role_tables
from stackprobe.report.terminal import print_summary
from stackprobe.schema.results import RunResults

VIEW = FIXTURES / "ceph_view"


def _run(name: str) -> RunResults:
    return RunResults.model_validate_json((VIEW / name).read_text())


def test_role_table_has_a_row_per_role_with_mean_peak_and_host():
    (inventory, bench) = role_tables(_run("run-results.json"))
    assert bench.title == "Resource use by node role (02-rados-write-read)"
    assert [r[:2] for r in bench.rows] == [["client", "vm"], ["storage", "cephhost"]]
    storage = bench.rows[1]
    assert storage[2] == "82% / 99% (cephhost)"  # CPU: mean busy / busiest sample
    assert storage[4] == "-"  # the lab's Ceph traffic is on the loopback: no network
    assert storage[5] == "88% / 88% (cephhost vda)"


def test_osd_table_marks_the_capped_osd_only():
    (table,) = osd_tables(_run("run-results-slow-osd1.json"))  # none for the inventory step
    assert table.title == "Ceph OSDs during the step (02-write)"
    rows = {r[0]: r for r in table.rows}
    assert rows["osd.1"][-1] == "⚠ stands out" and rows["osd.1"][6].startswith("⚠ 1.49 s")
    assert rows["osd.0"][-1] == rows["osd.2"][-1] == "ok"
    assert not any("⚠" in c for r in (rows["osd.0"], rows["osd.2"]) for c in r)
    assert any(n.startswith("health: HEALTH_OK before, HEALTH_OK after") for n in table.notes)


def test_tables_and_hints_in_markdown_html_and_terminal():
    run = _run("run-results-slow-osd1.json")
    md = to_markdown(run)
    assert "## Resource use by node role (02-write)" in md
    assert "| storage | cephhost |" in md and "## Ceph OSDs during the step (02-write)" in md
    assert "- 02-write: osd.1 stands out among the 3 OSDs: queue wait" in md
    html = to_html(run)
    assert "Resource use by node role (02-write)" in html and "osd.1 stands out" in html
    console = Console(record=True, width=200)
    print_summary(run, console)
    text = console.export_text()
    assert "Ceph OSDs during the step (02-write)" in text and "osd.1 stands out" in text


def test_results_from_before_the_ceph_view_still_load_and_render():
    doc = json.loads((VIEW / "run-results.json").read_text())
    for step in doc["steps"]:
        step.pop("ceph_view")
        for info in step["monitor"].values():
            info["summary"].pop("roles")
    old = RunResults.model_validate(doc)
    assert all(s.ceph_view is None for s in old.steps)
    assert role_tables(old) == [] and osd_tables(old) == []
    assert "Resource use by node role" not in to_markdown(old)
