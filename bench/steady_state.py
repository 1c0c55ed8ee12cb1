#!/usr/bin/env python3
"""What ending a fio step at steady state saves, on a device with a real burst.

The device: a loop device over a sparse file in a scratch directory (`mktemp -d`), read
with 4k random direct reads by fio through stackprobe (`launch()`, the fio kind, its
steady-state monitor). It behaves as block volumes with burst credits do (cloud volumes
such as EBS gp2 spend a bucket of I/O credits at a burst rate, refilled at the baseline
rate, and fall to the baseline when it is empty): this process moves itself — and so the
fio it starts — into a block-I/O cgroup it makes (v1 blkio.throttle.read_iops_device, or
v2 io.max riops), caps the loop device at the burst rate, and a thread counts the reads the
device completes (/sys/block/loopN/stat) against the bucket; when it is empty the cap is
lowered to the baseline. The kernel's throttle makes the drop; fio sees it in its
per-second series, and the bench checks that it did (the fixed run's burst rate at least
1.5 times its steady level) before printing anything.

The same workload runs twice, side by side in one invocation, each with a full bucket:
with a fixed runtime (the reference; marked with `steady_state:` so its steady level is
computed the same way) and with `steady_state: {stop: true}`. Time is each run's wall time
through stackprobe; the answer is the steady IOPS: the fixed run's mean over the span it
ended steady in, against the mean over the span that ended the stopped run. The stop must
come after the drop (never during the burst): the bench fails otherwise. The last line:
`ss_time_ratio=<stopped wall / fixed wall> ss_answer_diff=<|stopped - fixed| / fixed>`.
Goals: ss_time_ratio <= 0.5, ss_answer_diff <= 0.05.

A burst longer than two windows from the start is indistinguishable, from inside the run,
from the steady state (analysis/steady_state.py): `--burst-s` shows it.

`--short` (what `make test` runs, so the script cannot rot): a 3-interval window, a 3 s
burst, a 14 s fixed run; its figures are not a measurement.

Needs root (a loop device, a cgroup) and fio. Usage:
python bench/steady_state.py [--runtime 60] [--burst-s 8] [--burst-iops 3000]
                             [--base-iops 1000] [--window 5] [--record FILE.gz] [--short]
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from stackprobe.engine.executor import RunSettings  # noqa: E402
from stackprobe.engine.launch import launch  # noqa: E402
from stackprobe.engine.target import target_of  # noqa: E402
from stackprobe.lab.cgroups import CGROUP_V2, enable_v2_controller, remove_cgroup  # noqa: E402
from stackprobe.plan.expand import expand  # noqa: E402
from stackprobe.schema.results import StepResult  # noqa: E402
from stackprobe.suite.loader import parse_suite  # noqa: E402
from stackprobe.transport.local import LocalTransport  # noqa: E402
from stackprobe.units import fmt_iops  # noqa: E402

CGROUP_V1_BLKIO = Path("/sys/fs/cgroup/blkio")
DEVICE_MB = 1024  # sparse: reads of its holes cost no disk I/O, the cap sets the rate
POLL_S = 0.05
SHORT = {"runtime": 14, "burst_s": 3.0, "window": 3}

SUITE = """\
name: steady-state-{name}
steps:
  - kind: fio
    name: {name}
    rw: randread
    bs: 4k
    ioengine: psync
    direct: 1
    runtime: {runtime}
    time_based: true
    steady_state: {{window: {window}, stop: {stop}}}
"""


class IoCgroup:
    """A block-I/O cgroup of this process's own, capping one device's read IOPS; made and
    entered on `enter`, left and removed on `leave` (also after a failure)."""

    def __init__(self, device: str):
        self.device = device  # MAJ:MIN
        if (CGROUP_V2 / "cgroup.controllers").exists() and \
                "io" in (CGROUP_V2 / "cgroup.controllers").read_text().split():
            self.v2, self.root = True, CGROUP_V2
        elif (CGROUP_V1_BLKIO / "blkio.throttle.read_iops_device").exists():
            self.v2, self.root = False, CGROUP_V1_BLKIO
        else:
            raise SystemExit("no block-I/O throttle here (cgroup v1 blkio or v2 io): the burst "
                             "device cannot be made")
        self.path = self.root / f"stackprobe-steady-{os.getpid()}"
        self.home: Path | None = None

    def enter(self) -> None:
        self.home = self.root / self._own_path().lstrip("/")
        if self.v2:
            enable_v2_controller("io")
        self.path.mkdir()
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def cap(self, iops: int) -> None:
        if self.v2:
            (self.path / "io.max").write_text(f"{self.device} riops={iops}")
        else:
            (self.path / "blkio.throttle.read_iops_device").write_text(f"{self.device} {iops}")

    def leave(self) -> None:
        if self.home is not None:
            (self.home / "cgroup.procs").write_text(str(os.getpid()))
            self.home = None
        if self.path.exists():
            remove_cgroup(self.path)

    def _own_path(self) -> str:
        """This process's cgroup in the hierarchy used (from /proc/self/cgroup)."""
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if (self.v2 and controllers == "") or (not self.v2 and "blkio" in controllers.split(",")):
                return path
        raise SystemExit("this process's block-I/O cgroup is not in /proc/self/cgroup")


