#!/usr/bin/env python3
"""How the controller's cost grows with the number of hosts: real lab hosts, then replayed ones.

Real (8/16/32/64 hosts by default): a lab of that many hosts is brought up (network
namespaces on a bridge, each with its own sshd: `stackprobe lab hosts`; its bring-up time
and memory per host measured), and one run of three steps goes over SSH to all of them:
`inventory` on each host (per node, the hosts compared), a fio fleet step (fio --server on
every host, one `fio --client …` here; the null engine at a fixed rate, so the hosts' own
work stays small and what grows is stackprobe's) and the `network` step with `pairs: 64`.
Every command of the run is recorded (transport/replay.py: argv, output, duration).

Simulated (100/300/1000 hosts): the same suite through the same planner, executor,
runners, parsers, analysis and reports, each host's transport a ReplayTransport answering
from the largest real run's recording after each command's recorded duration (the delays
are the real lab's: SSH round trip and the tool's run included, SSH's CPU on this side not).

Each host count runs in its own process (its memory is its own). Per step:
`hosts=N controller_cpu_s=… wall_s=… rss_mb=… mode=real|sim step=NAME kind=KIND
cpu_ms_per_host=…` (CPU of this process and its children: fio's client; rss_mb: resident
at the step's end); per run: `… step=run …` with the peak RSS, the lab's bring-up, the
HTML report's writing time and size, and for the largest simulated run its load time in
headless Chromium.

`--short` (what `make test` runs, so the script cannot rot): 2 real hosts, 20 replayed five
times faster.

`--time-scale 0.1` replays the recorded delays ten times faster: a simulated run measures
the controller's CPU per host, and at the recording's own pace (64 namespace hosts on two
CPUs: an iperf3 pair 4.6 s) 100 hosts spend more than ten minutes waiting. Shorter delays
put more commands in flight at once, never fewer: the CPU per host is not flattered.

Usage: python bench/fleet_scale.py [--hosts 8,16,32,64] [--sim 100,300,1000] [--pairs 64]
       [--runtime 3] [--rate-iops 2000] [--recording FILE] [--keep-recording FILE]
       [--time-scale 1.0] [--short]
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from fleet_sim import chromium_load, fio_clients, sim_hosts  # noqa: E402

from stackprobe.engine.executor import RunSettings  # noqa: E402
from stackprobe.engine.launch import launch  # noqa: E402
from stackprobe.lab.hosts_lab import HostsLab  # noqa: E402
from stackprobe.plan.expand import expand  # noqa: E402
from stackprobe.report.html import to_html  # noqa: E402
from stackprobe.schema.sentinels import FLEET_HOST  # noqa: E402
from stackprobe.store.rundir import load_results  # noqa: E402
from stackprobe.suite.loader import load_hosts, parse_suite  # noqa: E402
from stackprobe.transport.local import LocalTransport  # noqa: E402
from stackprobe.transport.replay import Recording, RecordingTransport, ReplayTransport  # noqa: E402
from stackprobe.transport.ssh import COMMANDS_IN_FLIGHT  # noqa: E402

SUITE = """\
name: fleet-scale
steps:
  - kind: inventory
    hosts: client
    name: inventory
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
  - kind: network
    hosts: client
    name: pairs
    seconds: 1
    pairs: {pairs}
"""


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def mem_available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class StepMeter:
    """The executor's progress: CPU, wall time and resident memory of each step."""

    def __init__(self) -> None:
        self.steps: list[tuple[object, object, float, float, float]] = []
        self._at = (0.0, 0.0)

    def step_started(self, step) -> None:
        self._at = (cpu_seconds(), time.monotonic())

    def step_finished(self, step, result) -> None:
        cpu, t = self._at
        self.steps.append((step, result, cpu_seconds() - cpu, time.monotonic() - t, rss_mb()))


def step_lines(n: int, mode: str, meter: StepMeter) -> list[str]:
    lines = []
    for step, result, cpu, wall, rss in meter.steps:
        extra = ""
        if step.kind == "fio":
            clients = len([r for r in result.records if r.host != FLEET_HOST])
            extra = f" clients_reported={clients}"
        elif step.kind == "network":
            extra = f" pairs={len(result.records) // 2} watched={len(result.monitor or {})}"
        elif step.kind == "inventory":
            extra = f" hosts_reported={len(result.records)}"
        lines.append(f"hosts={n} controller_cpu_s={cpu:.2f} wall_s={wall:.2f} rss_mb={rss:.0f} "
                     f"mode={mode} step={step.name} kind={step.kind} "
                     f"cpu_ms_per_host={1000 * cpu / n:.1f} status={result.status}{extra}")
    return lines


