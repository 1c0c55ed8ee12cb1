"""Health counters before the first step and after the last: a counter that rose is a finding.

Why around the whole run: the load is what makes failing hardware show — a DIMM logging
corrected errors, a disk reallocating sectors, a port retraining, an I/O error in the
kernel log, a BMC event — and none of it shows in a throughput figure. Before the first
step and after the last (also after a failed or interrupted run: the executor's finish
path), every shell host of the run (the fleet's, and this machine when a step runs here
or there is no --hosts) is probed once (kinds/host/health_probe_script.py), and every
`access: management` entry of the hosts file with `bmc:` settings has its SEL read with
ipmitool. All in parallel; the raw outputs stay in the run directory (`health/`); what
changed is analysis/health_delta.py's, each new kernel-log line placed in the step that
was running at its time. The result is RunResults.health.

A host that does not answer, or whose output cannot be read, is a warning — never a failed
run — and whatever was read before stays. On resume the first snapshot of the run is kept
(the counters are compared with the state before the run first started) and only the last
one is taken again.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from stackprobe.analysis.bmc_events import new_since
from stackprobe.analysis.health_delta import StepWindow, compare_runs, sel_findings
from stackprobe.kinds.host.health import read_health
from stackprobe.kinds.host.health_probe_script import probe_argv
from stackprobe.kinds.host.ipmi_command import PasswordMissing, failure, ipmitool_argv
from stackprobe.parsers.host.ipmitool_sel import parse_ipmitool_sel
from stackprobe.schema.health_records import HealthRecord, HealthWatch
from stackprobe.schema.results import RunResults
from stackprobe.store.rundir import RunDir
from stackprobe.transport.local import LocalTransport

PROBE_TIMEOUT_S = 60.0
SEL_TIMEOUT_S = 30.0
DIR = "health"


class RunHealth:
    """The run's two snapshots: `before()` once the run starts, `after()` when it ends."""

    def __init__(self, run_dir: RunDir, transport, fleet, plan):
        self.run_dir = run_dir
        self.shells = [(h.name, h.transport) for h in fleet.shells()] if fleet else []
        if fleet is None or any(not s.hosts for s in plan):
            self.shells.insert(0, (transport.host, transport))  # steps run here too
        hosts = fleet.hosts_file.hosts if fleet is not None else []
        self.bmcs = [h for h in hosts if h.access == "management" and h.bmc is not None]
        self.transports = [t for _, t in self.shells]

    # ------------------------------------------------------------------ the two snapshots
    def before(self, results: RunResults) -> None:
        kept = results.health
        if kept is not None and kept.before:
            kept.after, kept.findings, kept.compared, kept.complete = [], [], 0, False
            kept.warnings.append("resumed: counters are compared with the snapshot taken "
                                 "before the run first started")
            return
        t0 = time.monotonic()
        watch = HealthWatch(hosts=[n for n, _ in self.shells], bmcs=[b.name for b in self.bmcs])
        records, sels, problems = self._take("before", {})
        watch.before = records
        watch.sel_last = {name: (entries[-1].id if entries else "0")
                          for name, entries in sels.items() if entries is not None}
        watch.cost_s = round(time.monotonic() - t0, 3)
        results.health = watch
        self._warn(watch, records, problems, "before")

    def after(self, results: RunResults) -> None:
        watch = results.health
        if watch is None:
            return
        for t in self.transports:
            t.clear_interrupt()  # after Ctrl-C the last snapshot must still be taken
        t0 = time.monotonic()
        cursors = {r.host: r.kmsg_cursor for r in watch.before}
        records, sels, problems = self._take("after", cursors)
        watch.after = records
        windows = [StepWindow(s.id, s.started, s.ended) for s in results.steps]
        findings, compared = compare_runs(watch.before, records, windows)
        for name, entries in sels.items():
            last = watch.sel_last.get(name)
            if entries is None or last is None:
                continue
            new = new_since(entries, last)
            watch.sel_new[name] = new.entries
            findings += sel_findings(name, new.entries, windows, new.cleared)
        watch.findings, watch.compared = findings, compared
        watch.cost_s = round((watch.cost_s or 0) + time.monotonic() - t0, 3)
        self._warn(watch, records, problems, "after")
        seen = {r.host for r in records}
        watch.complete = bool(seen & {r.host for r in watch.before}) or bool(watch.sel_new)

    # ------------------------------------------------------------------ probing
    def _take(self, when: str, cursors: dict) -> tuple[list[HealthRecord], dict, list[str]]:
        """(each host's record, each BMC's SEL entries, a line for each that was not read)."""
        jobs = [("host", name, t) for name, t in self.shells] + \
               [("bmc", b.name, b) for b in self.bmcs]
        if not jobs:
            return [], {}, []
        with ThreadPoolExecutor(max_workers=min(32, len(jobs))) as pool:
            done = list(pool.map(lambda j: self._one(when, j, cursors), jobs))
        records = [r for kind, _, r in done if kind == "host" and isinstance(r, HealthRecord)]
        problems = [r for _, _, r in done if isinstance(r, str)]
        sels = {name: r for kind, name, r in done if kind == "bmc" and not isinstance(r, str)}
        return records, sels, problems

    def _one(self, when: str, job, cursors: dict):
        kind, name, target = job
        try:
            return self._read(when, kind, name, target, cursors)
        except Exception as exc:  # a transport's or our own error: a warning, never the run's end
            return kind, name, f"{name}: health probe failed: {type(exc).__name__}: {exc}"

    def _read(self, when: str, kind: str, name: str, target, cursors: dict):
        if kind == "host":
            cursor = cursors.get(name)
            result = target.run(probe_argv(None, cursor), timeout=PROBE_TIMEOUT_S)
            self.run_dir.save_command(self.run_dir.path / DIR, f"{name}-{when}", result)
            record, problem = read_health(name, result, cursor)
            return kind, name, record if record is not None else problem
        try:
            base, env = ipmitool_argv(target.address or "", target.bmc)
        except PasswordMissing as exc:
            return kind, name, f"{name}: SEL not read: {exc}"
        result = LocalTransport().run(base + ["sel", "elist"], env=env, timeout=SEL_TIMEOUT_S)
        self.run_dir.save_command(self.run_dir.path / DIR, f"{name}-sel-{when}", result)
        if not result.ok:
            return kind, name, f"{name}: SEL not read: " + failure(
                result.stderr, result.returncode, target.address or "", target.bmc)
        try:
            return kind, name, parse_ipmitool_sel(result.stdout)
        except ValueError as exc:
            return kind, name, f"{name}: {exc}"

    @staticmethod
    def _warn(watch: HealthWatch, records, problems: list[str], when: str) -> None:
        watch.warnings += [f"health {when}: {p}" for p in problems]
        watch.warnings += [f"health {when}: {r.host}: {p}" for r in records for p in r.problems]
