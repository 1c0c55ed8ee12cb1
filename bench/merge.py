#!/usr/bin/env python3
"""How long merging 1,000 fio jobs' and 200 fio clients' latency histograms takes, and its memory.

Percentiles are never averaged: a step with many jobs, or a fleet of fio clients, gets its
percentiles by summing the json+ completion-latency histograms bin by bin and applying fio's
own rule to the sum (analysis/histogram.py). This measures that path at scale.

Inputs are real fio outputs (tests/fixtures/recorded/fio-merge/, RECORDED.md "fio-merge"):
a json+ run of 4 jobs reported one by one (group_reporting=0), and a `fio --client` json+
run of 4 clients against fio servers on 127.0.0.1. They are scaled up by resampling, never
by making figures up: synthetic job (or client) i is a copy of recorded job i mod R (R
recorded jobs), named apart, whose every histogram (clat and lat, each direction) is drawn
again from the recorded one — as many I/Os as the recorded histogram holds (times
--ios-scale), each falling in a bin with the recorded bin's share, a multinomial draw from a
numpy generator seeded with --seed. A drawn histogram has only bins the recorded one has.
Its percentile list is left out (it would be the source's, not the drawn histogram's); its
other figures (rates, means, min/max) are the source's, with I/O counts, bytes and runtime
times --ios-scale. fio's own "All clients" entry is a sum over the recorded clients and is
left out: the fleet step keeps it only to compare.

What is timed, each the median of --repeat runs:
- parse_s: parse_fio_json on the synthetic fio output (the text fio would print; its making
  is not timed);
- merge_s, jobs: summarise_step on the parsed records — what the executor does with a fio
  step's records: the jobs' group found, rates summed, means weighted, the histograms summed
  and fio's percentiles taken, for clat and lat of every direction;
- merge_s, clients: what the fio fleet step does after parsing (kinds/fio/fio_fleet.py): each
  record named by its host, the missing clients checked, merge_clients (the fleet record),
  then summarise_step over the clients and the fleet record.
Memory, in a separate pass under tracemalloc (which slows Python down, so never while
timing): records_mb is what the parsed records hold, merge_peak_mb the most the merge
allocated above that; rss_mb is this process's peak resident size so far (the synthetic text
and documents included).

Every merged percentile is checked against a computation of its own (numpy cumulative sums
of the synthetic histograms, fio's threshold in exact integers): `exact=yes`, or the bench
fails. The goal is merge_s < 1 s for 1,000 jobs and for 200 clients.

Last lines: `jobs=N merge_s=… parse_s=… records_mb=… merge_peak_mb=… rss_mb=… bins=…
exact=yes`, then the same for `clients=N`; bins is the number of (job, histogram, bin)
entries merged.

`--short` (what `make test` runs, so the script cannot rot): 50 jobs, 10 clients, one run;
`--dump DIR` writes the synthetic fio outputs and the merged percentiles there.

Usage: python bench/merge.py [--jobs 1000] [--clients 200] [--repeat 5] [--seed 21]
                             [--ios-scale 1] [--profile] [--dump DIR] [--short]
"""

from __future__ import annotations

import argparse
import copy
import cProfile
import json
import pstats
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from stackprobe.analysis.histogram import FIO_DEFAULT_PERCENTILES  # noqa: E402
from stackprobe.analysis.step_summary import summarise_step  # noqa: E402
from stackprobe.kinds.fio.fio_fleet import host_of_job, merge_clients, missing_clients  # noqa: E402
from stackprobe.parsers.fio.fio_json import parse_fio_json, result_document  # noqa: E402
from stackprobe.schema.records import IoRecord, percentile_key  # noqa: E402
from stackprobe.schema.results import IoGroupSummary  # noqa: E402
from stackprobe.schema.sentinels import FIO_ALL_CLIENTS, FLEET_HOST  # noqa: E402

RECORDED = ROOT / "tests" / "fixtures" / "recorded" / "fio-merge"
JOBS_INPUT = RECORDED / "fio-3.33_jsonplus_4jobs_randrw_qd1-qd8.json"
CLIENTS_INPUT = RECORDED / "fio-3.33_client_jsonplus_4clients_randrw.txt"
DIRECTIONS = ("read", "write", "trim")
HISTOGRAMS = ("clat_ns", "lat_ns")
SCALED = ("io_bytes", "io_kbytes", "total_ios", "runtime")  # with --ios-scale
FULL = {"jobs": 1000, "clients": 200, "repeat": 5}
SHORT = {"jobs": 50, "clients": 10, "repeat": 1}


# ---------------------------------------------------------------- resampling


