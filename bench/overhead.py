#!/usr/bin/env python3
"""What does running fio through stackprobe cost? Same job, bare and through `stackprobe run`.

Two jobs that make fio itself the bottleneck, so any cost stackprobe adds would show:
  - ioengine=null (no I/O at all: fio's own per-I/O path, several million IOPS here);
  - 4k randread with psync on a file in /dev/shm (memory-speed I/O through the kernel).
The file's name is relative: bare fio runs in a directory of /dev/shm, stackprobe with
`--target` there, so the job stays inside the run's scratch directory as the target guard
requires (an absolute path outside it is refused, docs/safety.md).
Each job runs bare (`fio --output-format=json+ job.fio`) and as a one-step suite whose
fio step is that same job file, alternately (bare first in odd pairs, stackprobe first in
even pairs, so drift on a noisy machine hits both sides alike). Every pair gives the ratio
stackprobe IOPS / bare IOPS; the median per job and over all pairs is printed. The last
line is `overhead_ratio=<median>`; the goal is >= 0.99.

Both sides run pinned to one CPU (taskset): unpinned, the null job swings between ~9 M and
~5.5 M IOPS on a 2-vCPU VM, bare or not, depending on whether fio's main process and its
job share a CPU. Pinning the whole stackprobe process tree to the same CPU as fio is also
the strict test: any CPU stackprobe spends while fio runs is taken from fio.

stackprobe runs as users run it: with its per-second resource monitoring on (sadc sampling
CPU, memory, disks and NICs, on the same pinned CPU) and the monitor files written after
the step; `--no-monitor` measures it without, for comparison. Its output is piped, so it
prints the live figures as plain lines: fio runs with `--status-interval=1` and stackprobe
reads every status document while the job runs (docs/live.md); `--quiet` measures it
without. Both states are printed with the ratio, as the step's own results.json shows
them (sadc's samples kept; fio's command line): `overhead_ratio=<median> monitor=on live=on`.

`--short` (what `make test` runs, so the script cannot rot): one pair per job of one
second each; the ratio it prints is a smoke figure, not a measurement.

Usage: python bench/overhead.py [--pairs N] [--runtime S] [--no-monitor] [--quiet] [--short]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from stackprobe.parsers.fio.fio_json import parse_fio_json  # noqa: E402

JOBS = {
    "null": "[null]\nioengine=null\nrw=randread\nbs=4k\nsize=1G\ntime_based=1\nruntime={runtime}\n",
    "shm-psync": (
        "[shm-psync]\nioengine=psync\nrw=randread\nbs=4k\nsize=256M\n"
        "filename=bench.file\ntime_based=1\nruntime={runtime}\n"
    ),
}
SHORT = {"pairs": 1, "runtime": 1}


def iops_of(fio_json_text: str) -> float:
    return sum(r.read.iops for r in parse_fio_json(fio_json_text))


def pinned(cpu: int) -> list[str]:
    return ["taskset", "-c", str(cpu)]


def run_bare(job: Path, cwd: Path, cpu: int) -> float:
    proc = subprocess.run(pinned(cpu) + ["fio", "--output-format=json+", str(job)],
                          capture_output=True, text=True, check=True, cwd=cwd)
    return iops_of(proc.stdout)


def run_stackprobe(suite: Path, work: Path, out: Path, cpu: int, monitor: bool,
                   live: bool) -> float:
    stackprobe = pinned(cpu) + [sys.executable, "-m", "stackprobe"]
    flags = ([] if monitor else ["--no-monitor"]) + ([] if live else ["--quiet"])
    proc = subprocess.run(stackprobe + ["run", str(suite), "--target", str(work), "--out",
                                        str(out), *flags],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    if proc.returncode != 0:
        raise SystemExit(f"stackprobe run failed ({proc.returncode}): "
                         f"{(proc.stderr or proc.stdout).strip()[-500:]}")
    run_dir = max((p for p in out.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    results = json.loads((run_dir / "results.json").read_text())
    step = results["steps"][0]
    if step["status"] != "ok":
        raise SystemExit(f"stackprobe step failed: {step['error']}")
    if monitor and not step.get("monitor"):
        raise SystemExit(f"monitoring was on but recorded nothing: {step.get('warnings')}")
    fio = [c["argv"] for c in step["commands"] if c["argv"] and c["argv"][0] == "fio"]
    if live != any(a.startswith("--status-interval") for argv in fio for a in argv):
        raise SystemExit(f"live figures were {'on' if live else 'off'} but fio ran as {fio}")
    return sum(r["read"]["iops"] for r in step["records"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=(os.cpu_count() or 1) - 1,
                    help="CPU both sides are pinned to (default: the last one)")
    ap.add_argument("--no-monitor", action="store_true", help="stackprobe without monitoring")
    ap.add_argument("--quiet", action="store_true", help="stackprobe without live figures")
    ap.add_argument("--short", action="store_true",
                    help="a few seconds: does the script still work (make test)")
    args = ap.parse_args()
    monitor, live = not args.no_monitor, not args.quiet
    if args.short:
        args.pairs, args.runtime = SHORT["pairs"], SHORT["runtime"]
    elif args.pairs < 5:
        ap.error("at least 5 pairs")
    tmp = Path(tempfile.mkdtemp(prefix="stackprobe-bench-"))
    shm = Path(tempfile.mkdtemp(prefix="stackprobe-bench-", dir="/dev/shm"))
    try:
        ratios: dict[str, list[float]] = {}
        for name, template in JOBS.items():
            job = tmp / f"{name}.fio"
            job.write_text(template.format(runtime=args.runtime))
            suite = tmp / f"{name}.yaml"
            suite.write_text(f"name: bench-{name}\nsteps:\n  - kind: fio\n    job_file: {job}\n")
            run_bare(job, shm, args.cpu)  # warm-up: lays out the /dev/shm file, warms caches
            ratios[name] = []
            for pair in range(args.pairs):
                if pair % 2 == 0:
                    bare = run_bare(job, shm, args.cpu)
                    sp = run_stackprobe(suite, shm, tmp / "runs", args.cpu, monitor, live)
                else:
                    sp = run_stackprobe(suite, shm, tmp / "runs", args.cpu, monitor, live)
                    bare = run_bare(job, shm, args.cpu)
                ratios[name].append(sp / bare)
                print(f"{name:10s} pair {pair + 1}: bare {bare:12.0f} IOPS  "
                      f"stackprobe {sp:12.0f} IOPS  ratio {sp / bare:.4f}", flush=True)
        for name, values in ratios.items():
            print(f"{name:10s} median ratio {statistics.median(values):.4f} "
                  f"(min {min(values):.4f}, max {max(values):.4f}, {len(values)} pairs)")
        overall = statistics.median([r for values in ratios.values() for r in values])
        print(f"overhead_ratio={overall:.4f} monitor={'on' if monitor else 'off'} "
              f"live={'on' if live else 'off'}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(shm, ignore_errors=True)


if __name__ == "__main__":
    main()
