"""The live display: one line per interval, how often a log gets one, the line under the
bar in a terminal, nothing with --quiet, and a failing feeder that costs no measurement."""

from __future__ import annotations

import io
import time

from rich.console import Console

from conftest import FIXTURES
from stackprobe.analysis.live_figures import FioLive, LiveFigures
from stackprobe.cli import progress as progress_mod
from stackprobe.cli.live_lines import PLAIN_EVERY_S, Throttle, elapsed_text, live_text
from stackprobe.cli.progress import RunProgress
from stackprobe.kinds.live import stdout_reader
from stackprobe.plan.expand import expand
from stackprobe.schema.results import StepResult
from stackprobe.suite.loader import load_suite

MIXED = FIXTURES / "recorded" / "fio-stream" / "fio-3.33_status-interval-1_jsonplus_randrw70.txt"


def fig(end: float, length: float = 1.0, host: str | None = None, **kw) -> list[LiveFigures]:
    return [LiveFigures(host, kw.get("direction", "read"), end - length, end,
                        kw.get("iops", 2000.0), kw.get("bw", 8192000.0),
                        kw.get("mean"), kw.get("p99"))]


def printed(throttle: Throttle, intervals) -> list[float]:
    return [fs[0].end_s for fs in intervals if throttle.due(fs)]


def test_a_log_gets_one_line_per_ten_seconds_of_one_second_intervals():
    ends = printed(Throttle(), [fig(t + 0.001 * (t % 3)) for t in range(1, 7201)])
    assert len(ends) == 720  # a 2-hour step: 720 lines, not 7,200
    assert all(b - a >= PLAIN_EVERY_S - 0.25 for a, b in zip(ends, ends[1:], strict=False))


def test_intervals_as_long_as_the_limit_are_each_printed_despite_jitter():
    ends = [10.0 * k + (0.02 if k % 2 else -0.02) for k in range(1, 31)]
    assert printed(Throttle(), [fig(e, 10.0) for e in ends]) == ends


def test_each_host_and_each_new_command_has_its_first_interval_printed():
    t = Throttle()
    assert t.due(fig(1, host="a")) and t.due(fig(1, host="b"))
    assert not t.due(fig(2, host="a")) and not t.due(fig(3, host="a"))
    assert t.due(fig(1, host="a"))  # the clock went back: rados bench's next mode began
    assert not t.due(fig(2, host="a"))
    t.reset()
    assert t.due(fig(2, host="b"))


def test_the_line_names_direction_and_figures_and_only_those_given():
    line = live_text(fig(13, host="n01", mean=68_000.0, p99=120_000.0)
                     + [LiveFigures("n01", "write", 12, 13, 1000.0, 4096000.0)])
    assert line == "n01: 12-13 s  read 2000 IOPS 7.81 MiB/s mean 68.0 µs p99 120 µs | " \
                   "write 1000 IOPS 3.91 MiB/s"
    assert live_text([LiveFigures(None, "all", 2.96, 3.2, 5.0, 20480.0)]) == \
        "3-3.2 s  5.00 IOPS 20.0 KiB/s"
    assert elapsed_text(20, 60) == "20 s elapsed, about 40 s left"
    assert elapsed_text(75, 60) == "1 min 15 s elapsed, past the estimate of 1 min 00 s"


def test_a_failing_feeder_stops_showing_and_the_steady_monitor_still_decides():
    class Broken:
        def feed(self, text):
            raise RuntimeError("display bug")

    seen, asked = [], []
    reader = stdout_reader(seen.append, Broken(), then=lambda text: asked.append(text) or True)
    assert reader("a") is True and reader("b") is True
    assert asked == ["a", "b"] and seen == []
    steady = stdout_reader(None, Broken(), then=len)
    assert steady is len  # no display: only the monitor reads
    assert stdout_reader(None, Broken()) is None  # nothing to read: fio runs as before


def quick_plan():
    return expand(load_suite("quick").suite)


def run_step(progress: RunProgress, step, intervals) -> None:
    progress.step_started(step)
    for figures in intervals:
        progress.live_sink(figures)
    progress.step_finished(step, StepResult(
        id=step.id, index=step.index, name=step.name, kind=step.kind, title=step.title,
        layer=step.layer, params=step.params, status="ok", duration_s=1.0))


def test_not_a_terminal_prints_plain_throttled_lines():
    out = io.StringIO()
    plan = quick_plan()
    with RunProgress(plan, Console(file=out, force_terminal=False, width=60)) as p:
        intervals = FioLive().feed(MIXED.read_text()) + [fig(t) for t in range(5, 30)]
        run_step(p, plan[0], intervals)
    lines = [ln for ln in out.getvalue().splitlines() if "IOPS" in ln]
    assert lines[0].startswith(f"  [1/{len(plan)}] 0-1 s  read 1709 IOPS")
    assert " | write 853 IOPS " in lines[0] and len(lines[0]) > 60  # never wrapped
    assert [ln.split()[1] for ln in lines] == ["0-1", "10-11", "20-21"]


def test_quiet_shows_no_figures_at_all():
    out = io.StringIO()
    plan = quick_plan()
    with RunProgress(plan, Console(file=out, force_terminal=False), quiet=True) as p:
        assert p.live_sink is None
        p.live_figures(fig(1))  # even if called: a run with no display gets no line
        p.step_started(plan[0])
    assert "IOPS" not in out.getvalue() and "elapsed" not in out.getvalue()


def test_a_terminal_shows_the_interval_under_the_bar_in_place():
    out = io.StringIO()
    plan = quick_plan()
    console = Console(file=out, force_terminal=True, width=150)
    with RunProgress(plan, console) as p:
        p.step_started(plan[0])
        for t in range(1, 4):
            p.live_sink(fig(t, mean=50_000.0))
        assert p._bar is not None and p._bar.lines == ["2-3 s  read 2000 IOPS 7.81 MiB/s mean 50.0 µs"]
        p._bar.refresh()
        p.live_sink(fig(4, host="n2"))
        assert len(p._bar.lines) == 2  # one line per host
    shown = out.getvalue()
    assert "2-3 s  read 2000 IOPS 7.81 MiB/s mean 50.0 µs" in shown
    assert shown.count("read 2000 IOPS") < 4, "drawn in place, not a line per interval"


def test_a_step_without_figures_shows_its_elapsed_time(monkeypatch):
    monkeypatch.setattr(progress_mod, "TICK_S", 0.05)
    monkeypatch.setattr(progress_mod, "PLAIN_EVERY_S", 0.2)
    out = io.StringIO()
    plan = quick_plan()
    with RunProgress(plan, Console(file=out, force_terminal=False, width=100)) as p:
        p.step_started(plan[0])
        time.sleep(0.5)
    elapsed = [ln for ln in out.getvalue().splitlines() if "elapsed" in ln]
    assert 1 <= len(elapsed) <= 3
    assert elapsed[0] == f"  [1/{len(plan)}] 0 s elapsed, about " \
                         f"{progress_mod.fmt_seconds(plan[0].estimate_s)} left"
