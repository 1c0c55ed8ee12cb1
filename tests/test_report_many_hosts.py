"""A step on many hosts in the HTML report: resource panels for the busiest and the least
busy hosts only (with a note saying which and where the rest is), the others' monitor
files not even read."""

from __future__ import annotations

import json

from html_report_helpers import START, monitor_doc
from stackprobe.report.html_timeline import LEAST_BUSY_PANELS, MAX_HOST_PANELS, step_timeline
from stackprobe.schema.results import StepResult


def _step(n: int) -> StepResult:
    monitor = {f"h{i}": {"file": f"monitor-h{i}.json", "interval_s": 1.0,
                         "summary": {"cpu": {"busy_mean_pct": float(i) / 2}}}
               for i in range(1, n + 1)}
    return StepResult(id="02-fleet", index=2, name="fleet", kind="fio", title="fleet", params={},
                      layer="filesystem", started="2026-01-01T00:03:00Z", duration_s=14.0,
                      hosts=sorted(monitor), monitor=monitor)


def _write(run_dir, hosts):
    d = run_dir / "steps" / "02-fleet"
    d.mkdir(parents=True, exist_ok=True)
    for h in hosts:
        (d / f"monitor-{h}.json").write_text(json.dumps(monitor_doc(h, START + 180)))


def test_a_step_on_many_hosts_draws_the_extremes_and_says_so(tmp_path):
    step = _step(200)
    busiest = [f"h{i}" for i in range(200, 200 - (MAX_HOST_PANELS - LEAST_BUSY_PANELS), -1)]
    least = [f"h{i}" for i in range(1, LEAST_BUSY_PANELS + 1)]
    _write(tmp_path, busiest + least)  # the other 192 hosts' files are absent: never read
    timeline = step_timeline(step, tmp_path)
    cpu_titles = [h for h in step.hosts if any(f"{h}: CPU" in c for c in timeline.charts)]
    assert sorted(cpu_titles) == sorted(busiest + least)
    assert len(timeline.notes) == 1, timeline.notes  # no note about a missing file
    assert timeline.notes[0].startswith(f"resource panels of {MAX_HOST_PANELS} of the 200 hosts")


def test_a_few_hosts_are_all_drawn_without_a_note(tmp_path):
    step = _step(MAX_HOST_PANELS)
    _write(tmp_path, step.hosts)
    timeline = step_timeline(step, tmp_path)
    assert all(any(f"{h}: CPU" in c for c in timeline.charts) for h in step.hosts)
    assert timeline.notes == []