class BurstCredits(threading.Thread):
    """The credit bucket: full at the start (burst_s seconds of reads at the burst rate above
    the baseline), spent one credit per completed read, refilled at the baseline rate; empty,
    the cap falls to the baseline for the rest of the run."""

    def __init__(self, cgroup: IoCgroup, stat: Path, burst_iops: int, base_iops: int, burst_s: float):
        super().__init__(daemon=True)
        self.cgroup, self.stat = cgroup, stat
        self.base_iops = base_iops
        self.full = self.credits = burst_s * (burst_iops - base_iops)
        self.emptied_at: float | None = None  # monotonic time the cap fell
        self.first_read_at: float | None = None
        self._halt = threading.Event()
        cgroup.cap(burst_iops)

    def run(self) -> None:
        last, then = self._reads(), time.monotonic()
        while not self._halt.wait(POLL_S):
            reads, now = self._reads(), time.monotonic()
            if self.first_read_at is None:
                if reads == last:
                    then = now
                    continue
                self.first_read_at = then
            spent = (reads - last) - self.base_iops * (now - then)
            self.credits = min(self.full, self.credits - spent)  # a bucket holds no more than full
            last, then = reads, now
            if self.credits <= 0:
                self.cgroup.cap(self.base_iops)
                self.emptied_at = now
                return

    def halt(self) -> None:
        self._halt.set()
        self.join()

    def _reads(self) -> int:
        return int(self.stat.read_text().split()[0])  # reads completed


@dataclass
class Run:
    wall_s: float
    step: StepResult
    run_dir: Path
    emptied_after_s: float | None  # bucket emptied, seconds after the first read


def loop_device(scratch: Path) -> str:
    backing = scratch / "burst-device.img"
    with backing.open("wb") as f:
        f.truncate(DEVICE_MB << 20)
    return subprocess.run(["losetup", "--find", "--show", str(backing)], check=True,
                          capture_output=True, text=True).stdout.strip()


def one(name: str, stop: bool, loop: str, cgroup: IoCgroup, args, work: Path) -> Run:
    suite = parse_suite(SUITE.format(name=name, runtime=args.runtime, window=args.window,
                                     stop=str(stop).lower()), f"{name}.yaml")
    device = target_of(Path(loop))
    plan = expand(suite, work, device=device)
    settings = RunSettings(suite.name, "bench", "", loop)
    bucket = BurstCredits(cgroup, Path(f"/sys/block/{Path(loop).name}/stat"), args.burst_iops,
                          args.base_iops, args.burst_s)
    bucket.start()
    t0 = time.monotonic()
    try:
        results, run_dir = launch(plan, settings, LocalTransport(), target_base=Path(loop),
                                  out_dir=work / "runs")
    finally:
        bucket.halt()
    wall = time.monotonic() - t0
    step = results.steps[0]
    if step.status != "ok" or step.summary is None or step.summary.steady is None:
        raise SystemExit(f"{name}: the fio step {step.status}: {step.error}")
    emptied = (bucket.emptied_at - bucket.first_read_at
               if bucket.emptied_at is not None and bucket.first_read_at is not None else None)
    return Run(wall, step, run_dir, emptied)


def drop_at(run: Run, burst_iops: int, base_iops: int) -> tuple[float, float]:
    """(time of the first per-second sample after the last one at or above the middle of
    the two rates, the mean of the samples up to that last one): where fio's own series
    shows the burst ending, whatever dips the burst itself had."""
    series = run.step.records[0].series or []
    middle = (burst_iops + base_iops) / 2
    high = [i for i, p in enumerate(series) if (p.iops or 0.0) >= middle]
    if not high or high[-1] == len(series) - 1:
        raise SystemExit(f"{run.step.name}: no burst then drop in fio's per-second series "
                         f"({len(series)} samples): the transient is not there")
    burst = [p.iops or 0.0 for p in series[:high[-1] + 1]]
    return series[high[-1] + 1].t_s, sum(burst) / len(burst)


