"""`sysbench cpu run` and `sysbench fileio ... run` output as saved -> SysbenchRecord.

sysbench 1.0 prints (tests/fixtures/recorded/sysbench): a banner 'sysbench 1.0.20 (...)',
'Number of threads: N', the test's options (cpu: 'Prime numbers limit: 10000'; fileio:
'128 files, 16MiB each', 'Block size 16KiB', 'Doing random r/w test', ...), then after
'Threads started!' its figures: cpu's 'events per second', fileio's 'File operations'
(reads/s, writes/s, fsyncs/s) and 'Throughput' ('read, MiB/s', 'written, MiB/s'), and for
every test 'General statistics' (total time, total number of events) and 'Latency (ms)'
(min, avg, max, 95th percentile, sum). The option lines are kept as printed (key: value,
or the whole line when it has no colon); figures keep sysbench's units. A 'FATAL:' line is
a failed run: refused with sysbench's words. sysbench memory has its own parser
(parsers/host/memory.py).
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import finite, guard
from stackprobe.schema.peer_records import SysbenchRecord

_BANNER = re.compile(r"^sysbench (\d[\w.-]*)", re.MULTILINE)
_THREADS = re.compile(r"^Number of threads:\s*(\d{1,9})\s*$", re.MULTILINE)
_FATAL = re.compile(r"^FATAL: (.*)$", re.MULTILINE)
_STARTED = "Threads started!"
_PAIR = re.compile(r"^\s*([A-Za-z0-9][\w ,/()%-]*?):\s*(.*?)\s*$")
_LATENCY = {"min": "min", "avg": "avg", "max": "max", "95th percentile": "p95", "sum": "sum"}
_RATES = ("reads/s", "writes/s", "fsyncs/s", "read, MiB/s", "written, MiB/s")
_SKIPPED = ("Running the test with following options", "Initializing", "Number of threads",
            "Extra file open flags")


def looks_like_sysbench(text: str) -> bool:
    return _BANNER.search(text) is not None and (_STARTED in text or "FATAL:" in text)


def sysbench_test(text: str) -> str:
    """'cpu', 'fileio' or 'memory': what the output shows it ran."""
    if "MiB transferred" in text or "memory speed test" in text:
        return "memory"
    if "File operations:" in text or "fileio" in text.split(_STARTED)[0].lower():
        return "fileio"
    if "CPU speed:" in text or "Prime numbers limit" in text:
        return "cpu"
    raise ValueError("sysbench output of a test other than cpu, fileio and memory")


def _settings(head: str) -> dict[str, str]:
    settings: dict[str, str] = {}
    for line in head.splitlines()[1:]:
        line = " ".join(line.split())
        if not line or line.startswith(_SKIPPED) or line.endswith("options:"):
            continue
        key, sep, value = line.partition(":")
        settings[key.strip() if sep else line] = value.strip()
    return settings


@guard("sysbench output")
def parse_sysbench(text: str) -> SysbenchRecord:
    """The record of one sysbench cpu or fileio run."""
    if fatal := _FATAL.search(text):
        raise ValueError(f"sysbench failed: {' '.join(fatal.group(1).split())}")
    test = sysbench_test(text)
    if test == "memory":
        raise ValueError("sysbench memory output: read by the memory parser")
    if _STARTED not in text:
        raise ValueError("no 'Threads started!' line: the sysbench run did not start")
    head, _, tail = text.partition(_STARTED)
    version, threads = _BANNER.search(text), _THREADS.search(head)
    rec = SysbenchRecord(test=test, tool_version=version.group(1) if version else None,
                         threads=int(threads.group(1)) if threads else None,
                         settings=_settings(head))
    section = ""
    for no, line in enumerate(tail.splitlines(), head.count("\n") + 1):
        m = _PAIR.match(line)
        if not m:
            continue
        key, value = m.groups()
        if not line.startswith(" "):
            section = key
            continue
        if not value:
            continue
        where = f"sysbench line {no}: {key}"
        if key == "events per second":
            rec.events_per_s = finite(value, where)
        elif key == "total time":
            rec.total_time_s = finite(value.removesuffix("s"), where)
        elif key == "total number of events":
            rec.events = int(finite(value, where))
        elif section.startswith("Latency") and key in _LATENCY:
            rec.latency_ms[_LATENCY[key]] = finite(value, where)
        elif key in _RATES:
            rec.rates[key] = finite(value, where)
    if rec.events_per_s is None and not rec.rates and rec.events is None:
        raise ValueError("sysbench output without its figures (cut before them?)")
    return rec
