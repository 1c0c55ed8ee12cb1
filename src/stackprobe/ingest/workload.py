"""An ingested file's step: the kind a live step of its tool has, and the parameters the
file itself states, written as a suite would write them.

Why: `compare` pairs steps by workload (the kind and its parameters), so a file ingested
as a run must carry the parameters a live step of the same load carries — fio's job
options, rados bench's op size and concurrency, rbd bench's io type, size, threads and
pattern — or it pairs with nothing. Only what the file says is taken; what it does not say
is left to the caller to name (into_run.py) rather than silently guessed here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stackprobe.ingest.files import Ingested
from stackprobe.parsers.fio.fio_json import json_documents
from stackprobe.schema.peer_records import (
    ElbenchoLiveRecord,
    ElbenchoPhaseRecord,
    SysbenchRecord,
    VdbenchRecord,
)
from stackprobe.schema.records import (
    CpuRecord,
    IoRecord,
    MemBwRecord,
    NetRecord,
    OsdBenchRecord,
    PerftestRecord,
)
from stackprobe.units import fmt_bytes, parse_size

# fio's parameters that are fields of the fio kind (kinds/fio/params.py: FioParams)
FIO_FIELDS = ("rw", "bs", "iodepth", "numjobs", "rwmixread", "size", "runtime", "ramp_time",
              "ioengine", "direct", "time_based")
# fio's other spellings of those fields: never also an option
FIO_ALIASES = {"readwrite": "rw", "blocksize": "bs"}
# where a job ran, not what it did: a path differs from machine to machine
FIO_PLACE = frozenset({"directory", "filename", "filename_format", "name", "opendir",
                       "description"})
# which hosts a pair kind measures: a file of one pair's run has no such choice
PAIRS = frozenset({"pairs"})


@dataclass(frozen=True)
class Derived:
    """What a suite step of the file's load would say."""

    kind: str
    fields: dict[str, Any]  # the step's fields the file states (`kind` not included)
    quiet: frozenset[str] = frozenset()  # parameters that mean nothing for this file's load
    drop: frozenset[str] = frozenset()  # parameters the file cannot state: left out of params
    notes: list[str] = field(default_factory=list)


def derive(found: Ingested) -> Derived:
    """The step a live run of the file's load would have: by its format, else by the
    records it gave (a CPU stressor's, a memory bandwidth, an iperf3 pair's, another
    benchmark's: elbencho, vdbench, sysbench cpu and fileio); ValueError for records no
    kind holds."""
    make = _BY_FORMAT.get(found.format)
    if make is None:
        make = next((m for t, m in _BY_RECORD if any(isinstance(r, t) for r in found.records)),
                    None)
    if make is None:
        raise ValueError(f"{found.format}: no step kind measures this format (its records "
                         "are printed without --new and --into)")
    return make(found)


def _io(found: Ingested) -> list[IoRecord]:
    return [r for r in found.records if isinstance(r, IoRecord)]


def _first(found: Ingested, record_type: type) -> Any:
    """The file's first record of the type its kind reads; ValueError when it has none."""
    for rec in found.records:
        if isinstance(rec, record_type):
            return rec
    raise ValueError(f"{found.format}: no {record_type.__name__} in the file's records")


def _size(n: Any) -> Any:
    """A byte count as people read it ('4.00 MiB') when that text is exact, else the
    count (or the text the tool wrote): titles show it, and compare reads both the same."""
    if not isinstance(n, int) or isinstance(n, bool):
        return n
    text = fmt_bytes(n)
    return text if parse_size(text) == n else n