def record(run: Run, dest: Path) -> None:
    """The fixed run's fio stdout (its --status-interval stream), gzip'd when dest ends .gz."""
    (src,) = list((run.run_dir / "steps").glob("*/fio.stdout"))
    opener = gzip.open if dest.suffix == ".gz" else open
    with src.open("rb") as f_in, opener(dest, "wb") as f_out:
        shutil.copyfileobj(f_in, f_out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", type=int, default=60, help="the fixed run's seconds")
    ap.add_argument("--burst-s", type=float, default=8.0, help="the full bucket, in seconds at the burst rate")
    ap.add_argument("--burst-iops", type=int, default=3000)
    ap.add_argument("--base-iops", type=int, default=1000)
    ap.add_argument("--window", type=int, default=5, help="steady_state's window (intervals)")
    ap.add_argument("--record", type=Path, help="keep the fixed run's fio status stream here")
    ap.add_argument("--short", action="store_true",
                    help="a few seconds: does the script still work (make test)")
    args = ap.parse_args()
    if args.short:
        for key, value in SHORT.items():
            setattr(args, key, value)
    if args.burst_iops < 1.5 * args.base_iops:
        raise SystemExit("--burst-iops must be at least 1.5 times --base-iops to make a burst")
    if os.geteuid() != 0:
        raise SystemExit("needs root: a loop device and a block-I/O cgroup")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # finally: all of it is removed
    scratch = Path(tempfile.mkdtemp(prefix="stackprobe-steady-"))
    loop = None
    cgroup = None
    try:
        loop = loop_device(scratch)
        cgroup = IoCgroup(f"{os.major(os.stat(loop).st_rdev)}:{os.minor(os.stat(loop).st_rdev)}")
        cgroup.enter()
        fixed = one("fixed", False, loop, cgroup, args, scratch)
        stopped = one("stop", True, loop, cgroup, args, scratch)
        if args.record:
            record(fixed, args.record)
    finally:
        if cgroup is not None:
            cgroup.leave()
        if loop is not None:
            subprocess.run(["losetup", "-d", loop], check=False)
        shutil.rmtree(scratch, ignore_errors=True)
    report(fixed, stopped, args)


def report(fixed: Run, stopped: Run, args) -> None:
    f_ss, s_ss = fixed.step.summary.steady, stopped.step.summary.steady
    f_drop, f_burst = drop_at(fixed, args.burst_iops, args.base_iops)
    s_drop, _ = drop_at(stopped, args.burst_iops, args.base_iops)
    if not f_ss["steady"] or f_ss["level_iops"] is None:
        raise SystemExit(f"fixed: never steady: {f_ss['reason']}")
    if f_burst < 1.5 * f_ss["level_iops"]:
        raise SystemExit(f"fixed: burst {fmt_iops(f_burst)} IOPS is not 1.5 x its steady "
                         f"{fmt_iops(f_ss['level_iops'])} IOPS: no transient to measure")
    print(f"fixed: {fixed.wall_s:.1f} s wall ({args.runtime} s of fio); burst "
          f"{fmt_iops(f_burst)} IOPS until {f_drop:g} s (bucket empty after "
          f"{fixed.emptied_after_s or 0:.1f} s), then {fmt_iops(f_ss['level_iops'])} IOPS: "
          f"{f_ss['reason']}", flush=True)
    if not s_ss["stopped_early"]:
        raise SystemExit(f"stop: did not stop before its {args.runtime} s: {s_ss['reason']}")
    at = s_ss["reached_at_s"]
    if at <= s_drop:
        raise SystemExit(f"stop: stopped at {at:g} s, during the burst (drop at {s_drop:g} s): "
                         f"{s_ss['reason']}")
    print(f"stop: {stopped.wall_s:.1f} s wall; drop at {s_drop:g} s, stopped at {at:g} s, "
          f"{s_ss['saved_s']:g} s of fio saved: {s_ss['reason']}", flush=True)
    diff = abs(s_ss["level_iops"] - f_ss["level_iops"]) / f_ss["level_iops"]
    print(f"ss_time_ratio={stopped.wall_s / fixed.wall_s:.3f} ss_answer_diff={diff:.3f}", flush=True)


if __name__ == "__main__":
    main()
