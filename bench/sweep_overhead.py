#!/usr/bin/env python3
"""How much of a fio sweep's wall time is not measuring: the time between the measurements.

A sweep of 4k random reads and writes × iodepth 1,16 × numjobs 1,2 (eight steps of 5 s,
256 MiB per job, libaio, O_DIRECT) runs through stackprobe as a user runs it — pre-flight,
per-second monitoring, health counters before and after, results saved after every step —
on real files in a scratch directory made for the bench (tempfile.mkdtemp, removed after).
Everything that is not fio measuring counts as overhead: laying the files out, fio's
start and end, the steps' monitors, saving, removing the files. The last line is
`sweep_wall_ratio=<suite wall time / sum of the steps' runtime + ramp_time>`; the goal is
<= 1.05.

Each step's line shows where its time went: the step's wall time, fio's command and the
rest, and whether its files were reused or laid out. Then the time between two fio runs
(from one fio's end to the next one's start; before the first, after the last), split by
the commands stackprobe ran in it (the transport times every command: sadc and sadf of the
monitor, the health and pre-flight probes, rm, ...) and the time no command ran, which is
stackprobe's own Python (parsing, notes, saving results.json, starting threads);
`--profile` adds the functions that took that Python time (cProfile, by own time).
Side by side, the same jobs are then run by hand (bare fio, one after the other, the
files kept between runs as a user rerunning a job would keep them): `bare_fio_wall_s`;
and all of them in one fio process, one after the other (`stonewall`), on those files:
`one_fio_wall_s`, the floor fio itself sets (it spends about 0.3 s per job either way).

`--short` (what `make test` runs, so the script cannot rot): a random read and a random
write of one second each on 16 MiB files.

Usage: python bench/sweep_overhead.py [--runtime 5] [--size 256M] [--no-bare] [--profile] [--short]
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from stackprobe.engine.executor import RunSettings  # noqa: E402
from stackprobe.engine.launch import launch  # noqa: E402
from stackprobe.kinds.fio.fio_job import build_job  # noqa: E402
from stackprobe.plan.expand import expand  # noqa: E402
from stackprobe.suite.loader import parse_suite  # noqa: E402
from stackprobe.transport.local import LocalTransport  # noqa: E402


class TimedTransport(LocalTransport):
    """The local transport, keeping (start, end, name) of every command it runs or starts."""

    def __init__(self) -> None:
        super().__init__()
        self.spans: list[tuple[float, float, str]] = []

    def run(self, argv, **kwargs):
        result = super().run(argv, **kwargs)
        self.spans.append((result.started, result.ended, command_name(argv)))
        return result

    def start(self, argv, **kwargs):
        t0 = time.time()
        background = super().start(argv, **kwargs)
        self.spans.append((t0, time.time(), f"start {command_name(argv)}"))
        return background


def command_name(argv: list[str]) -> str:
    """The program's name; for `sh -c SCRIPT`, the script's first word."""
    name = Path(argv[0]).name if argv else "?"
    if name == "fio" and any(a in ("--version", "--enghelp") or a.startswith("--enghelp=")
                             for a in argv[1:]):
        return f"fio {argv[1]}"  # a probe of the pre-flight, not a measurement
    if name in ("sh", "bash") and "-c" in argv[:-1]:
        script = argv[argv.index("-c") + 1].split()
        return f"{name} -c {Path(script[0]).name if script else ''}".strip()
    return name


def covered(spans: list[tuple[float, float]], lo: float, hi: float) -> float:
    """Seconds of [lo, hi] covered by at least one span."""
    total, end = 0.0, lo
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in spans if b > lo and a < hi):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def gaps(spans: list[tuple[float, float, str]], t0: float, t1: float) -> None:
    """Print the time between fio runs, by command and by stackprobe's own Python."""
    fio = sorted((a, b) for a, b, name in spans if name == "fio")
    edges = [t0] + [x for a, b in fio for x in (a, b)] + [t1]
    total_cmd = total_py = 0.0
    for k in range(0, len(edges), 2):
        lo, hi = edges[k], edges[k + 1]
        inside = [(a, b, n) for a, b, n in spans if n != "fio" and b > lo and a < hi]
        busy = covered([(a, b) for a, b, _ in inside], lo, hi)
        by_name: dict[str, float] = {}
        for a, b, n in inside:
            by_name[n] = by_name.get(n, 0.0) + min(b, hi) - max(a, lo)
        where = ("before the first fio" if k == 0 else
                 "after the last fio" if k + 2 == len(edges) else f"between fio {k // 2} and {k // 2 + 1}")
        top = ", ".join(f"{n} {v:.2f}" for n, v in sorted(by_name.items(), key=lambda x: -x[1])[:5])
        print(f"  {where}: {hi - lo:.2f} s = commands {busy:.2f} s ({top or 'none'}) "
              f"+ stackprobe alone {hi - lo - busy:.2f} s", flush=True)
        total_cmd += busy
        total_py += hi - lo - busy
    print(f"outside fio: commands {total_cmd:.2f} s, stackprobe alone {total_py:.2f} s", flush=True)

SUITE = """\
name: sweep-overhead
steps:
  - kind: fio
    rw: {rw}
    bs: 4k
    iodepth: {iodepth}
    numjobs: {numjobs}
    size: {size}
    runtime: {runtime}s
    time_based: true
    ioengine: libaio
    direct: 1
"""
FULL = {"rw": "[randread, randwrite]", "iodepth": "[1, 16]", "numjobs": "[1, 2]"}
SHORT = {"rw": "[randread, randwrite]", "iodepth": "1", "numjobs": "1"}


