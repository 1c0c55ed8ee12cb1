"""Stopping a step's monitors on many hosts holds only the hosts in flight.

Each host's stopped monitor carries sadf's whole text and every parsed sample; the step
keeps from it two files and a summary. Collected for every host before any was written, a
300-host step held them all at once (docs/scale.md); each is now written and summarised
in the worker that stopped it. The real sadc/sadf path is tests/test_monitor.py's.
"""

from __future__ import annotations

import json
import threading
import weakref
from pathlib import Path

from conftest import FIXTURES
from stackprobe.engine.step_monitor import StepMonitors
from stackprobe.monitor.sampler import MonitorResult
from stackprobe.parsers.host.sadf_json import parse_sadf_json

SADF = FIXTURES / "recorded" / "sysstat" / "sadf-12.6.1_j_sadc-XALL_1s_randwrite+iperf3.json"
HOSTS = 100
WORKERS = 32  # StepMonitors' pool


class _Monitor:
    """A stopped host's monitor: its result as sadf gave it (what HostMonitor.stop returns)."""

    def __init__(self, host: str, text: str, count: dict, lock: threading.Lock):
        self.host, self.text, self.count, self.lock = host, text, count, lock

    def stop(self) -> MonitorResult:
        res = MonitorResult(host=self.host, raw_json=self.text, series=parse_sadf_json(self.text))
        with self.lock:
            self.count["alive"] += 1
            self.count["most"] = max(self.count["most"], self.count["alive"])
        weakref.finalize(res, self._gone)
        return res

    def _gone(self) -> None:
        with self.lock:
            self.count["alive"] -= 1


def test_each_host_is_written_as_it_stops_and_its_samples_let_go(tmp_path: Path):
    text = SADF.read_text()
    count, lock = {"alive": 0, "most": 0}, threading.Lock()
    names = [f"h{i:03d}" for i in range(HOSTS)]
    monitors = StepMonitors([], {})
    monitors.monitors = {n: _Monitor(n, text, count, lock) for n in names}
    out, _, problems = monitors.stop(tmp_path)
    assert list(out) == names and problems == []
    for n in names:
        assert json.loads((tmp_path / f"monitor-{n}.json").read_text())["samples"]
        assert (tmp_path / f"monitor-{n}.sadf.json").read_text() == text
        assert "cpu" in out[n]["summary"]
    # every result alive at once would be HOSTS; the pool's workers bound it
    assert count["most"] <= WORKERS + 1, count["most"]