def run_suite(n: int, work: Path, hosts, args, controller, host_transport):
    suite = parse_suite(SUITE.format(runtime=args.runtime, rate=args.rate_iops, pairs=args.pairs),
                        "fleet-scale.yaml")
    plan = expand(suite, work, hosts)
    settings = RunSettings("fleet-scale", "bench", "", str(work))
    meter = StepMeter()
    cpu0, t0 = cpu_seconds(), time.monotonic()
    results, run_dir = launch(plan, settings, controller, target_base=work, out_dir=work / "runs",
                              hosts=hosts, progress=meter, host_transport=host_transport)
    wall, cpu = time.monotonic() - t0, cpu_seconds() - cpu0
    bad = [s for s in results.steps if s.status != "ok"]
    if bad:
        raise SystemExit(f"hosts={n}: step {bad[0].name} {bad[0].status}: {bad[0].error}")
    t1 = time.monotonic()
    html = to_html(load_results(run_dir), run_dir)
    (run_dir / "report.html").write_text(html, encoding="utf-8")
    report_s = time.monotonic() - t1
    files = sum(1 for p in run_dir.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in run_dir.rglob("*") if p.is_file())
    totals = (f"report_s={report_s:.2f} report_mb={len(html.encode()) / 1e6:.2f} "
              f"results_mb={(run_dir / 'results.json').stat().st_size / 1e6:.2f} "
              f"run_files={files} run_mb={size / 1e6:.1f}")
    return meter, cpu, wall, totals, run_dir


def one_real(n: int, work: Path, args) -> None:
    lab = HostsLab(work / "lab", prefix="spb", log=lambda *_: None)
    before = mem_available_mb()
    t0 = time.monotonic()
    state = lab.up(n)
    up_s = time.monotonic() - t0
    try:
        time.sleep(1.0)  # the sshds settled
        lab_mb = (before - mem_available_mb()) / n
        sshd_mb = sum(_rss_of(h.pid) for h in state.hosts) / n
        hosts = load_hosts(lab.dir / "hosts.yaml")
        recording = Recording(root=str(work))
        by_name = {h.name: h.address for h in hosts.hosts}
        controller = RecordingTransport(LocalTransport(), "", recording)
        meter, cpu, wall, totals, _ = run_suite(
            n, work, hosts, args, controller,
            lambda host, t: RecordingTransport(t, by_name[host.name], recording))
        recording.save(Path(args.save_recording))
    finally:
        lab.down()
    for line in step_lines(n, "real", meter):
        print(line, flush=True)
    print(f"hosts={n} controller_cpu_s={cpu:.2f} wall_s={wall:.2f} rss_mb={peak_rss_mb():.0f} "
          f"mode=real step=run cpu_ms_per_host={1000 * cpu / n:.1f} lab_up_s={up_s:.2f} "
          f"lab_up_s_per_host={up_s / n:.3f} lab_mb_per_host={lab_mb:.1f} "
          f"sshd_rss_mb_per_host={sshd_mb:.1f} commands={len(recording.exchanges)} "
          f"threads_peak={max(_threads_peak)} fds_peak={max(_fds_peak)} {totals}",
          flush=True)


def _rss_of(pid: int | None) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def one_sim(n: int, work: Path, args) -> None:
    recording = Recording.load(Path(args.recording))
    hosts = sim_hosts(n, work / "lab")
    replayed: list[ReplayTransport] = []
    slots = threading.Semaphore(COMMANDS_IN_FLIGHT)  # as the SSH pool allows

    def replay(host, _transport):
        t = ReplayTransport(host.name, host.address, recording, index=int(host.name[1:]) - 1,
                            root=str(work), slots=slots, time_scale=args.time_scale)
        replayed.append(t)
        return t

    controller = ReplayTransport(LocalTransport().host, "", recording, root=str(work),
                                 responders=[fio_clients], time_scale=args.time_scale)
    meter, cpu, wall, totals, run_dir = run_suite(n, work, hosts, args, controller, replay)
    unanswered = sorted({k for t in [controller, *replayed] for k in t.unanswered})
    for line in step_lines(n, "sim", meter):
        print(line, flush=True)
    load = ""
    if args.chromium:
        timing = chromium_load(run_dir / "report.html")
        load = (" chromium=absent" if timing is None else
                f" chromium_load_ms={timing[0]:.0f} chromium_dump_s={timing[1]:.2f}")
        load += every_panel(run_dir)
    print(f"hosts={n} controller_cpu_s={cpu:.2f} wall_s={wall:.2f} rss_mb={peak_rss_mb():.0f} "
          f"mode=sim step=run cpu_ms_per_host={1000 * cpu / n:.1f} "
          f"threads_peak={max(_threads_peak)} fds_peak={max(_fds_peak)} {totals} "
          f"unanswered={len(unanswered)}{load}",
          flush=True)
    for key in unanswered[:5]:
        print(f"  no recording: {key}", file=sys.stderr)


