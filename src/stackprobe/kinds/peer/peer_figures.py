"""The figures of another benchmark's records in stackprobe's own terms: what its file
measured as I/O (IoRecord) and as operations per second (OpsRecord), so the step summary,
the report's rows, `compare` and `history` read an ingested elbencho, vdbench or sysbench
file as they read a live step.

Pure and exact to the file: each figure is one the tool printed, only converted to base
units, and nothing is made up where the file is silent:
- elbencho: each READ or WRITE phase with its IOPS is an I/O group (its "LAST DONE" column:
  the whole phase, every worker done; MiB/s × 2^20; the IO latency's min/avg/max when the
  file has them); each metadata phase with a rate (Dirs/s, Files/s, entries/s) is an
  operation; SYNC and DROPCACHES phases carry no rate and give nothing. A phase the file
  holds several times (a service-mode log: one table per host and the master's) is named
  with its table's place each time (`mkdirs_t6`: operation names are words, as figure keys
  spell them), never summed: which table is the aggregate, the file's reader knows.
- vdbench: each run definition's `avg_` line is an I/O group, its rate and MB/sec (vdbench's
  MB is 2^20) split between reads and writes by its read% — exact for 100% and 0%, a share
  in between — with its mean response time on both (vdbench prints one for the mix).
- sysbench fileio: reads/s and writes/s with their MiB/s (its latency covers fsyncs too,
  so none is put on reads or writes); sysbench cpu: its events per second as the operation
  `cpu`, with its latency.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from stackprobe.schema.peer_records import ElbenchoPhaseRecord, SysbenchRecord, VdbenchRecord
from stackprobe.schema.records import IoRecord, IoStats, OpsRecord

MIB = 1 << 20
_RATES = ("Files/s", "Dirs/s", "entries/s")  # elbencho's metadata rates, result table / CSV


def peer_figures(records: Sequence[object]) -> list[IoRecord | OpsRecord]:
    out: list[IoRecord | OpsRecord] = []
    phases = Counter(r.phase for r in records if isinstance(r, ElbenchoPhaseRecord))
    for rec in records:
        if isinstance(rec, ElbenchoPhaseRecord):
            out += _elbencho(rec, phases[rec.phase] > 1)
        elif isinstance(rec, VdbenchRecord):
            out += _vdbench(rec, len(out))
        elif isinstance(rec, SysbenchRecord):
            out += _sysbench(rec)
    return out


def _elbencho(rec: ElbenchoPhaseRecord, several: bool) -> list[IoRecord | OpsRecord]:
    """`several`: the file has this phase more than once (a service-mode log: a table per
    host and the master's): each is named with its table's place, none summed."""
    last = rec.last
    elapsed = last.get("Elapsed ms", last.get("time ms"))
    phase = rec.phase.lower() + (f"_t{rec.block}" if several else "")
    if rec.phase in ("READ", "WRITE") and last.get("IOPS") is not None:
        mib_s = last.get("Throughput MiB/s", last.get("MiB/s"))
        total = last.get("Total MiB", last.get("MiB"))
        lat = _latency(rec, "IO lat", "IO latency")
        stats = IoStats(iops=last["IOPS"], bw_bytes=(mib_s or 0.0) * MIB, runtime_ms=elapsed,
                        io_bytes=round(total * MIB) if total is not None else None, lat_ns=lat)
        io = IoRecord(tool="elbencho", tool_version=rec.tool_version,
                      source_format=rec.source_format, job=f"elbencho {phase}",
                      groupid=rec.block, workload=dict(rec.params))
        setattr(io, rec.phase.lower(), stats)
        return [io]
    rate = next((last[k] for k in _RATES if last.get(k) is not None), None)
    if rate is None:
        return []
    return [OpsRecord(tool="elbencho", tool_version=rec.tool_version, operation=phase,
                      ops_per_s=rate, runtime_ms=elapsed,
                      lat_ns=_latency(rec, "Ent lat", "Entries latency"))]


def _latency(rec: ElbenchoPhaseRecord, *prefixes: str) -> dict[str, float]:
    """elbencho's '<prefix> min/avg/max' (µs; a CSV's 'IO lat', a table's 'IO latency') as
    ns, by stackprobe's names."""
    return {name: rec.latency_us[f"{prefix} {stat}"] * 1000
            for prefix in prefixes
            for name, stat in (("min", "min"), ("mean", "avg"), ("max", "max"))
            if f"{prefix} {stat}" in rec.latency_us}


def _vdbench(rec: VdbenchRecord, groups: int) -> list[IoRecord]:
    avg = rec.avg
    if avg is None or avg.iops is None or avg.read_pct is None:
        return []
    share = {"read": avg.read_pct / 100, "write": 1 - avg.read_pct / 100}
    io = IoRecord(tool="vdbench", tool_version=rec.tool_version,
                  source_format=rec.source_format, job=rec.rd, groupid=groups + 1,
                  workload={"rd": rec.rd, **({"description": rec.description}
                                             if rec.description else {})})
    for direction, part in share.items():
        if part > 0:
            lat = {"mean": avg.resp_ms * 1e6} if avg.resp_ms is not None else {}
            setattr(io, direction, IoStats(iops=avg.iops * part,
                                           bw_bytes=(avg.mib_s or 0.0) * MIB * part, lat_ns=lat))
    return [io]


def _sysbench(rec: SysbenchRecord) -> list[IoRecord | OpsRecord]:
    runtime = rec.total_time_s * 1000 if rec.total_time_s is not None else None
    if rec.test == "fileio":
        r = rec.rates
        io = IoRecord(tool="sysbench", tool_version=rec.tool_version, source_format="text",
                      job="sysbench fileio", jobs=rec.threads, workload=dict(rec.settings))
        if r.get("reads/s"):
            io.read = IoStats(iops=r["reads/s"], bw_bytes=r.get("read, MiB/s", 0.0) * MIB,
                              runtime_ms=runtime)
        if r.get("writes/s"):
            io.write = IoStats(iops=r["writes/s"], bw_bytes=r.get("written, MiB/s", 0.0) * MIB,
                               runtime_ms=runtime)
        return [io] if io.read.active or io.write.active else []
    if rec.events_per_s is None:
        return []
    lat = {name: rec.latency_ms[key] * 1e6 for name, key in
           (("min", "min"), ("mean", "avg"), ("max", "max"), ("95.000000", "p95"))
           if key in rec.latency_ms}
    return [OpsRecord(tool="sysbench", tool_version=rec.tool_version,
                      operation=rec.test, ops_per_s=rec.events_per_s,
                      total_ops=rec.events, runtime_ms=runtime, jobs=rec.threads, lat_ns=lat)]