def _stated(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _fio(found: Ingested) -> Derived:
    records = _io(found)
    workloads = {json.dumps({k: v for k, v in r.workload.items() if k not in FIO_PLACE},
                            sort_keys=True, default=str) for r in records}
    if len(workloads) > 1:
        name = found.path.name
        return Derived("fio", {"job_file": name}, notes=[
            f"{len(workloads)} different fio workloads in one output: the step stands for "
            f"them all, as a job file's step does (compared with a step of job file {name})"])
    workload = records[0].workload if records else {}
    fields = {k: _size(workload[k]) if k in ("bs", "size") else workload[k]
              for k in FIO_FIELDS if k in workload}
    options = _fio_options(found.text)
    if options:
        fields["options"] = options
    if not fields:
        return Derived("fio", fields, notes=[
            f"the {found.format} output names none of the job's options: the step has no "
            "parameters, and compare pairs it only with a step of fio's defaults"])
    return Derived("fio", fields)


def _fio_options(text: str) -> dict[str, Any]:
    """fio's JSON options beside the kind's fields (its global options under the first
    job's), as fio wrote them; none from a text or terse output, which do not list them."""
    docs = [d for d in json_documents(text) if isinstance(d.get("jobs"), list) and d["jobs"]]
    if not docs:
        return {}
    doc = docs[-1]  # --status-interval prints running totals first: the last is the result
    job = doc["jobs"][0] if isinstance(doc["jobs"][0], dict) else {}
    given = {**(doc.get("global options") or {}), **(job.get("job options") or {})}
    return {k: v for k, v in given.items()
            if isinstance(v, (str, int, float, bool)) and k not in FIO_PLACE
            and k not in FIO_FIELDS and k not in FIO_ALIASES}


def _rados_bench(found: Ingested) -> Derived:
    rec = _first(found, IoRecord)
    w = rec.workload
    stats = rec.write if w.get("mode") == "write" else rec.read
    seconds = w.get("seconds")
    if seconds is None and stats.runtime_ms:
        seconds = max(1, round(stats.runtime_ms / 1000))
    fields = _stated({"block_size": _size(w.get("bs")), "threads": w.get("threads"),
                      "seconds": seconds})
    notes = []
    if w.get("object_size") not in (None, w.get("bs")):
        notes.append(f"objects of {w['object_size']} B written {w['bs']} B at a time (-O): "
                     "a rados_bench step writes whole objects")
    if w.get("mode") == "write":
        fields["modes"] = ["write"]
        return Derived("rados_bench", fields, notes=notes)
    # a read's output does not say seq or rand
    return Derived("rados_bench", fields, drop=frozenset({"modes"}), notes=notes)


def _rbd_bench(found: Ingested) -> Derived:
    rec = _first(found, IoRecord)
    w = rec.workload
    fields = _stated({"io_type": w.get("io_type"), "io_pattern": w.get("io_pattern"),
                      "io_size": _size(w.get("io_size")), "io_threads": w.get("io_threads"),
                      "io_total": _size(w.get("io_total")), "rw_mix_read": w.get("rw_mix_read")})
    quiet = frozenset() if w.get("io_type") == "readwrite" else frozenset({"rw_mix_read"})
    return Derived("rbd_bench", fields, quiet=quiet)


def _osd_bench(found: Ingested) -> Derived:
    first = _first(found, OsdBenchRecord)
    shapes = {(r.bytes_written, r.block_bytes) for r in found.records
              if isinstance(r, OsdBenchRecord)}
    notes = [] if len(shapes) == 1 else [
        f"{len(shapes)} different bench sizes in one file: the step is keyed by the first "
        f"({first.bytes_written} B in {first.block_bytes} B writes)"]
    return Derived("osd_bench", {"bytes": _size(first.bytes_written),
                                 "block_size": _size(first.block_bytes)}, notes=notes)


def _iperf3(found: Ingested) -> Derived:
    rec = _first(found, NetRecord)
    seconds = round(rec.duration_s) if rec.duration_s else None
    fields = _stated({"seconds": seconds, "streams": rec.streams, "reverse": rec.reverse})
    return Derived("network", fields, quiet=PAIRS)


def _cpu(found: Ingested) -> Derived:
    """A stress-ng (or sysbench cpu) run: its stressor, workers and time."""
    rec = _first(found, CpuRecord)
    fields = _stated({"stressor": rec.stressor, "workers": rec.workers,
                      "seconds": max(1, round(rec.seconds)) if rec.seconds else None})
    return Derived("cpu", fields)


def _memory(found: Ingested) -> Derived:
    """A memory bandwidth run: the tool, the operations it measured, its threads and
    sizes as far as the output states them."""
    recs = [r for r in found.records if isinstance(r, MemBwRecord)]
    first = _first(found, MemBwRecord)
    operations = [r.operation for r in recs if r.operation in ("read", "write")]
    # total_bytes is what moved, not the size asked for (a run may stop on its time)
    fields = _stated({"tool": first.tool, "threads": first.threads,
                      "block_size": _size(first.block_bytes)})
    if operations:
        fields["operations"] = list(dict.fromkeys(operations))
    return Derived("memory", fields)


def _io500_tool(tool: str) -> Callable[[Ingested], Derived]:
    return lambda found: Derived("io500", {"tool": tool})


def _perftest(found: Ingested) -> Derived:
    names = []
    for rec in found.records:
        if isinstance(rec, PerftestRecord) and rec.benchmark.startswith("ib_"):
            name = rec.benchmark[3:]
            if name not in names:
                names.append(name)
    return Derived("rdma", {"tests": names} if names else {}, quiet=PAIRS)


def _bare(kind: str, quiet: frozenset[str] = frozenset()) -> Callable[[Ingested], Derived]:
    """A format whose files do not state the kind's parameters (`quiet`: those that mean
    nothing for one file's load, e.g. which pairs of a pair kind)."""
    return lambda found: Derived(kind, {}, quiet=quiet)


_BY_FORMAT: dict[str, Callable[[Ingested], Derived]] = {
    "fio json": _fio,
    "fio terse": _fio,
    "fio normal": _fio,
    "rados bench": _rados_bench,
    "rbd bench": _rbd_bench,
    "ceph osd bench": _osd_bench,
    "iperf3 json": _iperf3,
    "io500 result": _io500_tool("io500"),
    "ior output": _io500_tool("ior"),
    "ior json": _io500_tool("ior"),
    "mdtest output": _io500_tool("mdtest"),
    "stream output": _bare("stream"),
    "hpl output": _bare("hpl"),
    "hpcc output": _bare("hpl"),
    "osu output": _bare("mpi_pairs", PAIRS),
    "perftest output": _perftest,
}


def _peer(found: Ingested) -> Derived:
    """Another benchmark's file (kinds/peer): the tool and the load it states — elbencho's
    parameters (its CSV's columns or its result file's command line), vdbench's run
    definitions, sysbench's test, threads and settings block."""
    load: dict[str, Any] = {}
    tool = "elbencho"
    rds = [r.rd for r in found.records if isinstance(r, VdbenchRecord)]
    if rds:
        tool, load["rd"] = "vdbench", ", ".join(rds)
    for rec in found.records:
        if isinstance(rec, ElbenchoPhaseRecord):  # a --livecsv states no parameters
            load.update(rec.params)
        elif isinstance(rec, SysbenchRecord):
            tool = "sysbench"
            load.update({"test": rec.test, **({"threads": rec.threads} if rec.threads else {}),
                         **rec.settings})
    return Derived("peer_result", {"tool": tool, "workload": load})


# formats named elsewhere (sysbench, stress-ng, iperf3's text): the kind of their records;
# a stress-ng --stream run is a memory run (its bogo ops are a by-product)
_BY_RECORD: tuple[tuple[type, Callable[[Ingested], Derived]], ...] = (
    (NetRecord, _iperf3), (MemBwRecord, _memory), (CpuRecord, _cpu),
    (ElbenchoPhaseRecord, _peer), (ElbenchoLiveRecord, _peer), (VdbenchRecord, _peer),
    (SysbenchRecord, _peer))