_threads_peak = [0]
_fds_peak = [0]  # this process's open file descriptors (an SSH connection each per host)


def every_panel(run_dir: Path) -> str:
    """The same report with every host's resource panels (as before the report drew only
    the extremes of a many-host step), written and opened side by side with the other."""
    from stackprobe.report import html_timeline

    drawn = html_timeline.MAX_HOST_PANELS
    html_timeline.MAX_HOST_PANELS = 10**9
    try:
        t0 = time.monotonic()
        html = to_html(load_results(run_dir), run_dir)
        took = time.monotonic() - t0
    finally:
        html_timeline.MAX_HOST_PANELS = drawn
    page = run_dir / "report-every-panel.html"
    page.write_text(html, encoding="utf-8")
    timing = chromium_load(page)
    load = "" if timing is None else \
        f" every_panel_chromium_load_ms={timing[0]:.0f} every_panel_chromium_dump_s={timing[1]:.2f}"
    return f" every_panel_report_s={took:.2f} every_panel_report_mb={len(html.encode()) / 1e6:.2f}{load}"


def child(args) -> None:
    """One host count in this process."""
    def watch():
        while True:
            _threads_peak[0] = max(_threads_peak[0], threading.active_count())
            try:
                _fds_peak[0] = max(_fds_peak[0], len(os.listdir("/proc/self/fd")))
            except OSError:
                pass
            time.sleep(0.05)

    threading.Thread(target=watch, daemon=True).start()
    mode, n = args.one.split(":")
    work = Path(args.work)
    (one_real if mode == "real" else one_sim)(int(n), work, args)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", default="8,16,32,64", help="real lab host counts ('' for none)")
    ap.add_argument("--sim", default="100,300,1000", help="replayed host counts ('' for none)")
    ap.add_argument("--pairs", type=int, default=64)
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--rate-iops", type=int, default=2000)
    ap.add_argument("--recording", help="replay this recording (else the largest real run's)")
    ap.add_argument("--keep-recording", help="save the largest real run's recording here")
    ap.add_argument("--no-chromium", dest="chromium", action="store_false",
                    help="skip timing the largest simulated report in Chromium")
    ap.add_argument("--short", action="store_true",
                    help="a few seconds: does the script still work (make test)")
    ap.add_argument("--time-scale", type=float, default=1.0,
                    help="replay the recorded delays this much faster or slower (0.1: ten "
                         "times faster); the controller's CPU per host is what a simulated "
                         "run measures, its wall time is the recording's")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # MODE:N, in a child process
    ap.add_argument("--work", help=argparse.SUPPRESS)
    ap.add_argument("--save-recording", help=argparse.SUPPRESS)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # finally: the lab comes down
    if args.one:
        child(args)
        return
    if args.short:
        args.hosts, args.sim, args.runtime, args.pairs, args.chromium = "2", "20", 1, 1, False
        args.time_scale = 0.2  # the replayed delays five times faster: 6 s of waiting, not 30
    real = [int(x) for x in args.hosts.split(",") if x]
    sim = [int(x) for x in args.sim.split(",") if x]
    with tempfile.TemporaryDirectory(prefix="stackprobe-fleet-scale-") as tmp:
        recording = args.recording
        for n in real:
            saved = Path(tmp) / f"recording-{n}.jsonl"
            _child(args, f"real:{n}", Path(tmp) / f"real-{n}", saved)
            recording = str(saved)
        if args.keep_recording and recording:
            Path(args.keep_recording).write_bytes(Path(recording).read_bytes())
        if sim and recording is None:
            raise SystemExit("--sim needs a real run first or --recording FILE")
        for n in sim:
            _child(args, f"sim:{n}", Path(tmp) / f"sim-{n}", None, recording,
                   chromium=args.chromium and n == max(sim))


def _child(args, one: str, work: Path, save: Path | None, recording: str | None = None,
           chromium: bool = False) -> None:
    work.mkdir()
    argv = [sys.executable, __file__, "--one", one, "--work", str(work),
            "--pairs", str(args.pairs), "--runtime", str(args.runtime),
            "--rate-iops", str(args.rate_iops), "--time-scale", str(args.time_scale)]
    argv += ["--save-recording", str(save)] if save else []
    argv += ["--recording", recording] if recording else []
    argv += [] if chromium else ["--no-chromium"]
    proc = subprocess.run(argv, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    if proc.returncode != 0:
        raise SystemExit(f"{one}: exit status {proc.returncode}")


if __name__ == "__main__":
    main()
