"""Ceph bench outputs as people keep them, for `stackprobe ingest`: which one a text is,
and its records, with a cut-short file named by line and field.

Recognised by content (never by file name):
- `rados bench`: its per-second table header (`sec Cur ops started finished`), its
  `Maintaining N concurrent writes` line, or its summary (`Total time run:`); with
  `--format json`, a document holding `datas` or `total_time_run`. Every era the
  fixtures hold: Jewel/Luminous text with a wrapper's header lines, Octopus-dev with ISO
  timestamps, Pacific text and JSON.
- `rbd bench` / `rbd bench-write`: its `bench ... io_size N io_threads N` header or its
  `elapsed: N ops: N ops/sec:` total line (raw bytes/sec of 2019, `MiB/s` since).
- `ceph tell osd.N bench`: its JSON (`bytes_written` and `bytes_per_sec`), one bare
  document or several as `ceph tell osd.* bench` prints them (`osd.3: {...}`), or the old
  plain `bench: wrote ... in blocks of ...` line. A bare document does not say which OSD
  it was: its record's `osd` is -1.

The figures are the parsers' (rados_bench.py, rbd_bench.py, osd_bench.py). What this module
adds is the check that the file is whole: a summary cut off before its last line names the
line where the file ends and the first field missing, instead of the parser's guess.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.ceph.osd_bench import parse_osd_bench
from stackprobe.parsers.ceph.rados_bench import parse_rados_bench
from stackprobe.parsers.ceph.rbd_bench import parse_rbd_bench
from stackprobe.schema.records import IoRecord, OsdBenchRecord

UNNAMED_OSD = -1  # a bare `ceph tell osd.N bench` document does not name its OSD

_RADOS = re.compile(r"^\s*sec\s+Cur ops\s+started\s+finished|Maintaining \d+ concurrent writes"
                    r"|^(?:\S+ )?Total time run:|\"(?:datas|total_time_run)\"\s*:"
                    r"|^error during benchmark: |^Must write data before running a read benchmark",
                    re.MULTILINE)
_RBD = re.compile(r"^bench(?:-write)?\s+(?:type\s+\S+\s+)?(?:read:write=\S+\s+)?io_size\s+\d+"
                  r"|^elapsed:\s*\d+\s+ops:\s*\d+\s+ops/sec:", re.MULTILINE)
_OSD_JSON = re.compile(r"\"bytes_written\"\s*:.*?\"bytes_per_sec\"\s*:", re.DOTALL)
_OSD_PLAIN = re.compile(r"bench: wrote \d+ \S+ in blocks of |^Error E[A-Z]+: .*'osd_bench_\w+'",
                        re.MULTILINE)
_OSD_NAMED = re.compile(r"^osd\.(\d+):\s*(?=\{)", re.MULTILINE)

# rados bench's summary lines, in the order it prints them, that every release since at
# least Jewel prints (IOPS lines are newer; older releases wrote "Average Latency:" without
# "(s)", so labels are compared without their unit); the summary ends with Min latency.
_RADOS_TEXT_NEEDS = (("Total time run",), ("Total writes made", "Total reads made"),
                     ("Bandwidth",), ("Average Latency",), ("Max latency",), ("Min latency",))
_UNIT = re.compile(r"\s*\((?:MB/sec|s)\)$")
_RADOS_JSON_NEEDS = (("total_time_run",), ("total_writes_made", "total_reads_made"),
                     ("bandwidth",), ("average_iops",), ("average_latency",), ("max_latency",),
                     ("min_latency",))
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d[ T][\d:.]+(?:Z|[+-]\d\d:?\d\d)? ")


def looks_like_rados_bench(text: str) -> bool:
    return bool(_RADOS.search(text))


def looks_like_rbd_bench(text: str) -> bool:
    return bool(_RBD.search(text))


def looks_like_osd_bench(text: str) -> bool:
    return bool(_OSD_JSON.search(text) or _OSD_PLAIN.search(text))


@guard("rados bench output")
def ingest_rados_bench(text: str) -> list[IoRecord]:
    """The run's record; ValueError 'line N: FIELD: ...' for a file cut short."""
    _whole_rados(text)
    return [parse_rados_bench(text)]


@guard("rbd bench output")
def ingest_rbd_bench(text: str) -> list[IoRecord]:
    lines = text.splitlines()
    if not any(re.match(r"\s*elapsed:", ln) for ln in lines) and looks_like_rbd_bench(text) \
            and not any(re.match(r"rbd:.*(?:error|failed)", ln, re.I) for ln in lines):
        raise ValueError(f"line {len(lines)}: elapsed/ops/ops/sec/bytes/sec: missing — the "
                         "rbd bench output ends before its total line (cut short?)")
    return [parse_rbd_bench(text)]


@guard("ceph osd bench output")
def ingest_osd_bench(text: str) -> list[OsdBenchRecord]:
    """One record per OSD bench in the file (`osd.N: {...}` blocks, or one bare result)."""
    named = list(_OSD_NAMED.finditer(text))
    if not named:
        try:
            return [parse_osd_bench(text, UNNAMED_OSD)]
        except ValueError as exc:
            raise ValueError(str(exc).replace(f"osd.{UNNAMED_OSD} ", "osd ", 1)) from None
    out = []
    for m, nxt in zip(named, [*named[1:], None]):
        body = text[m.end(): nxt.start() if nxt else len(text)]
        out.append(parse_osd_bench(body, int(m[1])))
    return out


def _whole_rados(text: str) -> None:
    """ValueError naming the line where a rados bench output stops and the first summary
    field it lacks, when it stops before its summary ends."""
    lines = text.splitlines()
    if re.search(r"\"(?:datas|total_time_run)\"\s*:", text):
        keys = set(re.findall(r"\"([a-z_]+)\"\s*:", text))
        missing = [names for names in _RADOS_JSON_NEEDS if not keys & set(names)]
        if missing and not _failed(lines):
            raise ValueError(f"line {len(lines)}: {' / '.join(missing[0])}: missing — the "
                             "rados bench JSON ends before its summary does (cut short?)")
        return
    found: dict[str, int] = {}
    for n, raw in enumerate(lines, start=1):
        line = _TIMESTAMP.sub("", raw.strip(), count=1)
        label, sep, _value = line.partition(":")
        if sep:
            found.setdefault(_UNIT.sub("", label.strip()), n)
    missing = [names for names in _RADOS_TEXT_NEEDS if not set(names) & found.keys()]
    if missing and not _failed(lines):
        where = (f"the summary starting at line {found['Total time run']} stops"
                 if "Total time run" in found else "the output stops before its summary")
        raise ValueError(f"line {len(lines)}: {' / '.join(missing[0])}: missing — {where} "
                         "(cut short?)")


def _failed(lines: list[str]) -> bool:
    """The tool said why it stopped: its own error is the better message (the parser's)."""
    return any(re.search(r"error during benchmark|^error|failed|unable|denied", ln.strip(), re.I)
               and not ln.lstrip().startswith(("{", "Object prefix:")) for ln in lines)
