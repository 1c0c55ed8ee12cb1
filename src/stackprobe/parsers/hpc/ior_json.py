"""IOR's JSON summary (`-O summaryFormat=JSON`, IOR 3.3 on) -> IorRecord, the same records
as the text parser (ior_text.py) with `source_format="json"`.

IOR writes one document: "Version", "Began", "Command line", "Machine", "tests" (each with
its "TestID", "Parameters" and "Results", one object per access and iteration) and
"summary" (one object per test and access: the max/min/mean/stddev over the iterations,
in MiB/s and OPs/s, "MeanTime", and with stonewalling "StoneWallTime" and
"StoneWallbwMeanMIB"). To the summary file (`-O summaryFile=F`) or to stdout; a job's log
may hold it among other lines: the document is found wherever it starts a line. Choices, checked on tests/fixtures/recorded/ior-json (IOR 4.1.0+dev):

- Bandwidths in bytes/s (MiB is 2**20 bytes, as in the text); figures are IOR's own, to
  the four decimals it prints, not recomputed.
- "Results" is flat (4.x) or a list per iteration (3.3): both are read; an access's
  iterations in the order printed, `iter` counted from 0 per access.
- aggregate_bytes: block x segments x tasks when the summary's "xsizeMiB" (a double of
  four decimals) is that, else xsizeMiB in bytes (a stonewalled run moves less).
- stonewall: the deadline and wear-out from "Parameters" (when a deadline was set:
  "deadlineForStonewall", "stoneWallingWearOut"; "Options" repeats them),
  `time_s` and `task_bw_bytes` from the summary, as the text parser names them.
- A test with no summary object (IOR stopped before its end) yields its iterations'
  figures, computed as the text parser does without a table, with a warning.
"""

from __future__ import annotations

from typing import Any

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.parsers.fio.fio_json import json_documents
from stackprobe.parsers.hpc.ior_text import iteration_mean, iteration_stats
from stackprobe.schema.records import IorRecord, SummaryStat

KIB = 1024
MIB = 1024**2
_ACCESSES = ("write", "read")
_ITERATION_KEYS = {  # Results key -> (iteration key, scale)
    "bwMiB": ("bw_bytes", MIB),
    "iops": ("iops", 1),
    "latency": ("latency_s", 1),
    "blockKiB": ("block_bytes", KIB),
    "xferKiB": ("xfer_bytes", KIB),
    "openTime": ("open_s", 1),
    "wrRdTime": ("wrrd_s", 1),
    "closeTime": ("close_s", 1),
    "totalTime": ("total_s", 1),
}


def is_ior_json(doc: Any) -> bool:
    """An IOR JSON document: a "tests" list whose entries carry "Parameters", or a
    "summary" list of objects with "operation" and "bwMeanMIB"."""
    if not isinstance(doc, dict):
        return False
    tests, summary = doc.get("tests"), doc.get("summary")
    if isinstance(tests, list) and any(isinstance(t, dict) and "Parameters" in t for t in tests):
        return True
    return isinstance(summary, list) and any(
        isinstance(s, dict) and "operation" in s and "bwMeanMIB" in s for s in summary)


@guard("IOR JSON")
def parse_ior_json(text: str) -> list[IorRecord]:
    """IorRecords of every IOR JSON document in `text`, one per test and access. Raises
    ValueError when there is none or it holds no result."""
    docs = [d for d in json_documents(text) if is_ior_json(d)]
    if not docs:
        raise ValueError("IOR JSON: no IOR JSON document (an object with 'tests' and 'summary')")
    records: list[IorRecord] = []
    index = 0
    for doc in docs:
        for test_id, test, rows in _tests(doc):
            records.extend(_records(doc, test_id, test, rows, index))
            index += 1
    if not records:
        raise ValueError("IOR JSON: no result (no summary and no 'Results' of a write or read)")
    return records


def _tests(doc: dict) -> list[tuple[int | None, dict, list[dict]]]:
    """Each test with its summary objects, in the file's order; summary objects of a test
    id no test printed make a test of their own."""
    tests = [t for t in _list(doc.get("tests"), "tests") if isinstance(t, dict)]
    summary = [s for s in _list(doc.get("summary"), "summary") if isinstance(s, dict)]
    out: list[tuple[int | None, dict, list[dict]]] = []
    for test in tests:
        tid = _int_or_none(test.get("TestID"))
        out.append((tid, test, [s for s in summary if _int_or_none(s.get("TestID")) == tid]))
    seen = {tid for tid, _, _ in out}
    for tid in dict.fromkeys(_int_or_none(s.get("TestID")) for s in summary):
        if tid not in seen:
            out.append((tid, {}, [s for s in summary if _int_or_none(s.get("TestID")) == tid]))
    return out


def _records(doc: dict, test_id: int | None, test: dict, summary: list[dict],
             index: int) -> list[IorRecord]:
    params = test.get("Parameters") if isinstance(test.get("Parameters"), dict) else {}
    results = _iterations(test.get("Results"))
    out = []
    for access in _ACCESSES:
        row = next((s for s in summary if s.get("operation") == access), None)
        rows = [r for a, r in results if a == access]
        if row is None and not rows:
            continue
        out.append(_record(doc, params, access, row or {}, rows, index))
    return out


