"""Resource monitoring around one step: sadc on every host taking part, stopped after it.

The executor starts a HostMonitor on each host of the step (the local machine for a local
step; every host of `hosts:` otherwise, those its kind loads: a pair step's drawn pairs'
hosts, Kind.monitored_hosts) before the runner's prepare, and stops them after
its cleanup — after the transports' interrupt is cleared, so a Ctrl-C still leaves its
figures. Per host the step directory gets `monitor-<host>.json` (the per-second samples,
docs/results-schema.md "Monitoring files") and `monitor-<host>.sadf.json` (sadf's own
output, unchanged); results.json gets each host's summary, and the bottleneck hints are
drawn from those summaries. Monitoring never fails a step: its problems are warnings.

A Ceph step is watched wider (docs/ceph-monitoring.md): sadc also runs on every host of
the hosts file with the `storage` role that offers a shell, each summary carries the
host's roles (the report groups hosts by role), and Ceph's own view of the step is taken
on the controller (ceph_watch.py) into the step's `ceph_view`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from stackprobe.analysis.bottleneck import hints
from stackprobe.analysis.role_use import role_outliers
from stackprobe.engine.ceph_watch import CephWatch
from stackprobe.monitor.sampler import HostMonitor
from stackprobe.monitor.segments import HostFold
from stackprobe.monitor.summary import summarise, write_samples_json
from stackprobe.spec.hosts import HostsFile, Reach
from stackprobe.store.rundir import atomic_write
from stackprobe.transport.base import Transport
from stackprobe.transport.fleet import Fleet

# a step shorter than sadc's interval has no sample: nothing went wrong, nothing to say
TOO_SHORT = "no samples"
SPEEDS_ARGV = ["sh", "-c", "grep -H . /sys/class/net/*/speed 2>/dev/null; true"]
STORAGE = "storage"  # the hosts.yaml role watched during every Ceph step


def storage_names(hosts: HostsFile, plan, monitor: bool) -> set[str]:
    """The storage hosts a run must open although no step names them: those with a shell,
    when some step loads Ceph and monitoring is on."""
    if not monitor or not any(s.on_ceph for s in plan):
        return set()
    return {h.name for h in hosts.hosts if STORAGE in h.roles and h.reach is Reach.SHELL}


def storage_targets(fleet: Fleet | None, taken: set[str]) -> list[tuple[str, Transport, str]]:
    """The fleet's storage hosts not already among a step's monitored hosts."""
    if fleet is None:
        return []
    return [(h.name, h.transport, h.scratch) for h in fleet.shells()
            if STORAGE in h.host.roles and h.name not in taken and h.transport is not None]


def raw_name(host: str, segmented: bool) -> str:
    """sadf's own output of the step on `host`: one document, or one per segment gzipped."""
    return f"monitor-{host}.sadf.json" + (".gz" if segmented else "")


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
    roles: dict[str, list[str]] = field(default_factory=dict)  # host -> its roles, in summaries
    ceph: CephWatch | None = None  # a Ceph step: Ceph's own view, from the controller
    ceph_view: dict | None = None  # what ceph gave, once stopped
    # a step of hours: sadc read a segment at a time (monitor/sampler.py), each folded into
    # `folds` and its raw output kept compressed in `step_dir` (monitor/segments.py)
    segment_s: float | None = None
    keep_s: float | None = None  # whole seconds kept at each end (None: the fold's own)
    step_dir: Path | None = None
    folds: dict[str, HostFold] = field(default_factory=dict)

    def start(self) -> None:
        """sadc started on every host at once (a few round trips each: one after the other,
        hundreds of hosts would wait minutes before the step)."""
        def one(target: tuple[str, Transport, str]) -> HostMonitor:
            host, transport, directory = target
            if host not in self.link_speeds:
                res = transport.run(SPEEDS_ARGV, timeout=30)
                self.link_speeds[host] = parse_link_speeds(res.stdout) if res.ok else {}
            if self.segment_s and self.step_dir is not None:
                fold = self.folds[host] = HostFold(host, self.step_dir / raw_name(host, True),
                                                      keep_s=self.keep_s)
                m = HostMonitor(max_s=self.max_s, segment_s=self.segment_s, on_segment=fold.add)
            else:
                m = HostMonitor(max_s=self.max_s)
            m.start(transport, directory)
            return m

        with ThreadPoolExecutor(max_workers=1) as beside:  # Ceph's view, while sadc starts
            ceph = beside.submit(self.ceph.start) if self.ceph is not None else None
            if self.targets:
                with ThreadPoolExecutor(max_workers=min(32, len(self.targets))) as pool:
                    started = list(pool.map(one, self.targets))
                self.monitors.update(zip((t[0] for t in self.targets), started, strict=True))
            if ceph is not None:
                ceph.result()

    def stop(self, step_dir: Path) -> tuple[dict, list[str], list[str]]:
        """{host: {file, raw, interval_s, summary}}, hints, problems; ceph_view set."""
        with ThreadPoolExecutor(max_workers=1) as beside:  # Ceph's view, while sadc stops
            ceph = beside.submit(self.ceph.stop, step_dir) if self.ceph is not None else None
            out, found, problems = self._stop_hosts(step_dir)
            if ceph is not None:
                self.ceph_view, more, trouble = ceph.result()
                found, problems = found + more, problems + trouble
        return out, found, problems

    def _stop_hosts(self, step_dir: Path) -> tuple[dict, list[str], list[str]]:
        if not self.monitors:
            return {}, [], []
        for _, transport, _ in self.targets:  # a storage host no runner cleared after Ctrl-C
            transport.clear_interrupt()

        def stop(item: tuple[str, HostMonitor]) -> tuple[str, dict | None, str | None]:
            host, monitor = item
            return (host, *self._finish(host, monitor.stop(), step_dir))

        with ThreadPoolExecutor(max_workers=min(32, len(self.monitors))) as pool:
            done = list(pool.map(stop, self.monitors.items()))
        out, problems, summaries = {}, [], {}
        for host, entry, problem in done:
            if problem:
                problems.append(problem)
            if entry is not None:
                out[host], summaries[host] = entry, entry["summary"]
        return out, hints(summaries) + role_outliers(summaries), problems

    def _finish(self, host: str, res, step_dir: Path) -> tuple[dict | None, str | None]:
        """One host's stopped monitor: its files written and its summary made in the worker
        that stopped it, so only the hosts in flight hold their samples and sadf's text.
        Collected first and written after the last host had stopped, every host's were held
        at once: 150 MB of a 300-host run's pair step (docs/scale.md)."""
        problem = (f"monitoring {host}: {res.problem}"
                   if res.problem and not res.problem.startswith(TOO_SHORT) else None)
        fold = self.folds.get(host)
        if res.raw_json:
            atomic_write(step_dir / raw_name(host, False), res.raw_json)
        series = fold.series() if fold is not None else res.series
        if series is None or (fold is not None and not series.samples):
            return None, problem
        atomic_write(step_dir / f"monitor-{host}.json", write_samples_json(series))
        summary = (fold.summary(self.link_speeds.get(host)) if fold is not None
                   else summarise(series, self.link_speeds.get(host)))
        if host in self.roles:
            summary["roles"] = list(self.roles[host])
        entry = {"file": f"monitor-{host}.json", "raw": raw_name(host, fold is not None),
                 "interval_s": series.interval_s, "summary": summary}
        if fold is not None:
            entry["segments"] = res.segments
        return entry, problem
