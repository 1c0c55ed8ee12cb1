"""Resource monitoring around one step: sadc on every host taking part, stopped after it.

The executor starts a HostMonitor on each host of the step (the local machine for a local
step; every host of `hosts:` otherwise) before the runner's prepare, and stops them after
its cleanup — after the transports' interrupt is cleared, so a Ctrl-C still leaves its
figures. Per host the step directory gets `monitor-<host>.json` (the per-second samples,
docs/results-schema.md "Monitoring files") and `monitor-<host>.sadf.json` (sadf's own
output, unchanged); results.json gets each host's summary, and the bottleneck hints are
drawn from those summaries. Monitoring never fails a step: its problems are warnings.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from stackprobe.analysis.bottleneck import hints
from stackprobe.monitor.sampler import HostMonitor
from stackprobe.monitor.summary import summarise, write_samples_json
from stackprobe.store.rundir import atomic_write
from stackprobe.transport.base import Transport

# a step shorter than sadc's interval has no sample: nothing went wrong, nothing to say
TOO_SHORT = "no samples"
SPEEDS_ARGV = ["sh", "-c", "grep -H . /sys/class/net/*/speed 2>/dev/null; true"]


def parse_link_speeds(text: str) -> dict[str, float]:
    """`/sys/class/net/eth0/speed:10000` lines -> {'eth0': 10000.0}; -1 and junk skipped."""
    out = {}
    for line in text.splitlines():
        path, sep, value = line.rpartition(":")
        parts = path.split("/")
        if sep and len(parts) >= 5:
            try:
                speed = float(value)
            except ValueError:
                continue
            if speed > 0:
                out[parts[4]] = speed
    return out


@dataclass
class StepMonitors:
    """The monitors of one step: (host name, transport, directory there) each."""

    targets: list[tuple[str, Transport, str]]
    link_speeds: dict[str, dict[str, float]]  # host -> nic -> Mb/s (cached by the executor)
    max_s: float | None = None  # sadc's own end, for a controller that dies without stopping it
    monitors: dict[str, HostMonitor] = field(default_factory=dict)

    def start(self) -> None:
        for host, transport, directory in self.targets:
            if host not in self.link_speeds:
                res = transport.run(SPEEDS_ARGV, timeout=30)
                self.link_speeds[host] = parse_link_speeds(res.stdout) if res.ok else {}
            m = HostMonitor(max_s=self.max_s)
            m.start(transport, directory)
            self.monitors[host] = m

    def stop(self, step_dir: Path) -> tuple[dict, list[str], list[str]]:
        """{host: {file, raw, interval_s, summary}}, hints, problems."""
        if not self.monitors:
            return {}, [], []
        with ThreadPoolExecutor(max_workers=min(32, len(self.monitors))) as pool:
            results = dict(zip(self.monitors, pool.map(lambda m: m.stop(), self.monitors.values()),
                               strict=True))
        out, problems, summaries = {}, [], {}
        for host, res in results.items():
            if res.problem and not res.problem.startswith(TOO_SHORT):
                problems.append(f"monitoring {host}: {res.problem}")
            if res.raw_json:
                atomic_write(step_dir / f"monitor-{host}.sadf.json", res.raw_json)
            if res.series is None:
                continue
            atomic_write(step_dir / f"monitor-{host}.json", write_samples_json(res.series))
            summary = summarise(res.series, self.link_speeds.get(host))
            summaries[host] = summary
            out[host] = {"file": f"monitor-{host}.json", "raw": f"monitor-{host}.sadf.json",
                         "interval_s": res.series.interval_s, "summary": summary}
        return out, hints(summaries), problems