def seconds_between(a: str | None, b: str | None) -> float:
    if a is None or b is None:
        return float("nan")
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def through_stackprobe(work: Path, text: str, profile: bool = False):
    suite = parse_suite(text, "sweep-overhead.yaml")
    plan = expand(suite, work)
    configured = sum(s.spec.runtime.seconds + (s.spec.ramp_time.seconds if s.spec.ramp_time
                                               else 0.0) for s in plan)
    target = work / "target"
    target.mkdir()
    settings = RunSettings("sweep-overhead", "bench", text, str(target))
    transport = TimedTransport()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    t0, e0 = time.monotonic(), time.time()
    results, _ = launch(plan, settings, transport, target_base=target, out_dir=work / "runs")
    wall, e1 = time.monotonic() - t0, time.time()
    if profiler is not None:
        profiler.disable()
    for step in results.steps:
        if step.status != "ok":
            raise SystemExit(f"step {step.id} {step.status}: {step.error}")
        fio = next(c for c in step.commands if c.argv and c.argv[0] == "fio")
        files = next((n for n in step.notes if n.startswith("test files:")), "-")
        print(f"{step.id}: step {step.duration_s:.2f} s, fio {fio.duration_s:.2f} s, "
              f"other {step.duration_s - fio.duration_s:.2f} s; {files}", flush=True)
    steps = sum(s.duration_s or 0.0 for s in results.steps)
    print(f"stackprobe: wall {wall:.2f} s, steps {steps:.2f} s, outside the steps "
          f"{wall - steps:.2f} s (pre-flight, health, scratch; "
          f"first step started {seconds_between(results.run.started, results.steps[0].started):.2f} s "
          f"after the run)", flush=True)
    gaps(transport.spans, e0, e1)
    if profiler is not None:
        import pstats

        print("stackprobe's own Python, by own time (cProfile):", flush=True)
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(15)
    return plan, wall, configured


def by_hand(work: Path, plan) -> float:
    """The same jobs, bare fio one after the other in one directory: the files of one job
    name are laid out once and kept, as a user rerunning the job would keep them."""
    d = work / "bare"
    d.mkdir()
    t0 = time.monotonic()
    for i, step in enumerate(plan):
        job = d / f"{i}.fio"
        job.write_text(build_job("bare", step.spec, directory=str(d)))
        subprocess.run(["fio", "--output-format=json+", str(job)], cwd=d, check=True,
                       capture_output=True, text=True)
    return time.monotonic() - t0


def one_process(work: Path, plan) -> float:
    """The same jobs in one fio process, one after the other (`stonewall`), on the files
    `by_hand` laid out: what fio alone costs per job when no process starts between them.
    Measured here, fio 3.33 spends about 0.3 s per job even so (strace: it sleeps 0.1 s
    before starting a job's process or thread, 0.1 s after, and reaps an ended one up to
    0.1 s late), so batching a sweep's cells into one fio would not remove the per-cell
    cost this line measures."""
    d = work / "bare"
    lines = ["[global]", f"directory={d}", "filename_format=bare.$jobnum.$filenum"]
    for i, step in enumerate(plan):
        body = build_job("bare", step.spec, directory=str(d)).splitlines()
        own = [x for x in body if x and not x.startswith(("#", "[", "directory="))]
        lines += [f"[cell{i}]", "stonewall", "new_group", *own]
    job = d / "one.fio"
    job.write_text("\n".join(lines) + "\n")
    t0 = time.monotonic()
    out = subprocess.run(["fio", "--output-format=json", str(job)], cwd=d, check=True,
                         capture_output=True, text=True).stdout
    wall = time.monotonic() - t0
    ran = {j["jobname"] for j in json.loads(out)["jobs"]}
    if ran != {f"cell{i}" for i in range(len(plan))}:
        sys.exit(f"one_process: fio ran {sorted(ran)}, not the {len(plan)} cells")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--size", default="256M")
    ap.add_argument("--no-bare", action="store_true", help="without the bare fio runs")
    ap.add_argument("--profile", action="store_true", help="cProfile stackprobe's own Python")
    ap.add_argument("--short", action="store_true",
                    help="a few seconds: does the script still work (make test)")
    args = ap.parse_args()
    sweep = FULL
    if args.short:
        sweep, args.runtime, args.size = SHORT, 1, "16M"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # finally: the scratch goes
    work = Path(tempfile.mkdtemp(prefix="stackprobe-sweep-overhead-"))
    try:
        text = SUITE.format(runtime=args.runtime, size=args.size, **sweep)
        plan, wall, configured = through_stackprobe(work, text, args.profile)
        if not args.no_bare:
            bare = by_hand(work, plan)
            print(f"bare_fio_wall_s={bare:.2f} bare_ratio={bare / configured:.3f}", flush=True)
            one = one_process(work, plan)
            print(f"one_fio_wall_s={one:.2f} one_fio_ratio={one / configured:.3f} (the same "
                  f"jobs in one fio process, stonewall: fio's own floor)", flush=True)
        print(f"sweep_wall_ratio={wall / configured:.3f} wall_s={wall:.2f} "
              f"configured_s={configured:.1f} steps={len(plan)}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
