"""Which tool and format wrote this text? Pick the parser for `stackprobe ingest`.

Detection reads content, not file names (people rename outputs). When a file holds both
fio's normal text and its JSON (`--output-format=normal,json`), the JSON wins: it is exact.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from stackprobe.ingest.host_detect import LOOKED_FOR as HOST_TOOLS
from stackprobe.ingest.host_detect import host_format
from stackprobe.ingest.peer_detect import LOOKED_FOR, peer_format
from stackprobe.parsers.ceph.bench_files import (
    ingest_osd_bench,
    ingest_rados_bench,
    ingest_rbd_bench,
    looks_like_osd_bench,
    looks_like_rados_bench,
    looks_like_rbd_bench,
)
from stackprobe.parsers.fio.fio_json import json_documents, parse_fio_json
from stackprobe.parsers.fio.fio_normal import parse_fio_normal
from stackprobe.parsers.fio.fio_terse import parse_fio_terse
from stackprobe.parsers.hpc.hpcc_out import looks_like_hpcc, parse_hpcc
from stackprobe.parsers.hpc.hpl_out import looks_like_hpl, parse_hpl
from stackprobe.parsers.hpc.io500_result import looks_like_io500, parse_io500
from stackprobe.parsers.hpc.ior_json import is_ior_json, parse_ior_json
from stackprobe.parsers.hpc.ior_text import looks_like_ior, parse_ior
from stackprobe.parsers.hpc.mdtest_text import looks_like_mdtest, parse_mdtest
from stackprobe.parsers.hpc.stream_text import looks_like_stream, parse_stream
from stackprobe.parsers.network.iperf3_json import parse_iperf3_json
from stackprobe.parsers.network.osu_text import looks_like_osu, parse_osu
from stackprobe.parsers.network.perftest_text import looks_like_perftest, parse_perftest

_TERSE_LINE = re.compile(r"^(?:.*\r)?[2-5];fio-[^;]*;", re.MULTILINE)
_NORMAL_JOB = re.compile(r"\(groupid=\d+, jobs=\d+\)|: \(g=\d+\): rw=", re.MULTILINE)


@dataclass(frozen=True)
class Format:
    name: str
    parse: Callable[[str], list]


def _iperf3(text: str) -> list:
    return [parse_iperf3_json(text)]


def detect(text: str) -> Format:
    """The format of `text`; ValueError naming what was looked for when none matches."""
    docs = json_documents(text)
    if any(_is_iperf3(d) for d in docs):
        return Format("iperf3 json", _iperf3)
    if any("jobs" in d or "client_stats" in d for d in docs):
        return Format("fio json", parse_fio_json)
    if any(is_ior_json(d) for d in docs):  # before the text: IOR's stdout wraps it in its banner
        return Format("ior json", parse_ior_json)
    peer = peer_format(text) or host_format(text)
    if peer is not None:
        return Format(*peer)
    ceph = _ceph_format(text)
    if ceph is not None:
        return ceph
    hpc = _hpc_format(text)
    if hpc is not None:
        return hpc
    if looks_like_osu(text):
        return Format("osu output", parse_osu)
    if looks_like_perftest(text):
        return Format("perftest output", parse_perftest)
    if _TERSE_LINE.search(text):
        return Format("fio terse", parse_fio_terse)
    if _NORMAL_JOB.search(text):
        return Format("fio normal", parse_fio_normal)
    raise ValueError(
        "unknown format (looked for fio json/json+/terse/normal output, iperf3 -J, IOR (text, JSON) and "
        "mdtest output, IO500 result files, rados bench, rbd bench and ceph tell osd bench "
        "output, STREAM, HPL.out and hpcc's hpccoutf.txt, OSU Micro-Benchmarks and perftest output, "
        f"{LOOKED_FOR}, {HOST_TOOLS})"
    )


def _io500(text: str) -> list:
    """IO500 results with the score recomputed by the official formula (mismatches named)."""
    from stackprobe.analysis.io500_score import recompute

    return [recompute(r) for r in parse_io500(text)]


def _ceph_format(text: str) -> Format | None:
    """rados bench first: its JSON cannot be an osd bench's, and rbd bench never prints
    its table header."""
    if looks_like_rados_bench(text):
        return Format("rados bench", ingest_rados_bench)
    if looks_like_rbd_bench(text):
        return Format("rbd bench", ingest_rbd_bench)
    if looks_like_osd_bench(text):
        return Format("ceph osd bench", ingest_osd_bench)
    return None


def _hpc_format(text: str) -> Format | None:
    """IO500 first: its files quote IOR and mdtest command lines; hpcc before HPL and STREAM,
    whose outputs it holds."""
    if looks_like_io500(text):
        return Format("io500 result", _io500)
    if looks_like_mdtest(text):
        return Format("mdtest output", parse_mdtest)
    if looks_like_ior(text):
        return Format("ior output", parse_ior)
    if looks_like_hpcc(text):
        return Format("hpcc output", parse_hpcc)
    if looks_like_hpl(text):
        return Format("hpl output", parse_hpl)
    if looks_like_stream(text):
        return Format("stream output", parse_stream)
    return None


def _is_iperf3(doc: dict) -> bool:
    start = doc.get("start")
    if isinstance(start, dict) and ("connecting_to" in start or "version" in start
                                    or "test_start" in start):
        return True
    return "error" in doc and "jobs" not in doc and ("start" in doc or "end" in doc)
