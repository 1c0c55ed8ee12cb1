#!/usr/bin/env python3
"""Latency-bounded maximum IOPS: seed 000's linear numjobs ramp against stackprobe's search.

The device: an RBD image of a real Ceph cluster — the lab cluster (`stackprobe lab ceph up`,
brought up in a temporary directory and taken down after, unless --conf names a running
one). Its IOPS saturate within a few outstanding I/Os and then latency grows with every
job added (Little's law): a real knee. The workload is 4k random reads through fio's rbd
engine, iodepth 1 per job; the limit is a latency percentile (default p99 <= 10 ms).

Both methods use the same probe (one fio run at a numjobs setting, stackprobe's job builder
and parser): the ramp tries numjobs 1, 2, 3, ... until a probe exceeds the limit, its answer
the last setting that met it, as seed 000 reports it (the best of its passing probes is
printed beside it: on a plateau of twenty noisy probes that is the luckiest one); the search is stackprobe's as the `slo` step runs
it: analysis/slo_search.py, then analysis/slo_confirm.py re-measuring the candidates (the
answer is its setting's mean IOPS). Device time is the wall time of all a method's probes.

One ramp is no reference on a noisy device, so ramp and search run K times, interleaved
(ramp, search, ramp, search, ...: a drift of the device hits both alike). Each search's
answer is compared with the median of the K ramps' answers. The last line:
`slo_time_ratio=<median of search time / ramp time> answer_diff=<median> answer_diff_max=<max>`.
Goals: every answer_diff <= 0.05, slo_time_ratio <= 0.33. The line before it,
`reference_spread=`, says how far the K ramps' answers lie from their median: the
reference's own noise, which no answer_diff can be expected to beat; `probe_noise=`, the
probes' own (IOPS's coefficient of variation at one setting, pooled over the settings the
run probed more than once), and how often a median of K such probes misses the truth by
more than the tolerance (a seeded simulation): how often even a search that answered the
truth would fail the goal against this reference.

`--short` (what `make test` runs, so the script cannot rot): a 64 MiB image, one-second
probes, numjobs up to 4, a limit every probe meets; the figures it prints are not a
measurement.

Usage: python bench/slo_search.py [--conf CEPH_CONF] [--limit 10ms] [--percentile 99]
                                  [--runtime 8] [--ramp-time 2] [--max 32] [--repeat 3]
                                  [--confirm 4] [--tolerance 0.05] [--short]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from stackprobe.analysis.slo_confirm import confirm, settings  # noqa: E402
from stackprobe.analysis.slo_search import Probe, SloResult, ramp, search  # noqa: E402
from stackprobe.kinds.fio.fio import FioStep  # noqa: E402
from stackprobe.kinds.fio.fio_job import build_job  # noqa: E402
from stackprobe.kinds.fio.slo import probe_latency  # noqa: E402
from stackprobe.parsers.fio.fio_json import parse_fio_json  # noqa: E402
from stackprobe.schema.records import percentile_key  # noqa: E402
from stackprobe.units import fmt_iops, fmt_ns, parse_duration_s  # noqa: E402

STACKPROBE = [sys.executable, "-m", "stackprobe"]
POOL = f"stackprobe-bench-{os.getpid()}"
IMAGE_MB = 1024  # fits the lab OSDs' caches once read: a plateau that does not drift
SHORT = {"image_mb": 64, "runtime": 1, "ramp_time": 0, "max": 4, "limit": "10s", "repeat": 1}


def ceph(conf: Path, *args: str) -> str:
    return subprocess.run(["ceph", "-c", str(conf), *args], check=True, capture_output=True,
                          text=True).stdout


def make_image(conf: Path, image_mb: int) -> None:
    ceph(conf, "osd", "pool", "create", POOL, "32")
    ceph(conf, "osd", "pool", "application", "enable", POOL, "rbd")
    rbd = ["rbd", "-c", str(conf)]
    subprocess.run(rbd + ["create", f"{POOL}/img", "--size", f"{image_mb}M",
                          "--image-feature", "layering"], check=True)
    for io_type in ("write", "read"):  # fill it, then read it all once (warm caches)
        subprocess.run(rbd + ["bench", "--io-type", io_type, "--io-pattern", "seq", "--io-size",
                              "4M", "--io-threads", "16", "--io-total", f"{image_mb}M",
                              f"{POOL}/img"], check=True, capture_output=True)


def prober(conf: Path, work: Path, args) -> callable:
    key = percentile_key(args.percentile)
    workload = FioStep(kind="fio", rw="randread", bs="4k", iodepth=1, size=f"{args.image_mb}M",
                       runtime=args.runtime, ramp_time=args.ramp_time or None, time_based=True)
    engine = {"ioengine": "rbd", "clientname": "admin", "pool": POOL, "rbdname": "img"}

    def measure(numjobs: int) -> Probe:
        job = work / f"nj{numjobs}.fio"
        job.write_text(build_job("slo", workload.model_copy(update={"numjobs": numjobs}),
                                 directory=None, engine=engine))
        t0 = time.monotonic()
        out = subprocess.run(["fio", "--output-format=json+", str(job)], capture_output=True,
                             text=True, check=True, env={**os.environ, "CEPH_CONF": str(conf)})
        seconds = time.monotonic() - t0
        iops, lat = probe_latency(parse_fio_json(out.stdout), key, "total")
        verdict = "meets" if lat <= args.limit_ns else "exceeds"
        print(f"  numjobs={numjobs:3d}: {fmt_iops(iops):>6s} IOPS, p{args.percentile:g} "
              f"{fmt_ns(lat):>8s} ({verdict}), {seconds:.1f} s", flush=True)
        return Probe(numjobs, iops, lat, seconds)

    return measure


def summary(name: str, res: SloResult) -> str:
    a = res.answer
    spread = f" ± {res.uncertainty:.1%}" if a and res.uncertainty is not None else ""
    answer = (f"{fmt_iops(a.iops)} IOPS{spread} at numjobs={a.setting}" if a
              else "nothing meets the limit")
    if res.best is not None and res.best is not a:
        answer += f" (best probe {fmt_iops(res.best.iops)} at numjobs={res.best.setting})"
    return (f"{name}: {answer}; {len(res.probes)} probes, {res.device_seconds:.0f} s of device "
            f"time ({res.reason})")


def probe_noise(results: list[SloResult]) -> tuple[float | None, int]:
    """The probes' own noise in this run: the coefficient of variation of IOPS at one
    setting, pooled over the settings probed more than once (the K ramps probe every
    setting below the knee K times, interleaved with the searches; the confirmation
    repeats the answer's). Returns it and how many settings it pools."""
    every = settings([p for res in results for p in res.probes])
    groups = [s.iops for s in every.values() if s.n >= 2 and s.mean_iops > 0]
    dof = sum(len(v) - 1 for v in groups)
    if not dof:
        return None, 0
    squares = sum((x / statistics.fmean(v) - 1) ** 2 for v in groups for x in v)
    return math.sqrt(squares / dof), len(groups)


def reference_off(cov: float, k: int, tolerance: float, draws: int = 20000) -> float:
    """How often the median of k probes, each off by a normal relative error of `cov`,
    lies more than `tolerance` from the true figure (a seeded simulation): how often
    a search that answered the truth would still miss the reference by the goal's margin."""
    rng = random.Random(0)
    off = sum(abs(statistics.median(rng.gauss(0.0, cov) for _ in range(k))) > tolerance
              for _ in range(draws))
    return off / draws


def _exit_on(signum, frame):  # noqa: ARG001 - signal handler signature
    raise SystemExit(128 + signum)


def main() -> None:
    # the finally below removes the pool and the lab: let SIGTERM reach it, and SIGINT
    # too when a non-interactive shell started us with SIGINT ignored
    signal.signal(signal.SIGTERM, _exit_on)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conf", type=Path, help="a running cluster's ceph.conf (default: a lab)")
    ap.add_argument("--limit", default="10ms")
    ap.add_argument("--percentile", type=float, default=99.0)
    ap.add_argument("--runtime", type=int, default=8)
    ap.add_argument("--ramp-time", type=int, default=2)
    ap.add_argument("--max", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3, help="K: ramps and searches, interleaved")
    ap.add_argument("--confirm", type=int, default=4, help="the search's extra-probe budget")
    ap.add_argument("--tolerance", type=float, default=0.05)
    ap.add_argument("--short", action="store_true",
                    help="a few seconds of probes: does the script still work (make test)")
    args = ap.parse_args()
    args.image_mb = IMAGE_MB
    if args.short:
        args.image_mb, args.runtime = SHORT["image_mb"], SHORT["runtime"]
        args.ramp_time = SHORT["ramp_time"]
        args.max, args.limit, args.repeat = SHORT["max"], SHORT["limit"], SHORT["repeat"]
    args.limit_ns = parse_duration_s(args.limit) * 1e9
    tmp = Path(tempfile.mkdtemp(prefix="stackprobe-slo-bench-"))
    lab_dir = tmp / "lab"
    conf = args.conf
    try:
        if conf is None:
            subprocess.run(STACKPROBE + ["lab", "ceph", "up", "--dir", str(lab_dir)], check=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            conf = lab_dir / "ceph.conf"
        make_image(conf, args.image_mb)
        measure = prober(conf, tmp, args)
        print("warm-up:")
        measure(4)
        ramps, searches = [], []
        for k in range(1, args.repeat + 1):
            print(f"[{k}/{args.repeat}] linear ramp (seed 000), limit p{args.percentile:g} "
                  f"<= {args.limit}:")
            ramps.append(ramp(measure, 1, args.max, args.limit_ns))
            print(summary("ramp", ramps[-1]))
            print(f"[{k}/{args.repeat}] stackprobe search:")
            found = search(measure, 1, args.max, args.limit_ns, tolerance=args.tolerance)
            searches.append(confirm(found, measure, tolerance=args.tolerance,
                                    budget=args.confirm))
            print(summary("search", searches[-1]))
        if any(r.answer is None for r in ramps + searches):
            raise SystemExit("no answer to compare: raise --limit")
        reference = statistics.median(r.answer.iops for r in ramps)
        diffs = [abs(s.answer.iops - reference) / reference for s in searches]
        best_of = statistics.median(r.best.iops for r in ramps)
        print(f"ramps' best probes: {', '.join(fmt_iops(r.best.iops) for r in ramps)} IOPS "
              f"(median {fmt_iops(best_of)}); searches' differences from it: "
              f"{', '.join(f'{abs(s.answer.iops - best_of) / best_of:.3f}' for s in searches)}")
        ratios = [s.device_seconds / r.device_seconds for s, r in zip(searches, ramps)]
        print(f"ramps' answers: {', '.join(fmt_iops(r.answer.iops) for r in ramps)} IOPS "
              f"(median {fmt_iops(reference)}); searches' differences from it: "
              f"{', '.join(f'{d:.3f}' for d in diffs)}; time ratios: "
              f"{', '.join(f'{x:.3f}' for x in ratios)}")
        # the reference's own noise: how far the K ramps' answers lie from their median; a
        # search cannot be judged closer to the reference than the reference agrees with itself
        spread = max(abs(r.answer.iops - reference) / reference for r in ramps)
        print(f"reference_spread={spread:.3f} (the ramps' answers' largest difference from "
              f"their median; answer_diff below it is within the reference's own noise)")
        cov, pooled = probe_noise(ramps + searches)
        if cov is not None:
            print(f"probe_noise={cov:.3f} (IOPS's coefficient of variation at one setting, "
                  f"pooled over {pooled} settings probed more than once); the median of "
                  f"{args.repeat} such probes lies more than {args.tolerance:.0%} from the "
                  f"truth in {reference_off(cov, args.repeat, args.tolerance):.0%} of "
                  f"simulated draws")
        print(f"slo_time_ratio={statistics.median(ratios):.3f} "
              f"answer_diff={statistics.median(diffs):.3f} answer_diff_max={max(diffs):.3f}")
    finally:
        if conf is not None:
            subprocess.run(["ceph", "-c", str(conf), "osd", "pool", "rm", POOL, POOL,
                            "--yes-i-really-really-mean-it"], capture_output=True)
        if args.conf is None and lab_dir.exists():
            subprocess.run(STACKPROBE + ["lab", "ceph", "down", "--dir", str(lab_dir)],
                           env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        subprocess.run(["rm", "-rf", str(tmp)])


if __name__ == "__main__":
    main()
