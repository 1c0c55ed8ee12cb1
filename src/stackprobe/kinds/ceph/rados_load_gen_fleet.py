"""`rados load-gen` from every client host at once (a `rados_load_gen` step with `hosts:`).

Every client offers the step's target rate on its own, so the cluster is asked for
clients × target. load-gen draws its object names itself ("obj-" and 16 random
characters, in the default namespace whatever --namespace says) and removes exactly the
objects it made, so clients sharing the run's pool never touch each other's objects; a
stop leaves them to the run's own pool, removed with it. All clients start together
(kinds/ceph/fleet.py) and each one's lines are timed from the agreed start. A client's
mixed load is one record; the all-clients record is the sum over each client's own run:
load-gen's lines do not say which direction a completion was, and each client's load
starts after its own bootstrap (laying out its objects).
"""

from __future__ import annotations

from collections.abc import Callable

from stackprobe.kinds.ceph.fleet import all_clients, findings_of, parsed, run_together
from stackprobe.kinds.context import StepContext, StepOutcome
from stackprobe.parsers.ceph.rados_load_gen import parse_rados_load_gen
from stackprobe.schema.records import IoRecord


def run_fleet(ctx: StepContext, argv_of: Callable[[list[str], str], list[str]],
              line_clock: Callable[[float], Callable[[str], bool]],
              short_of_target: Callable[[IoRecord], list[str]], target_bytes: int,
              ) -> StepOutcome:
    """argv_of(cli, pool): one client's command; line_clock(t0): a stdout watcher timing
    lines from t0 (its finish() gives the times); short_of_target(record): the warning of
    a client that did not reach the step's target."""
    assert ctx.ceph is not None
    clocks: dict = {}

    def watch(c, t0: float):
        clocks[c.name] = line_clock(t0)
        return clocks[c.name]

    results = run_together(ctx, "load-gen", lambda c: argv_of(c.cli(), ctx.ceph.pool),
                           watch_of=watch)
    times = {name: clock.finish() for name, clock in clocks.items()}
    for name, t in times.items():
        ctx.run_dir.write_text(ctx.step_dir / f"load-gen-{name}.times",
                               "".join(f"{x:.4f}\n" for x in t))
    clients, failed = parsed(results, lambda host, out: parse_rados_load_gen(out, times[host]),
                             "rados", "rados load-gen")
    records = [rec for rec, _ in clients]
    if any(r.result.interrupted for r in results.values()):
        return StepOutcome.stopped(records)
    if failed:
        return StepOutcome("failed", records, "; ".join(failed))
    warnings = [f"client {rec.host}: {w}" for rec in records for w in short_of_target(rec)]
    phase = all_clients(("read", "write"), "rados load-gen", clients, None)
    phase.records[-1].workload["target_bytes_per_s"] = target_bytes * len(records)
    return StepOutcome("ok", phase.records, None, warnings + phase.warnings,
                       findings=findings_of({"load-gen": phase}))
