"""bench/merge.py's short mode: its figure lines, and merged percentiles that equal a direct
computation over every I/O of the synthetic jobs and clients it made.

The bench reads recorded fio outputs only (tests/fixtures/recorded/fio-merge/); `--dump`
leaves the synthetic fio outputs it parsed and the percentiles the project's merge gave.
Here the percentiles are taken again the plainest way: every I/O's bin value laid out in
order, and fio's percentile p the value at rank ceil(p/100 * N), with p the double fio uses.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from conftest import FIXTURES, ROOT
from stackprobe.analysis.histogram import FIO_DEFAULT_PERCENTILES
from stackprobe.parsers.fio.fio_json import result_document
from stackprobe.schema.records import percentile_key

# beside the one-at-a-time system tests (tests/run_tiers.py): recorded fio outputs merged: exact percentiles, no level
pytestmark = pytest.mark.beside

RECORDED = FIXTURES / "recorded" / "fio-merge"
LINE = (r"{label}={n} merge_s=\d+\.\d{{3}} parse_s=\d+\.\d{{3}} records_mb=\d+\.\d "
        r"merge_peak_mb=\d+\.\d rss_mb=\d+ bins=[1-9]\d* exact=yes")


def _run_short(dump: Path) -> list[str]:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "merge.py"), "--short",
                           "--dump", str(dump)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return proc.stdout.strip().splitlines()


def _entries(doc: dict) -> list[dict]:
    return [e for e in (doc.get("client_stats") or doc.get("jobs")) if e["jobname"] != "All clients"]


def _by_rank(entries: list[dict], direction: str, hist: str) -> dict[str, float]:
    """fio's percentiles of all the entries' I/Os together, from the I/Os in order."""
    values = np.concatenate([
        np.repeat(np.array([int(k) for k in bins], dtype=np.int64),
                  np.array(list(bins.values()), dtype=np.int64))
        for e in entries for bins in [e[direction][hist]["bins"]]])
    values.sort()
    out = {}
    for p in FIO_DEFAULT_PERCENTILES:
        rank = -(-Fraction(p) * len(values) // 100)  # ceil, exact
        out[percentile_key(p)] = float(values[int(rank) - 1])
    return out


def _recorded(name: str) -> list[dict]:
    doc, _ = result_document((RECORDED / name).read_text(encoding="utf-8"))
    return _entries(doc)


@pytest.mark.bench
def test_merge_short_lines_and_exact_percentiles(tmp_path):
    lines = _run_short(tmp_path)
    assert re.fullmatch(LINE.format(label="jobs", n=50), lines[-2]), lines[-2]
    assert re.fullmatch(LINE.format(label="clients", n=10), lines[-1]), lines[-1]
    merged = json.loads((tmp_path / "merged.json").read_text())
    for label, count, recorded in (
        ("jobs", 50, "fio-3.33_jsonplus_4jobs_randrw_qd1-qd8.json"),
        ("clients", 10, "fio-3.33_client_jsonplus_4clients_randrw.txt"),
    ):
        entries = _entries(json.loads((tmp_path / f"{label}.json").read_text()))
        sources = _recorded(recorded)
        assert len(entries) == count
        checked = 0
        for direction in ("read", "write"):
            for hist in ("clat_ns", "lat_ns"):
                want = _by_rank(entries, direction, hist)
                assert merged[label][direction][hist] == want, (label, direction, hist)
                checked += 1
                # resampled, not made up: each drawn histogram has only its source's bins
                # and as many I/Os
                for i, e in enumerate(entries):
                    src = sources[i % len(sources)][direction][hist]["bins"]
                    drawn = e[direction][hist]["bins"]
                    assert set(drawn) <= set(src)
                    assert sum(drawn.values()) == sum(src.values()) == e[direction][hist]["N"]
        assert checked == 4
