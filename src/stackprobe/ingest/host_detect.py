"""Which host or network tool wrote this saved text: sysbench, stress-ng, iperf3 without -J.

The same parsers the live steps use read these where they exist (sysbench memory,
stress-ng's metrics); the rest have their own (sysbench cpu and fileio, stress-ng's
--yaml file, iperf3's text). Markers are the tools' own banners and table headers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from stackprobe.parsers.host.memory import parse_stress_ng_stream, parse_sysbench_memory
from stackprobe.parsers.host.stress_ng_cpu import parse_stress_ng_cpu
from stackprobe.parsers.host.stress_ng_yaml import looks_like_stress_ng_yaml, parse_stress_ng_yaml
from stackprobe.parsers.host.sysbench_text import looks_like_sysbench, parse_sysbench, sysbench_test
from stackprobe.parsers.network.iperf3_text import looks_like_iperf3_text, parse_iperf3_text

Found = tuple[str, Callable[[str], list]]

LOOKED_FOR = ("sysbench cpu, fileio and memory output, stress-ng --metrics-brief output and "
              "--yaml files, iperf3 text output (client or server)")

_SB_OPER = re.compile(r"^\s*operation:\s*(\S+)", re.MULTILINE)
_SB_FATAL = re.compile(r"^FATAL: (.*)$", re.MULTILINE)
_SNG_TABLE = re.compile(r"stressor\s+bogo ops\s+real time", re.MULTILINE)
_SNG_STREAM = re.compile(r"stream: memory rate: ")


def _sysbench(text: str) -> list:
    if fatal := _SB_FATAL.search(text):
        raise ValueError(f"sysbench failed: {' '.join(fatal.group(1).split())}")
    if sysbench_test(text) == "memory":
        oper = _SB_OPER.search(text)
        if oper is None:
            raise ValueError("sysbench memory output without its 'operation:' line")
        return [parse_sysbench_memory(text, operation=oper.group(1))]
    return [parse_sysbench(text)]


def _stress_ng(text: str) -> list:
    """Every stressor's bogo ops/s, and with --stream the machine's memory rate too."""
    records: list = list(parse_stress_ng_cpu(text))
    if _SNG_STREAM.search(text):
        records += parse_stress_ng_stream(text)
    return records


def host_format(text: str) -> Found | None:
    """(format name, parser) of a sysbench, stress-ng or iperf3 text file, or None."""
    if looks_like_sysbench(text):
        return "sysbench output", _sysbench
    if looks_like_stress_ng_yaml(text):
        return "stress-ng yaml", parse_stress_ng_yaml
    if _SNG_TABLE.search(text) and "stress-ng" in text:
        return "stress-ng metrics", _stress_ng
    if looks_like_iperf3_text(text):
        return "iperf3 text", parse_iperf3_text
    return None
