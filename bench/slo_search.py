#!/usr/bin/env python3
"""Latency-bounded maximum IOPS: seed 000's linear numjobs ramp against stackprobe's search.

The device: an RBD image of a real Ceph cluster — the lab cluster (`stackprobe lab ceph up`,
brought up in a temporary directory and taken down after, unless --conf names a running
one). Its IOPS saturate within a few outstanding I/Os and then latency grows with every
job added (Little's law): a real knee. The workload is 4k random reads through fio's rbd
engine, iodepth 1 per job; the limit is a latency percentile (default p99 <= 10 ms).

Both methods use the same probe (one fio run at a numjobs setting, stackprobe's job builder
and parser): the ramp tries numjobs 1, 2, 3, ... until a probe exceeds the limit; the search
is stackprobe's (analysis/slo_search.py). Each answer is the highest IOPS among its passing
probes. Device time is the wall time of all a method's probes. The last line:
`slo_time_ratio=<search device time / ramp device time> answer_diff=<relative difference>`.
Goals: answer_diff <= 0.05, slo_time_ratio <= 0.33.

`--short` (what `make test` runs, so the script cannot rot): a 64 MiB image, one-second
probes, numjobs up to 4, a limit every probe meets; the figures it prints are not a
measurement.

Usage: python bench/slo_search.py [--conf CEPH_CONF] [--limit 10ms] [--percentile 99]
                                  [--runtime 8] [--ramp-time 2] [--max 32] [--short]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

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
SHORT = {"image_mb": 64, "runtime": 1, "ramp_time": 0, "max": 4, "limit": "10s"}


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
    answer = f"{fmt_iops(a.iops)} IOPS at numjobs={a.setting}" if a else "nothing meets the limit"
    return (f"{name}: {answer}; {len(res.probes)} probes, {res.device_seconds:.0f} s of device "
            f"time ({res.reason})")


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
    ap.add_argument("--short", action="store_true",
                    help="a few seconds of probes: does the script still work (make test)")
    args = ap.parse_args()
    args.image_mb = IMAGE_MB
    if args.short:
        args.image_mb, args.runtime = SHORT["image_mb"], SHORT["runtime"]
        args.ramp_time = SHORT["ramp_time"]
        args.max, args.limit = SHORT["max"], SHORT["limit"]
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
        print(f"linear ramp (seed 000), limit p{args.percentile:g} <= {args.limit}:")
        by_ramp = ramp(measure, 1, args.max, args.limit_ns)
        print("stackprobe search:")
        by_search = search(measure, 1, args.max, args.limit_ns)
        print(summary("ramp", by_ramp))
        print(summary("search", by_search))
        if by_ramp.answer is None or by_search.answer is None:
            raise SystemExit("no answer to compare: raise --limit")
        ratio = by_search.device_seconds / by_ramp.device_seconds
        diff = abs(by_search.answer.iops - by_ramp.answer.iops) / by_ramp.answer.iops
        print(f"slo_time_ratio={ratio:.3f} answer_diff={diff:.3f}")
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
