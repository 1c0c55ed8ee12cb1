"""Helpers for tests/test_report_html.py: a hand-built run directory with everything the
HTML report draws (findings, monitor files, an slo search, hints, stability, hostile
titles), and headless Chromium opening a report offline."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from stackprobe.schema.records import IoRecord, IoStats, MemBwRecord, SeriesPoint, SloRecord
from stackprobe.schema.results import (
    CommandRecord,
    DirectionSummary,
    IoGroupSummary,
    RunInfo,
    RunResults,
    StepResult,
    StepSummary,
)

EVIL = "<script>alert('x')</script>"
START = 1767225600.0  # 2026-01-01T00:00:00Z
PCTS = {"p1": 40e3, "p50": 80e3, "p90": 120e3, "p99": 400e3, "p99.9": 2e6, "p99.99": 9e6}


def built_results() -> RunResults:
    run = RunInfo(id="20260101T000000Z-built", suite="built", suite_source="builtin:built",
                  target="/srv/t", host="ctl", started="2026-01-01T00:00:00Z",
                  ended="2026-01-01T00:10:00Z", status="failed", stackprobe_version="0.1.0",
                  tool_versions={"fio": "3.33", "iperf3": "3.12"}, warnings=[f"odd target {EVIL}"],
                  hosts=[{"name": h, "address": f"10.0.0.{i}", "roles": ["osd"], "nic_speed_mbps": 10000}
                         for i, h in enumerate(("h1", "h2", "h3"), start=1)],
                  commands=[_cmd("ceph osd pool create sp 32")])
    return RunResults(run=run, steps=[_memory_step(), _network_step(), _fio_step(), _slo_step(),
                                      _failed_step()])


def _cmd(text: str, rc: int = 0) -> CommandRecord:
    return CommandRecord(command=text, argv=text.split(), host="ctl", returncode=rc, duration_s=1.5)


def _step(index: int, name: str, kind: str, layer: str, title: str, **extra) -> StepResult:
    return StepResult(id=f"{index:02d}-{name}", index=index, name=name, kind=kind, title=title,
                      layer=layer, params=extra.pop("params", {}), status=extra.pop("status", "ok"),
                      started=f"2026-01-01T00:0{index}:00Z", duration_s=12.0, **extra)


def _memory_step() -> StepResult:
    recs = [MemBwRecord(tool="sysbench", operation="read", bw_bytes=bw, host=h)
            for h, bw in (("h1", 10e9), ("h2", 9.8e9), ("h3", 4e9))]
    figs = [{"node": h, "value": v, "ratio": v / 9.8e9, "robust_z": z, "flagged": h == "h3"}
            for h, v, z in (("h1", 10e9, 0.7), ("h2", 9.8e9, 0.0), ("h3", 4e9, -20.0))]
    cpus = [{"node": h, "value": 8, "ratio": 1.0, "robust_z": None, "flagged": False}
            for h in ("h1", "h2", "h3")]
    consistency = [
        {"metric": "memory bandwidth (read)", "unit": "B/s", "median": 9.8e9, "mad": 0.2e9,
         "spread_pct": 61.2, "figures": figs},
        {"metric": "logical CPUs", "unit": "CPUs", "median": 8, "mad": 0, "spread_pct": 0.0,
         "figures": cpus}]
    return _step(1, "memory", "memory", "hardware", "Memory bandwidth", hosts=["h1", "h2", "h3"],
                 records=recs, findings={"consistency": consistency},
                 params={"size": "1G", "threads": 2}, commands=[_cmd("sysbench memory run")])


def _network_step() -> StepResult:
    hosts = ["h1", "h2", "h3"]
    cells = []
    for a in hosts:
        for b in hosts:
            if a == b:
                continue
            bps = 9.4e9 if (a, b) != ("h2", "h3") else 2.1e9
            cell = {"client": a, "server": b, "bps": bps, "retransmits": 3, "rtt_avg_ns": 180e3,
                    "loss_pct": 0.0, "error": None, "expected_bps": 10e9,
                    "flags": ["slow"] if bps < 5e9 else [], "notes": []}
            if (a, b) == ("h3", "h1"):
                cell.update(bps=None, error="connection refused", flags=["failed"])
            cells.append(cell)
    rows = [{"client": a, **{b: None for b in hosts}} for a in hosts]
    net = {"hosts": hosts, "rows": rows, "links": {h: {"nic": "eth0", "speed_mbps": 10000} for h in hosts},
           "expected_mbps": 10000, "cells": cells}
    return _step(2, "network", "network", "network", "Network pairs", hosts=hosts,
                 findings={"network": net}, commands=[_cmd("iperf3 -c 10.0.0.2 -J", rc=0)])


def _direction(iops: float) -> DirectionSummary:
    return DirectionSummary(iops=iops, bw_bytes=iops * 4096, lat_mean_ns=100e3, clat_mean_ns=90e3,
                            lat_ns=dict(PCTS))


def _fio_step() -> StepResult:
    series = [SeriesPoint(t_s=i, iops=20000 - (6000 if i == 6 else 0) + 100 * i, bw_bytes=None)
              for i in range(1, 12)]
    rec = IoRecord(job="rand", host="ctl", read=IoStats(iops=20e3, bw_bytes=80e6), series=series)
    summary = StepSummary(io=[IoGroupSummary(label="rand", read=_direction(20e3))],
                          headline_value=20e3, headline_unit="IOPS")
    resources = {"cpu": {"busy_max_pct": 91.5, "core_busy_max_pct": {"0": 99.0}},
                 "nics": {"eth0": {"speed_mbps": None, "rx_bps_max": 1.3e7}}}
    monitor = {"h1": {"file": "monitor-h1.json", "interval_s": 1, "summary": resources},
               "h2": {"file": "monitor-h2.json", "interval_s": 1}}
    return _step(3, "rand", "fio", "disk", f"{EVIL} 4k randread", headline="iops",
                 params={"rw": "randread", "bs": "4k", "iodepth": 32}, records=[rec], summary=summary,
                 monitor=monitor, hints=[f"vda 98% busy {EVIL}"],
                 stability={"verdict": "fluctuating", "parts": [
                     {"label": "rand", "metric": "iops", "seconds": 11, "cov": 0.08, "dip_seconds": 1,
                      "verdict": "fluctuating", "sentence": f"rand: 1 s below 80% of the median {EVIL}"}]},
                 commands=[_cmd(f"fio --name={EVIL} job.fio")])


def _slo_step() -> StepResult:
    probes = [{"setting": s, "iops": i, "latency_ns": lat, "seconds": 5, "passed": lat <= 1e6}
              for s, i, lat in ((1, 9e3, 0.3e6), (4, 30e3, 0.6e6), (16, 41e3, 1.8e6), (8, 38e3, 0.95e6))]
    rec = SloRecord(percentile=99.0, latency="total", limit_ns=1e6, vary="iodepth",
                    answer={"setting": 8, "iops": 38e3, "latency_ns": 0.95e6}, probes=probes,
                    device_seconds=20, reason="bracketed")
    summary = StepSummary(io=[IoGroupSummary(label=f"probe {i}: iodepth={p['setting']}",
                                             read=_direction(p["iops"])) for i, p in enumerate(probes)])
    return _step(4, "slo", "slo", "disk", "IOPS within p99 1 ms", records=[rec], summary=summary,
                 params={"rw": "randread", "bs": "4k"}, notes=["answer: iodepth=8, 38.0k IOPS"])


def _failed_step() -> StepResult:
    return _step(5, "broken", "fio", "client", "Client test that failed", status="failed",
                 error="fio: <engine> not loadable", params={"rw": "read", "bs": "1M"},
                 commands=[_cmd("fio job.fio", rc=1)])


def monitor_doc(host: str, start: float, n: int = 14) -> dict:
    samples = []
    for i in range(n):
        busy = 30 + 60 * (i > 3)
        samples.append({"t": start - 1 + i, "cpu": {"usr": busy * 0.4, "sys": busy * 0.4,
                                                    "iowait": busy * 0.2, "idle": 100 - busy},
                        "disks": {"vda": {"iops": 900, "read_bps": 4e6, "write_bps": 0,
                                          "util_pct": min(100, 10 * i), "await_ms": 0.4},
                                  "vda1": {"util_pct": min(100, 10 * i)}, "loop0": {"util_pct": 50},
                                  "sdb": {"util_pct": 0}},
                        "nics": {"eth0": {"rx_bps": 1e6 * i, "tx_bps": 2e5 * i},
                                 "lo": {"rx_bps": 5e9, "tx_bps": 5e9}}})
    return {"host": host, "interval_s": 1, "ncpu": 8, "samples": samples}


def write_built_run(base: Path) -> Path:
    """The hand-built run as a run directory: results.json and h1's monitor file (h2's is
    missing on purpose)."""
    results = built_results()
    run_dir = base / results.run.id
    step_dir = run_dir / "steps" / "03-rand"
    step_dir.mkdir(parents=True)
    (run_dir / "results.json").write_text(results.model_dump_json(indent=1))
    (step_dir / "monitor-h1.json").write_text(json.dumps(monitor_doc("h1", START + 180)))
    return run_dir


# -- the browser -------------------------------------------------------------------------

BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-dev-shm-usage", "--enable-logging=stderr", "--v=0",
                 "--window-size=1280,3000"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageLoad:
    dom: str
    log: str
    page_errors: list[str] = field(default_factory=list)


def open_offline(report: Path, screenshot: Path, profile: Path) -> PageLoad:
    """The report opened from disk twice: once for the DOM after load, once for a
    screenshot; console messages and errors about the page are collected from the log."""
    url = report.resolve().as_uri()
    browser = chromium()
    dump = subprocess.run([browser, *BROWSER_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    shot = subprocess.run([browser, *BROWSER_FLAGS, f"--user-data-dir={profile}",
                           f"--screenshot={screenshot}", url], capture_output=True, text=True, timeout=120)
    log = dump.stderr + shot.stderr
    errors = [line for line in log.splitlines()
              if "CONSOLE" in line or "Uncaught" in line
              or ("ERROR:" in line and (report.name in line or "file://" in line))]
    return PageLoad(dump.stdout, log, errors)


class SvgCensus(HTMLParser):
    """Counts what the DOM holds inside <svg>: charts, drawn paths, non-empty rects."""

    def __init__(self) -> None:
        super().__init__()
        self.labels: list[str] = []
        self.paths = self.rects = self.circles = 0
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "svg":
            self._depth += 1
            self.labels.append(a.get("aria-label", ""))
        elif self._depth and tag == "path" and re.match(r"M[\d.\-]+ [\d.\-]+", a.get("d") or ""):
            self.paths += 1
        elif self._depth and tag == "rect" and float(a.get("width") or 0) > 0:
            self.rects += 1
        elif self._depth and tag == "circle":
            self.circles += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._depth -= 1
