#!/usr/bin/env python3
"""How the controller's cost grows with the number of hosts in a fio fleet step.

For each host count a lab of that many hosts is brought up (network namespaces on a bridge,
each with its own sshd: `stackprobe lab hosts`), one fio step is run on all of them as a
fleet (fio --server on every host over SSH, one `fio --client ... --client ...` here), and
the lab is taken down. The workload is fio's null engine at a fixed rate per client, so
the hosts' own work stays small and what grows is stackprobe's: SSH connections and
commands, the fio client's traffic, parsing and merging N clients' histograms.

controller_cpu_s is the CPU time (user + system) of this process and its children (the fio
client) during the run; wall_s is the run from opening the fleet to closing it. One line
per host count: `hosts=N controller_cpu_s=… wall_s=…`.

`--short` (what `make test` runs, so the script cannot rot): 2 hosts, one second of load.

Usage: python bench/fleet_scale.py [--hosts 8,16,32] [--runtime 3] [--rate-iops 2000] [--short]
"""

from __future__ import annotations

import argparse
import resource
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from stackprobe.engine.executor import RunSettings  # noqa: E402
from stackprobe.engine.launch import launch  # noqa: E402
from stackprobe.lab.hosts_lab import HostsLab  # noqa: E402
from stackprobe.plan.expand import expand  # noqa: E402
from stackprobe.schema.sentinels import FLEET_HOST  # noqa: E402
from stackprobe.suite.loader import load_hosts, parse_suite  # noqa: E402
from stackprobe.transport.local import LocalTransport  # noqa: E402

SUITE = """\
name: fleet-scale
steps:
  - kind: fio
    hosts: client
    name: null-fleet
    ioengine: null
    rw: randread
    bs: 4k
    iodepth: 1
    size: 64M
    runtime: {runtime}
    time_based: true
    options: {{rate_iops: {rate}}}
"""


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def one(n: int, work: Path, runtime: int, rate: int) -> tuple[float, float, int]:
    lab = HostsLab(work / f"lab-{n}", prefix="spb", log=lambda *_: None)
    lab.up(n)
    try:
        hosts = load_hosts(lab.dir / "hosts.yaml")
        suite = parse_suite(SUITE.format(runtime=runtime, rate=rate), "fleet-scale.yaml")
        plan = expand(suite, work, hosts)
        settings = RunSettings("fleet-scale", "bench", "", str(work))
        cpu0, t0 = cpu_seconds(), time.monotonic()
        results, _ = launch(plan, settings, LocalTransport(), target_base=work,
                            out_dir=work / "runs", hosts=hosts)
        wall, cpu = time.monotonic() - t0, cpu_seconds() - cpu0
        step = results.steps[0]
        if step.status != "ok":
            raise SystemExit(f"hosts={n}: the fleet step {step.status}: {step.error}")
        clients = len([r for r in step.records if r.host != FLEET_HOST])
        return cpu, wall, clients
    finally:
        lab.down()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", default="8,16,32")
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--rate-iops", type=int, default=2000)
    ap.add_argument("--short", action="store_true",
                    help="a few seconds: does the script still work (make test)")
    args = ap.parse_args()
    if args.short:
        args.hosts, args.runtime = "2", 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # finally: the lab comes down
    with tempfile.TemporaryDirectory(prefix="stackprobe-fleet-scale-") as tmp:
        for n in (int(x) for x in args.hosts.split(",")):
            cpu, wall, clients = one(n, Path(tmp), args.runtime, args.rate_iops)
            print(f"hosts={n} controller_cpu_s={cpu:.2f} wall_s={wall:.2f} "
                  f"clients_reported={clients} fio_runtime_s={args.runtime}", flush=True)


if __name__ == "__main__":
    main()
