"""`ceph tell osd.N bench [TOTAL_BYTES BYTES_PER_WRITE]` output -> OsdBenchRecord.

The OSD writes TOTAL_BYTES (default 1 GiB) in BYTES_PER_WRITE blocks (default 4 MiB)
straight into its object store, waits for them, and deletes them: a figure for the OSD's
device and store, without network or replication.

Formats handled:
- JSON (Luminous and later, and what Pacific prints even without `-f`, pretty-printed):
  bytes_written, blocksize, elapsed_sec, bytes_per_sec, iops. Jewel's JSON had only
  bytes_written, blocksize and bytes_per_sec (an integer); elapsed and IOPS are derived.
- The plain line of Jewel and earlier: `bench: wrote 1024 MB in blocks of 4096 kB in
  1.510402 sec at 677 MB/sec`. The sizes there are binary and truncated to whole units
  (`prettybyte_t` in include/types.h: "bytes", "kB"/"KB", "MB", "GB", ... by shifts of 10
  bits, switching unit above 100 of the next one), so bandwidth is recomputed as bytes
  written / seconds, which holds all the digits printed.
- Refusals (`Error EINVAL: block 'size' values are capped at 64 MiB. ...`) -> ValueError
  carrying the OSD's message.
"""

from __future__ import annotations

import re
from typing import Any

from stackprobe.parsers.bad_input import finite, guard, load_json
from stackprobe.schema.records import OsdBenchRecord

_PLAIN = re.compile(
    r"bench: wrote (\d+) (bytes|[kKMGTPE]B) in blocks of (\d+) (bytes|[kKMGTPE]B) in "
    r"([\d.]+) sec at (\d+) (bytes|[kKMGTPE]B)/sec"
)
_SHIFT = {"bytes": 0, "kB": 10, "KB": 10, "MB": 20, "GB": 30, "TB": 40, "PB": 50, "EB": 60}
_ERROR = re.compile(r"^(?:Error E[A-Z]+:|Error|error)[: ]", re.MULTILINE)


@guard("ceph osd bench")
def parse_osd_bench(text: str, osd: int) -> OsdBenchRecord:
    """The OSD bench result for `osd` (which the output does not name)."""
    body = text.strip()
    if not body:
        raise ValueError(f"osd.{osd} bench: empty output")
    if body.startswith("{"):
        return _from_json(body, osd)
    if m := _PLAIN.search(body):
        return _from_plain(m, osd)
    errors = [line.strip() for line in body.splitlines() if _ERROR.match(line.strip())]
    message = "; ".join(errors) if errors else body.splitlines()[0].strip()
    raise ValueError(f"osd.{osd} bench failed: {message}")


def _from_json(body: str, osd: int) -> OsdBenchRecord:
    doc = load_json(body, f"osd.{osd} bench", dict)
    written = _number(doc, "bytes_written", osd)
    block = _number(doc, "blocksize", osd)
    rate = _number(doc, "bytes_per_sec", osd)
    if "elapsed_sec" in doc:
        elapsed = _number(doc, "elapsed_sec", osd)
    else:  # Jewel: no elapsed_sec, and an integer rate
        elapsed = written / rate if rate > 0 else 0.0
    iops = _number(doc, "iops", osd) if "iops" in doc else rate / block
    return _record(osd, written, block, elapsed, rate, iops)


def _from_plain(m: re.Match[str], osd: int) -> OsdBenchRecord:
    written = int(m[1]) << _SHIFT[m[2]]
    block = int(m[3]) << _SHIFT[m[4]]
    elapsed = finite(m[5], f"osd.{osd} bench: seconds")
    # The printed rate is truncated to whole units; bytes / seconds keeps its digits.
    rate = written / elapsed if elapsed > 0 else float(int(m[6]) << _SHIFT[m[7]])
    return _record(osd, written, block, elapsed, rate, rate / block)


def _record(osd: int, written: float, block: float, elapsed: float, rate: float,
            iops: float) -> OsdBenchRecord:
    if block <= 0:
        raise ValueError(f"osd.{osd} bench: block size {block}")
    return OsdBenchRecord(
        osd=osd,
        bytes_written=int(written),
        block_bytes=int(block),
        elapsed_s=float(elapsed),
        bw_bytes=float(rate),
        iops=float(iops),
    )


def _number(doc: dict[str, Any], key: str, osd: int) -> float:
    if key not in doc:
        raise ValueError(f"osd.{osd} bench: no '{key}' in the JSON")
    value = doc[key]
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"osd.{osd} bench: '{key}' is not a number: {value!r}")
    return finite(value, f"osd.{osd} bench: '{key}'")
