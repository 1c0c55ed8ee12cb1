"""Ceph's own view of a Ceph step, from the controller: per-OSD counters, latency, health.

sadc on the hosts (step_monitor.py) says what the machines did; this says what the
cluster did, as Ceph counts it, read-only through the run's Ceph target:

- before the step: `ceph tell osd.* perf dump` (every OSD's counters) and `ceph health
  detail`;
- during it, every INTERVAL_S in a thread of its own: `ceph osd perf`, `ceph osd pool
  stats` and `health detail`;
- after it: the same three and every OSD's `perf dump` again.

The commands go through the run's one connected librados client (kinds/ceph/shell.py,
milliseconds a command) when it started, else each is a `ceph` process that starts Python
and connects to the monitors (0.3-0.5 s of CPU here). The commands of one moment run at
once, and one `tell osd.*` asks every OSD: one CLI process per OSD, one after the other,
added 4 s to every Ceph step (ceph-quick: 31 steps, two minutes between measurements). A
one-OSD cluster's `tell osd.*` through the CLI does not name its OSD: `ceph osd ls` then
does.

Every output is kept unchanged in the step directory, one JSON line per command (`t`,
`phase`, `osd`, `rc`, `stdout`, `stderr`; FILES), and the summary (analysis/osd_view.py,
analysis/cluster_view.py) goes to the step's `ceph_view` in results.json. Like sadc,
watching never fails a step: what went wrong is a one-line problem. The thread ends with
the step — stop() is called after the runner's cleanup, also after a failure or Ctrl-C (an
interrupted transport cuts a sample short; the next one runs once the interrupt is
cleared) — and by itself after `max_s`, should the controller never call stop().
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from stackprobe.analysis.cluster_view import health_hints, health_view, pool_view
from stackprobe.analysis.osd_view import osd_hints, osd_view
from stackprobe.kinds.ceph.shell import CephShell
from stackprobe.kinds.ceph.target import CephTarget
from stackprobe.parsers.ceph.health_detail import parse_health_detail
from stackprobe.parsers.ceph.osd_perf import parse_osd_perf
from stackprobe.parsers.ceph.perf_dump import parse_osd_ids, parse_perf_dump, split_tell_all
from stackprobe.parsers.ceph.pool_stats import parse_pool_stats
from stackprobe.store.rundir import atomic_write
from stackprobe.transport.base import CommandResult, Transport

INTERVAL_S = 5.0  # the manager refreshes osd perf and pool rates about this often
COMMAND_TIMEOUT_S = 60.0
FILES = {"osd_perf": "ceph-osd-perf.jsonl", "pool_stats": "ceph-pool-stats.jsonl",
         "health": "ceph-health.jsonl", "before": "ceph-perf-dump-before.jsonl",
         "after": "ceph-perf-dump-after.jsonl"}
DUMPS = ("tell", "osd.*", "perf", "dump")
SAMPLED = {"osd_perf": ("osd", "perf"), "pool_stats": ("osd", "pool", "stats"),
           "health": ("health", "detail")}


class CephWatch:
    """start() before the step's load, stop(step_dir) after its cleanup."""

    def __init__(self, target: CephTarget, transport: Transport, *,
                 interval_s: float = INTERVAL_S, max_s: float | None = None,
                 shell: CephShell | None = None):
        self.target = target
        self.transport = transport
        self.shell = shell  # the run's connected librados client, else each command a `ceph`
        self.interval_s = interval_s
        self.max_s = max_s
        self.osds: list[int] = []
        self.lines: dict[str, list[dict[str, Any]]] = {key: [] for key in FILES}
        self.problems: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ commands
    def _ceph(self, *args: str) -> CommandResult:
        if self.shell is not None and (res := self.shell.run(args)) is not None:
            return res
        return self.transport.run(["ceph", *self.target.cli(), "--connect-timeout", "30",
                                   *args, "-f", "json"], timeout=COMMAND_TIMEOUT_S)

    def _keep(self, key: str, phase: str, res: CommandResult, osd: int | None = None,
              stdout: str | None = None) -> None:
        line: dict[str, Any] = {"t": round(res.started, 3), "phase": phase}
        if osd is not None:
            line["osd"] = osd
        answered = stdout is not None  # one OSD's answer out of a `tell osd.*`
        line.update(rc=0 if answered else res.returncode,
                    stdout=stdout if answered else res.stdout)
        if not answered and not res.ok:
            err = [x.strip() for x in res.stderr.splitlines() if x.strip()]
            line["stderr"] = err[-1] if err else ("timed out" if res.timed_out else "")
        if res.interrupted and not answered:  # Ctrl-C reached it: no problem of the cluster's
            line["interrupted"] = True
        with self._lock:
            self.lines[key].append(line)

    def _keep_dumps(self, phase: str, res: CommandResult) -> None:
        """Each OSD's part of one `tell osd.* perf dump` as its own line (what `tell osd.N`
        prints); OSDs that did not answer make the command's own line, failed."""
        try:
            parts = split_tell_all(res.stdout) if res.stdout.strip() else {}
        except ValueError:  # a one-OSD cluster: its answer is not prefixed
            only = self._ceph("osd", "ls")
            try:
                ids = parse_osd_ids(only.stdout) if only.ok else []
            except ValueError as exc:
                self.problems.append(str(exc))
                ids = []
            parts = {ids[0]: res.stdout.strip()} if len(ids) == 1 else {}
            if len(ids) != 1:
                self.problems.append(f"`tell osd.* perf dump` unprefixed with {len(ids)} OSDs")
        for osd in sorted(parts):
            self._keep(phase, phase, res, osd, stdout=parts[osd])
        if not res.ok or not parts:
            self._keep(phase, phase, res)
        if phase == "before":
            self.osds = sorted(parts)

    def _at_once(self, phase: str, *, samples: bool, dumps: bool) -> None:
        """The samples and/or every OSD's perf dump of one moment, all at once."""
        jobs: list[tuple[str, tuple[str, ...]]] = [(phase, DUMPS)] if dumps else []
        if samples:
            jobs += list(SAMPLED.items())
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            results = list(pool.map(lambda job: self._ceph(*job[1]), jobs))
        for (key, _), res in zip(jobs, results, strict=True):
            if key == phase and dumps:
                self._keep_dumps(phase, res)
            else:
                self._keep(key, phase, res)

    # ------------------------------------------------------------------ the step
    def start(self) -> None:
        """Every OSD's counters and the cluster's health before the load."""
        with ThreadPoolExecutor(max_workers=2) as pool:
            dumps = pool.submit(self._ceph, *DUMPS)
            health = pool.submit(self._ceph, *SAMPLED["health"])
            self._keep_dumps("before", dumps.result())
            self._keep("health", "before", health.result())
        self._thread = threading.Thread(target=self._loop, name="ceph-watch", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(self.interval_s):
            if self.max_s is not None and time.monotonic() - started > self.max_s:
                return
            self._at_once("during", samples=True, dumps=False)

    def stop(self, step_dir: Path) -> tuple[dict[str, Any], list[str], list[str]]:
        """The step's ceph_view, its hints, and the problems watching had."""
        self._stop.set()  # a sample under way ends beside the last one, not before it
        self._at_once("after", samples=True, dumps=True)
        if self._thread is not None:
            self._thread.join(timeout=len(SAMPLED) * COMMAND_TIMEOUT_S + 5)
        for key, name in FILES.items():
            if self.lines[key]:
                lines = sorted(self.lines[key], key=lambda x: x["t"])
                atomic_write(step_dir / name, "".join(json.dumps(x) + "\n" for x in lines))
        view = self.summary()
        view["files"] = sorted(FILES[k] for k in FILES if self.lines[k])
        return view, osd_hints(view) + health_hints(view["health"]), self._problems()

    # ------------------------------------------------------------------ the summary
    def _parsed(self, key: str, parse, phases: tuple[str, ...]) -> list[tuple[dict, Any]]:
        out = []
        for line in self.lines[key]:
            if line["phase"] not in phases or line["rc"] != 0:
                continue
            try:
                out.append((line, parse(line["stdout"])))
            except ValueError as exc:
                self.problems.append(str(exc))
        return out

    def summary(self) -> dict[str, Any]:
        before = {ln["osd"]: c for ln, c in self._parsed("before", parse_perf_dump, ("before",))}
        after = {ln["osd"]: c for ln, c in self._parsed("after", parse_perf_dump, ("after",))}
        load = ("during", "after")
        perf = [p for _, p in self._parsed("osd_perf", parse_osd_perf, load)]
        pools = [p for _, p in self._parsed("pool_stats", parse_pool_stats, load)]
        health = {phase: [h for _, h in self._parsed("health", parse_health_detail, (phase,))]
                  for phase in ("before", "during", "after")}
        view = osd_view(before, after, perf)
        view["interval_s"] = self.interval_s
        view["samples"] = {k: sum(1 for x in self.lines[k] if x["phase"] == "during")
                           for k in SAMPLED}
        view["pools"] = pool_view(pools)
        view["health"] = health_view(next(iter(health["before"]), None), health["during"],
                                     next(iter(health["after"]), None))
        return view

    def _problems(self) -> list[str]:
        failed: dict[str, int] = {}
        for key, lines in self.lines.items():
            for line in lines:
                if line["rc"] != 0 and not line.get("interrupted"):
                    failed[key] = failed.get(key, 0) + 1
        out = [f"Ceph view: {p}" for p in dict.fromkeys(self.problems)]
        out += [f"Ceph view: {n} `{' '.join(SAMPLED.get(k, ('perf', 'dump')))}` command(s) "
                f"failed ({k})" for k, n in failed.items()]
        return out