def _record(doc: dict, params: dict, access: str, row: dict, rows: list[dict[str, float]],
            index: int) -> IorRecord:
    notes: list[str] = []
    what = f"IOR JSON: {access}"
    if row:
        bw = SummaryStat(max=_num(row, "bwMaxMIB", MIB, what), min=_num(row, "bwMinMIB", MIB, what),
                         mean=_num(row, "bwMeanMIB", MIB, what), stddev=_num(row, "bwStdMIB", MIB, what))
        ops = SummaryStat(max=_num(row, "OPsMax", 1, what), min=_num(row, "OPsMin", 1, what),
                          mean=_num(row, "OPsMean", 1, what), stddev=_num(row, "OPsSD", 1, what))
        mean_time = _num(row, "MeanTime", 1, what)
    else:
        bws = [r["bw_bytes"] for r in rows if "bw_bytes" in r]
        bw = iteration_stats(bws) if bws else SummaryStat()
        ops = SummaryStat()
        mean_time = iteration_mean([r["total_s"] for r in rows if "total_s" in r])
        notes.append(f"no summary for the {access}: figures from its {len(rows)} printed iteration(s) "
                     "(did IOR stop before the end of the test?)")
    tasks = _count(row, "numTasks", what) or _count(params, "numTasks", what)
    block = _count(row, "blockSize", what) or _count(params, "blockSize", what)
    transfer = _count(row, "transferSize", what) or _count(params, "transferSize", what)
    segments = _count(row, "segmentCount", what) or _count(params, "segmentCount", what)
    repetitions = _count(row, "repetitions", what) or _count(params, "repetitions", what)
    fpp = row.get("filePerProc", params.get("filePerProc"))
    if rows and repetitions is not None and len(rows) < repetitions:
        notes.append(f"{len(rows)} of {repetitions} {access} iterations printed")
    return IorRecord(
        source_format="json",
        tool_version=_text(doc.get("Version")),
        test=index,
        operation=access,
        api=_text(row.get("API")) or _text(params.get("api")),
        tasks=tasks,
        nodes=_count(params, "nodes", what),
        tasks_per_node=_count(row, "tasksPerNode", what) or _count(params, "tasksPerNode", what),
        repetitions=repetitions,
        file_per_process=None if fpp is None else bool(_count({"f": fpp}, "f", what)),
        transfer_bytes=transfer,
        block_bytes=block,
        segments=segments,
        aggregate_bytes=_aggregate(_num(row, "xsizeMiB", MIB, what), block, segments, tasks),
        bw_bytes=bw,
        ops=ops,
        mean_time_s=mean_time,
        iterations=rows,
        stonewall=_stonewall(params, row, what),
        warnings=notes,
        command=_text(doc.get("Command line")),
        path=_text(params.get("testFileName")) or _text(params.get("test filename")),
    )


def _iterations(results: Any) -> list[tuple[str, dict[str, float]]]:
    """(access, figures) of every result object: flat (4.x) or one list per iteration."""
    flat: list[Any] = []
    for item in _list(results, "Results"):
        flat.extend(item if isinstance(item, list) else [item])
    out: list[tuple[str, dict[str, float]]] = []
    count = dict.fromkeys(_ACCESSES, 0)
    for item in flat:
        if not isinstance(item, dict) or item.get("access") not in _ACCESSES:
            continue
        access = item["access"]
        figures = {key: _num(item, name, scale, f"IOR JSON: {access} result")
                   for name, (key, scale) in _ITERATION_KEYS.items() if name in item}
        figures = {k: v for k, v in figures.items() if v is not None}
        figures["iter"] = float(count[access])
        count[access] += 1
        out.append((access, figures))
    return out


def _stonewall(params: dict, row: dict, what: str) -> dict[str, float]:
    out: dict[str, float] = {}
    deadline = _num(params, "deadlineForStonewall", 1, what)
    if deadline:
        out["deadline_s"] = deadline
        wear_out = _num(params, "stoneWallingWearOut", 1, what)
        if wear_out is not None:
            out["wear_out"] = wear_out
    for key, name, scale in (("time_s", "StoneWallTime", 1), ("task_bw_bytes", "StoneWallbwMeanMIB", MIB)):
        value = _num(row, name, scale, what)
        if value is not None:
            out[key] = value
    return out


def _aggregate(xsize: float | None, block: int | None, segments: int | None,
               tasks: int | None) -> int | None:
    expected = block * segments * tasks if None not in (block, segments, tasks) else None
    if xsize is None:
        return expected
    if expected is not None and abs(xsize - expected) <= 0.0001 * MIB:
        return expected
    return round(xsize)


def _num(obj: dict, key: str, scale: float, what: str) -> float | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{what}: {key} is not a number: {str(value)[:40]!r}")
    return finite(finite(value, f"{what}: {key}") * scale, f"{what}: {key}")


def _count(obj: dict, key: str, what: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 2**63:
        raise ValueError(f"{what}: {key} is not a count: {str(value)[:40]!r}")
    return value


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _list(value: Any, what: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"IOR JSON: {what} is not a list")
    return value
