#!/usr/bin/env python3
"""What does a day-long soak cost the controller? Disk, memory and report time, from a real run.

One `stackprobe run` of a fio soak (real fio on a file in a `mktemp -d` directory, 4k
random read/write at a capped rate, the default per-second monitoring on) for 10 minutes
in 2-minute chunks, then three figures extrapolated to a day on one host:

- `soak_disk_mb_per_host_day`: the run directory's bytes by kind of file, each scaled by
  what it grows with: the chunks' compressed raw output (`chunks/`) per second measured,
  the monitor's files per second monitored, and results.json as a day's soak stores it
  (the synthetic day below: its kept series and periods are bounded, its chunk list is a
  line per chunk); the rest (suite, job file, the first chunk's command) as measured.
  Chunks of 2 minutes carry more per-chunk overhead than the default 10 minutes, so the
  figure errs high. Goal: < 200 MB.
- `rss_growth_mb`: the `stackprobe run` process's resident memory, sampled every 0.2 s,
  fitted by least squares from the first chunk end after the monitor's third segment
  (below) to the end of the last chunk, times a day (flat memory: ~0). The soak keeps its
  first and last `--keep` seconds (default 60) second by second, and so does its monitor
  (the soak's `keep`): a soak's default ten minutes would keep growing through a 10-minute
  run by design. The first monitor segments (a segment is a period, at most ten minutes)
  fill the monitor fold's kept ends and raise the high-water mark of the process's heap:
  measured with 15 s chunks and 60 s periods over 25 minutes, its memory rose by 3.5 and
  2.3 MB at the first two segment ends and by 0.26 MB in the 21 minutes after; with
  ten-minute segments over 75 minutes, by 18.1, 10.3 and 8.5 MB at the first three and
  1.6 MB in the 40 minutes after. So the fit starts after the third segment's read; one
  that starts earlier extrapolates those one-time steps to a day (printed too, on the
  `rss:` line). The monitor's stop after the step is printed apart (`monitor_end_mb`,
  measured, not scaled): the step's monitor is read a segment at a time (a soak period,
  at most ten minutes), so its stop reads the last segment only and does not grow with
  the step's length.
  The monitor's fold is measured apart over a day (tracemalloc, the run's own seconds
  fed again and again): it grows for its first twenty minutes, which it keeps whole, then
  by a bucket a minute, so a linear fit over a 10-minute run overstates a day.
- `report_s_24h`: the wall time of `stackprobe report --format html` (the slowest
  format: it also draws the monitor's per-second samples) and of `--format md` on a
  synthetic day made from this run: its soak record folded again from the run's own
  per-second logs repeated over 86,400 s, 144 chunks, and the monitor file's samples
  repeated over the day.

`--short` (what `make test` runs, so the script cannot rot): a 12 s soak in 6 s chunks,
an hour for the synthetic day and the fold; the same lines, no figure worth quoting.

Usage: python bench/soak_cost.py [--minutes M] [--chunk S] [--period S] [--keep S] [--rate IOPS]
                                  [--keep-run DIR] [--short]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from stackprobe.analysis.soak_series import PeriodJudge, SeriesKeeper  # noqa: E402
from stackprobe.kinds import registry  # noqa: E402
from stackprobe.kinds.storage_soak import SoakSpec  # noqa: E402
from stackprobe.monitor.segments import HostFold  # noqa: E402
from stackprobe.monitor.summary import write_samples_json  # noqa: E402
from stackprobe.parsers.fio.fio_log import series_from_logs  # noqa: E402
from stackprobe.parsers.host.sadf_json import parse_sadf_json  # noqa: E402
from stackprobe.schema.records import SeriesPoint  # noqa: E402
from stackprobe.schema.storage_soak_records import SoakChunk  # noqa: E402
from stackprobe.suite.loader import parse_suite  # noqa: E402

DAY = 86_400.0
SETTLE_SEGMENTS = 3  # monitor segments read before the memory fit starts (see rss_growth_mb)
DEFAULT_KEEP_S = SoakSpec.model_fields["keep"].default.seconds  # a soak's, and the monitor's
FOLD_MARKS = (600, 1800, 3600, 6 * 3600, 86_400)  # seconds fed to the fold when its memory is read
SUITE = """name: soak-cost
steps:
  - kind: fio
    name: soak
    rw: randrw
    bs: 4k
    size: 256M
    iodepth: 4
    ioengine: libaio
    direct: 1
    options: {{rate_iops: {rate}}}
    soak: {{duration: {duration}s, chunk: {chunk}s, period: {period}s, keep: {keep}s}}