def recorded_entries(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The fio result document in `path` and its jobs (or clients) that have histograms;
    fio's "All clients" sum left out."""
    doc, _ = result_document(path.read_text(encoding="utf-8"))
    entries = doc.get("client_stats") or doc.get("jobs") or []
    own = [e for e in entries if e.get("jobname") != "All clients" and any(
        "bins" in ((e.get(d) or {}).get(h) or {}) for d in DIRECTIONS for h in HISTOGRAMS)]
    if not own:
        raise SystemExit(f"{path}: no job with a json+ histogram")
    return doc, own


def draw(bins: dict[str, int], ios: int, rng: np.random.Generator) -> dict[str, int]:
    """`ios` I/Os spread over the recorded bins with the recorded shares (multinomial)."""
    keys = list(bins)
    counts = np.array([int(bins[k]) for k in keys], dtype=np.float64)
    drawn = rng.multinomial(ios, counts / counts.sum())
    return {k: int(c) for k, c in zip(keys, drawn) if c}


def resampled(source: dict[str, Any], name: str, rng: np.random.Generator,
              scale: int) -> dict[str, Any]:
    """A copy of a recorded job named `name`, each histogram drawn again (module docstring)."""
    entry = copy.deepcopy(source)
    entry["jobname"] = name
    for d in DIRECTIONS:
        stats = entry.get(d)
        if not stats:
            continue
        for h in HISTOGRAMS:
            lat = stats.get(h) or {}
            if "bins" not in lat:
                continue
            ios = sum(int(c) for c in lat["bins"].values()) * scale
            lat["bins"] = draw(lat["bins"], ios, rng)
            lat["N"] = ios
            lat.pop("percentile", None)
        if scale != 1:
            for key in SCALED:
                if key in stats:
                    stats[key] = int(stats[key]) * scale
    return entry


def synthetic_jobs(doc: dict[str, Any], sources: list[dict[str, Any]], n: int,
                   rng: np.random.Generator, scale: int) -> dict[str, Any]:
    """A fio json+ document of `n` jobs in one group, reported one by one."""
    jobs = []
    for i in range(n):
        src = sources[i % len(sources)]
        job = resampled(src, f"{src['jobname']}.{i}", rng, scale)
        job["groupid"] = 0
        jobs.append(job)
    return {"fio version": doc.get("fio version"), "global options": doc.get("global options", {}),
            "jobs": jobs}


def synthetic_clients(doc: dict[str, Any], sources: list[dict[str, Any]], n: int,
                      rng: np.random.Generator, scale: int) -> dict[str, Any]:
    """A fio --client json+ document of `n` clients, job `merge@c<i>` on host c<i>."""
    clients = []
    for i in range(n):
        entry = resampled(sources[i % len(sources)], f"merge@c{i}", rng, scale)
        entry["hostname"] = f"c{i}"
        clients.append(entry)
    return {"fio version": doc.get("fio version"), "global options": doc.get("global options", {}),
            "client_stats": clients}


# ---------------------------------------------------------------- the path under test


def merge_jobs(records: list[IoRecord]) -> IoGroupSummary:
    """What the executor does with a fio step's records: its summary (one group here)."""
    summary = summarise_step("iops", records)
    assert summary is not None and len(summary.io) == 1
    return summary.io[0]


def merge_fleet(records: list[IoRecord], names: list[str]) -> IoGroupSummary:
    """What the fio fleet step does after parsing, then the executor's summary; the fleet's
    group."""
    clients = [r for r in records if r.host != FIO_ALL_CLIENTS]
    for rec in clients:
        rec.host = host_of_job(rec.job, names) or rec.host
    problem = missing_clients(names, clients)
    if problem:
        raise SystemExit(problem)
    fleet = merge_clients(clients, f"merge ({len(clients)} clients)")
    summary = summarise_step("iops", [*clients, fleet])
    assert summary is not None
    (group,) = [g for g in summary.io if g.host == FLEET_HOST]
    return group


# ---------------------------------------------------------------- the check


def fio_percentiles(bins: dict[int, int]) -> dict[str, float]:
    """fio's rule on a histogram, computed apart from analysis/histogram.py: the first bin
    whose cumulative count reaches p/100 * N, with p the double fio uses, in exact integers."""
    values = np.array(sorted(bins), dtype=np.int64)
    cumulative = np.cumsum(np.array([bins[int(v)] for v in values], dtype=np.int64))
    total = int(cumulative[-1])
    out = {}
    for p in FIO_DEFAULT_PERCENTILES:
        num, den = Fraction(p).as_integer_ratio()
        need = -(-num * total // (100 * den))  # ceil: counts are whole
        i = min(int(np.searchsorted(cumulative, need, side="left")), len(values) - 1)
        out[percentile_key(p)] = float(values[i])
    return out


def summed(doc: dict[str, Any], d: str, h: str) -> dict[int, int] | None:
    """The document's histograms of direction d and kind h summed, or None if any lacks one."""
    entries = doc.get("client_stats") or doc["jobs"]
    total: dict[int, int] = {}
    for e in entries:
        bins = ((e.get(d) or {}).get(h) or {}).get("bins")
        if not bins:
            return None
        for k, c in bins.items():
            total[int(k)] = total.get(int(k), 0) + int(c)
    return total


def merged_figures(group: IoGroupSummary) -> dict[str, dict[str, dict[str, float]]]:
    """{direction: {"clat_ns"|"lat_ns": percentiles}} of a summary group."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for d in DIRECTIONS:
        s = getattr(group, d)
        if s is not None:
            out[d] = {h: getattr(s, h) for h in HISTOGRAMS}
    return out


def check(doc: dict[str, Any], group: IoGroupSummary) -> int:
    """Every merged percentile equals the direct computation; the bins merged."""
    merged = merged_figures(group)
    bins = 0
    for d in DIRECTIONS:
        for h in HISTOGRAMS:
            total = summed(doc, d, h)
            mine = merged.get(d, {}).get(h) or {}
            if total is None:
                if mine:
                    raise SystemExit(f"{d} {h}: percentiles without histograms")
                continue
            want = fio_percentiles(total)
            if mine != want:
                raise SystemExit(f"{d} {h}: merged {mine} != direct {want}")
            entries = doc.get("client_stats") or doc["jobs"]
            bins += sum(len(e[d][h]["bins"]) for e in entries)
    if not bins:
        raise SystemExit("no histogram was merged")
    return bins


# ---------------------------------------------------------------- measuring


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def memory(text: str, merge: Callable[[list[IoRecord]], Any]) -> tuple[float, float]:
    """(MB the parsed records hold, MB the merge allocated at most above them)."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        records = parse_fio_json(text)
        held = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        merge(records)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return held / 2**20, peak / 2**20


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure(label: str, n: int, doc: dict[str, Any], merge: Callable[[list[IoRecord]], Any],
            args: argparse.Namespace) -> tuple[str, dict]:
    text = json.dumps(doc, indent=2)  # fio pretty-prints its JSON
    parse_s, _ = timed(lambda: parse_fio_json(text), args.repeat)
    merge_times, group = [], None
    for _ in range(args.repeat):
        records = parse_fio_json(text)  # a fresh copy each time: the fleet renames hosts
        t0 = time.perf_counter()
        group = merge(records)
        merge_times.append(time.perf_counter() - t0)
    merge_s = statistics.median(merge_times)
    bins = check(doc, group)
    if args.profile:
        records = parse_fio_json(text)
        prof = cProfile.Profile()
        prof.runcall(merge, records)
        print(f"--- profile of the {label} merge")
        pstats.Stats(prof, stream=sys.stdout).sort_stats("cumulative").print_stats(15)
    records_mb, peak_mb = memory(text, merge)
    if args.dump:
        (args.dump / f"{label}.json").write_text(text, encoding="utf-8")
    line = (f"{label}={n} merge_s={merge_s:.3f} parse_s={parse_s:.3f} records_mb={records_mb:.1f} "
            f"merge_peak_mb={peak_mb:.1f} rss_mb={rss_mb():.0f} bins={bins} exact=yes")
    return line, merged_figures(group)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=FULL["jobs"])
    ap.add_argument("--clients", type=int, default=FULL["clients"])
    ap.add_argument("--repeat", type=int, default=FULL["repeat"])
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--ios-scale", type=int, default=1,
                    help="each synthetic job does this many times its source's I/Os")
    ap.add_argument("--jobs-input", type=Path, default=JOBS_INPUT)
    ap.add_argument("--clients-input", type=Path, default=CLIENTS_INPUT)
    ap.add_argument("--profile", action="store_true", help="cProfile of each merge")
    ap.add_argument("--dump", type=Path, help="write the synthetic outputs and merged percentiles")
    ap.add_argument("--short", action="store_true",
                    help="under a second: does the script still work (make test)")
    args = ap.parse_args()
    if args.short:
        args.jobs, args.clients, args.repeat = SHORT["jobs"], SHORT["clients"], SHORT["repeat"]
    if min(args.jobs, args.clients, args.repeat, args.ios_scale) < 1:
        ap.error("--jobs, --clients, --repeat and --ios-scale are at least 1")
    rng = np.random.default_rng(args.seed)
    jobs_doc, job_sources = recorded_entries(args.jobs_input)
    clients_doc, client_sources = recorded_entries(args.clients_input)
    jobs = synthetic_jobs(jobs_doc, job_sources, args.jobs, rng, args.ios_scale)
    clients = synthetic_clients(clients_doc, client_sources, args.clients, rng, args.ios_scale)
    names = [f"c{i}" for i in range(args.clients)]
    print(f"inputs: {len(job_sources)} recorded jobs ({args.jobs_input.name}), "
          f"{len(client_sources)} recorded clients ({args.clients_input.name}); seed {args.seed}, "
          f"I/Os x{args.ios_scale}; median of {args.repeat}", flush=True)
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    jobs_line, jobs_merged = measure("jobs", args.jobs, jobs, merge_jobs, args)
    clients_line, clients_merged = measure(
        "clients", args.clients, clients, lambda recs: merge_fleet(recs, names), args)
    if args.dump:
        (args.dump / "merged.json").write_text(
            json.dumps({"jobs": jobs_merged, "clients": clients_merged}, indent=1),
            encoding="utf-8")
    print(jobs_line)
    print(clients_line, flush=True)


if __name__ == "__main__":
    main()
