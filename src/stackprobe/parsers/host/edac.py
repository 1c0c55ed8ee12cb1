"""EDAC memory-error counts (/sys/devices/system/edac/mc) -> {counter name: count}.

The health probe prints them as `grep -H . <files>` does, relative to the mc directory:
`mc0/ce_count:3`, `mc0/csrow1/ue_count:0`, `mc0/dimm2/dimm_ce_count:3`. Each memory
controller counts corrected (ce) and uncorrected (ue) errors; older drivers split them per
chip-select row (csrow*), newer ones per DIMM (dimm*). A corrected count that grows under
load is a DIMM on its way out; any uncorrected error is one that already failed.

Names: 'EDAC mc0 corrected errors', 'EDAC mc0/dimm2 uncorrected errors'.
"""

from __future__ import annotations

import re

from stackprobe.parsers.bad_input import guard

_LINE = re.compile(r"^(mc\d+)(?:/((?:csrow|dimm|rank)\d+))?/(?:dimm_)?(ce|ue)_count:(.*)$")
_WHAT = {"ce": "corrected errors", "ue": "uncorrected errors"}
_MAX = 2**63


def counter_name(controller: str, part: str | None, kind: str) -> str:
    where = f"{controller}/{part}" if part else controller
    return f"EDAC {where} {_WHAT[kind]}"


@guard("edac")
def parse_edac(text: str) -> dict[str, int]:
    """{name: count}; ValueError naming the line for anything that is not a count file."""
    out: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        m = _LINE.match(line)
        if m is None:
            raise ValueError(f"edac line {number}: not 'mcN[/part]/ce_count:N': {line[:60]!r}")
        value = m.group(4).strip()
        if not value.isdigit() or int(value) >= _MAX:
            raise ValueError(f"edac line {number}: {value[:20]!r} is not a count")
        out[counter_name(m.group(1), m.group(2), m.group(3))] = int(value)
    return out