"""
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class Watch:
    """The run's RSS every 0.2 s and when each chunk's output appeared."""

    def __init__(self, pid: int, runs: Path):
        self.pid, self.runs = pid, runs
        self.samples: list[tuple[float, float]] = []
        self.chunk_ends: dict[str, float] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.done.is_set():
            now = time.monotonic()
            rss = rss_mb(self.pid)
            if rss is not None:
                self.samples.append((now, rss))
            for f in self.runs.glob("*/steps/*/chunks/chunk-*.json.gz"):
                self.chunk_ends.setdefault(f.name, now)
            self.done.wait(0.2)

    def stop(self) -> None:
        self.done.set()
        self.thread.join()


def slope_per_s(points: list[tuple[float, float]]) -> float:
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    den = sum((t - mx) ** 2 for t, _ in points)
    return sum((t - mx) * (v - my) for t, v in points) / den if den else 0.0


def sizes(run_dir: Path) -> dict[str, int]:
    """Bytes by kind of file: what grows with the seconds (chunks, the monitor's raw sadf
    output) apart from the bounded (the monitor's kept samples, results.json)."""
    out = {"chunks": 0, "monitor": 0, "samples": 0, "results": 0, "other": 0}
    for f in run_dir.rglob("*"):
        if not f.is_file():
            continue
        size = f.stat().st_size
        if "chunks" in f.parts:
            out["chunks"] += size
        elif f.name.startswith("monitor-") and ".sadf." in f.name:
            out["monitor"] += size
        elif f.name.startswith("monitor-"):
            out["samples"] += size
        elif f.name == "results.json":
            out["results"] += size
        else:
            out["other"] += size
    return out


def chunk_seconds(step_dir: Path) -> list[list[SeriesPoint]]:
    """Each chunk's per-second points, read back from its compressed fio logs."""
    out = []
    for raw in sorted((step_dir / "chunks").glob("chunk-*.json.gz")):
        stem = raw.name.split(".", 1)[0]
        logs = {k: [gzip.decompress(f.read_bytes()).decode()
                    for f in sorted((step_dir / "chunks").glob(f"{stem}.{k}.*.log.gz"))]
                for k in ("iops", "bw")}
        out.append(series_from_logs(logs["iops"], logs["bw"]))
    return out


def synthetic_day(run_dir: Path, day_dir: Path, chunk_s: float, span_s: float = DAY) -> None:
    """The real run made `span_s` long (a day; --short: an hour): the soak record folded
    from the run's own seconds repeated over the span, its chunk list a line per 10
    minutes (144 a day), the monitor file's samples repeated."""
    shutil.copytree(run_dir, day_dir)
    results = json.loads((day_dir / "results.json").read_text())
    step = results["steps"][0]
    step_dir = day_dir / "steps" / step["id"]
    measured = [p for chunk in chunk_seconds(step_dir) for p in chunk]
    if not measured:
        raise SystemExit("the soak's chunks have no per-second logs")
    soak = next(r for r in step["records"] if r["type"] == "storage_soak")
    # a day keeps what a day's soak keeps by default (ten minutes at each end), whatever
    # the run kept to reach its bounded state within minutes
    keeper = SeriesKeeper(keep_s=DEFAULT_KEEP_S)
    judge = PeriodJudge(soak["metric"], soak["period_s"])
    t, i = 0.0, 0
    while t < span_s:
        p = measured[i % len(measured)]
        t += 1.0
        point = SeriesPoint(t_s=t, iops=p.iops, bw_bytes=p.bw_bytes)
        keeper.add(point)
        judge.add(point)
        i += 1
    judge.close()
    template = soak["chunks"][0]
    per_day = int(span_s // 600)
    soak.update(seconds=int(span_s), chunks_planned=per_day, chunks_run=per_day, keep_s=DEFAULT_KEEP_S,
                points=[s.model_dump(mode="json", exclude_none=True) for s in keeper.samples()],
                periods=[p.model_dump(mode="json", exclude_none=True) for p in judge.periods],
                chunks=[SoakChunk(**{**template, "index": k, "start_s": k * 600.0,
                                     "seconds": 600.0}).model_dump(mode="json", exclude_none=True)
                        for k in range(per_day)])
    step["duration_s"] = span_s
    (day_dir / "results.json").write_text(json.dumps(results, indent=1))
    for host, info in step.get("monitor", {}).items():
        day_samples(host, step_dir / info["raw"], step_dir / info["file"], span_s)


def day_samples(host: str, raw: Path, out: Path, span_s: float = DAY) -> None:
    """The monitor's samples file of a day on `host`: the run's own seconds (its raw sadf
    output, each segment's document) repeated over `span_s` through the fold a segmented
    monitor uses, so the file is what a day's step keeps."""
    docs = sadf_documents(raw)
    if docs is None:
        return
    fold = HostFold(host, out.parent / "unused.sadf.json.gz")  # take() writes no raw
    for _, doc in repeated(docs, span_s):
        fold.take(doc)
    out.write_text(write_samples_json(fold.series()))


def fold_memory(raw: Path, marks_s=FOLD_MARKS) -> dict[int, float]:
    """MB the monitor's fold of one host holds (tracemalloc, after each mark) as the run's
    own seconds are fed to it for a day: it grows while it keeps the first and last ten
    minutes whole, then only by a bucket a minute, halved when their count passes 1,440."""
    import tracemalloc

    docs = sadf_documents(raw)  # parsed before tracemalloc starts: only the fold is counted
    if docs is None:
        return {}
    out: dict[int, float] = {}
    tracemalloc.start()
    try:
        fold = HostFold("h", raw.parent / "unused.sadf.json.gz")
        base = tracemalloc.get_traced_memory()[0]
        pending = list(marks_s)
        for fed_s, doc in repeated(docs, marks_s[-1]):
            fold.take(doc)
            while pending and fed_s >= pending[0]:
                out[pending.pop(0)] = (tracemalloc.get_traced_memory()[0] - base) / 1e6
    finally:
        tracemalloc.stop()
    return out


def sadf_documents(raw: Path) -> list | None:
    """The monitor's raw sadf documents of a step, parsed; None when they hold fewer than
    two samples (nothing to repeat)."""
    text = gzip.decompress(raw.read_bytes()).decode() if raw.suffix == ".gz" else raw.read_text()
    docs = [parse_sadf_json(doc) for doc in json_documents(text)]
    return docs if sum(len(d.samples) for d in docs) >= 2 else None


def repeated(docs: list, until_s: float):
    """The run's own samples again and again, shifted in time, as one document per
    repetition, until `until_s` seconds are covered: yields (seconds fed so far, document)."""
    samples = [x for doc in docs for x in doc.samples]
    span = samples[-1].t - samples[0].t + 1.0
    k = 0
    while k * span < until_s:
        doc = docs[0].model_copy(update={"samples": [
            x.model_copy(update={"t": x.t + k * span}) for x in samples]})
        k += 1
        yield k * span, doc


def json_documents(text: str) -> list[str]:
    """The JSON documents of a text, one after the other (a segmented monitor's raw file)."""
    decoder, docs, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        while text[at].isspace():
            at += 1
        _, end = decoder.raw_decode(text, at)
        docs.append(text[at:end])
        at = end
    return docs


def timed_report(day_dir: Path, fmt: str) -> float:
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "stackprobe", "report", str(day_dir),
                           "--format", fmt, "--output", str(day_dir / f"report.{fmt}")],
                          capture_output=True, text=True, env=ENV)
    if proc.returncode != 0:
        raise SystemExit(f"report --format {fmt} failed: {(proc.stderr or proc.stdout)[-500:]}")
    return time.monotonic() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--chunk", type=float, default=120.0, help="seconds per chunk")
    ap.add_argument("--keep", type=float, default=60.0,
                    help="the soak's `keep`: whole seconds kept at each end (monitor too)")
    ap.add_argument("--period", type=float, default=None,
                    help="seconds per judged period (default: a chunk); 3600 judges by the hour")
    ap.add_argument("--rate", type=int, default=4000, help="fio's rate_iops")
    ap.add_argument("--keep-run", type=Path, default=None,
                    help="copy the run directory here (a new directory) before the scratch goes")
    ap.add_argument("--short", action="store_true", help="seconds: does the script still work")
    args = ap.parse_args()
    duration, chunk = (12.0, 6.0) if args.short else (args.minutes * 60, args.chunk)
    period = chunk if args.short or args.period is None else args.period
    keep = 3.0 if args.short else args.keep
    # --short checks that the script works: its synthetic day is an hour, its fold
    # memory stops at an hour (a day of tracemalloc costs about a minute)
    span, marks = (3600.0, (600, 1800, 3600)) if args.short else (DAY, FOLD_MARKS)
    tmp = Path(tempfile.mkdtemp(prefix="stackprobe-soak-cost-"))
    try:
        target, runs = tmp / "target", tmp / "runs"
        target.mkdir()
        suite = tmp / "soak.yaml"
        suite.write_text(SUITE.format(duration=int(duration), chunk=int(chunk), keep=int(keep),
                                      period=int(period), rate=args.rate))
        (soak_step,) = parse_suite(suite.read_text(), str(suite)).steps
        segment = registry.kind(soak_step.kind).monitor_segment_s(soak_step)  # as the run reads it
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "stackprobe", "run", str(suite),
                                 "--target", str(target), "--out", str(runs), "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
        watch = Watch(proc.pid, runs)
        out, err = proc.communicate()
        watch.stop()
        wall = time.monotonic() - t0
        run_dir = next(p for p in runs.iterdir() if p.is_dir())
        results = json.loads((run_dir / "results.json").read_text())
        step = results["steps"][0]
        if step["status"] != "ok":
            raise SystemExit(f"the soak step ended {step['status']}: {step.get('error')} "
                             f"({(err or out)[-300:]})")
        soak = next(r for r in step["records"] if r["type"] == "storage_soak")
        measured_s = soak["seconds"]
        ends = sorted(watch.chunk_ends.values())
        # from the chunk end after the monitor's third segment (a segment is a period of at
        # most ten minutes): the first ones fill its fold's kept ends and the heap's
        # high-water mark, one-time steps, each read at the first chunk end after it
        settle = min(math.ceil(SETTLE_SEGMENTS * segment / chunk), len(ends) - 1)
        settled = ends[settle] if ends else 0.0
        fit = [(t, v) for t, v in watch.samples if ends and settled <= t <= ends[-1]]
        whole = [(t, v) for t, v in watch.samples if ends and ends[0] <= t <= ends[-1]]
        growth_day = slope_per_s(fit) * DAY
        seen = [v for t, v in fit]
        last = seen[-1] if seen else 0.0
        end_peak = max((v for t, v in watch.samples if ends and t > ends[-1]), default=last)
        monitor_s = max(step["duration_s"], 1.0)
        size = sizes(run_dir)
        if args.keep_run is not None:
            shutil.copytree(run_dir, args.keep_run)
        day_dir = tmp / "day"
        synthetic_day(run_dir, day_dir, chunk, span)
        day_results = (day_dir / "results.json").stat().st_size
        day_kept = sum(f.stat().st_size for f in (day_dir / "steps").rglob("monitor-*.json"))
        disk_day = (size["chunks"] / measured_s * DAY + size["monitor"] / monitor_s * DAY
                    + day_kept + day_results + size["other"])
        step_dir = run_dir / "steps" / step["id"]
        held = {h: fold_memory(step_dir / info["raw"], marks) for h, info in step.get("monitor", {}).items()}
        html_s = timed_report(day_dir, "html")
        md_s = timed_report(day_dir, "md")
        print(f"soak: {soak['chunks_run']} chunks, {measured_s} s measured, wall {wall:.0f} s, "
              f"verdict {soak['verdict']}, {len(soak['points'])} points kept")
        print(f"disk measured: chunks {size['chunks'] / 1e6:.2f} MB, monitor raw "
              f"{size['monitor'] / 1e6:.2f} MB, monitor samples {size['samples'] / 1e6:.2f} MB, "
              f"results.json {size['results'] / 1e6:.3f} MB, other {size['other'] / 1e6:.3f} MB")
        print(f"disk per day: chunks {size['chunks'] / measured_s * DAY / 1e6:.1f} MB, monitor "
              f"raw {size['monitor'] / monitor_s * DAY / 1e6:.1f} MB, monitor samples "
              f"{day_kept / 1e6:.2f} MB (bounded), results.json {day_results / 1e6:.2f} MB")
        print(f"rss: {len(fit)} samples from chunk end {settle + 1} "
              f"of {len(ends)}, first {seen[0] if seen else 0:.1f} MB, last {last:.1f} MB "
              f"(from the first chunk's end: {whole[0][1] if whole else 0:.1f} MB, "
              f"{slope_per_s(whole) * DAY:.1f} MB a day fitted), after the step (monitor "
              f"stop) peak {end_peak:.1f} MB; monitor_end_mb={max(0.0, end_peak - last):.1f}")
        at_ends = [next((v for t, v in watch.samples if t >= e), last) for e in ends]
        print("rss at each chunk's end, MB: " + ", ".join(f"{v:.1f}" for v in at_ends))
        for host, marks in held.items():
            print(f"monitor fold of {host}, MB held after " + ", ".join(
                f"{m // 3600} h" if m >= 3600 else f"{m // 60} min" for m in marks) + ": "
                + ", ".join(f"{v:.1f}" for v in marks.values()))
        print(f"report on the synthetic day: html {html_s:.2f} s, md {md_s:.2f} s")
        print(f"soak_disk_mb_per_host_day={disk_day / 1e6:.1f} rss_growth_mb={growth_day:.1f} "
              f"report_s_24h={max(html_s, md_s):.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
