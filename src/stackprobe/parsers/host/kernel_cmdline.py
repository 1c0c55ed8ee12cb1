"""/proc/cmdline -> the kernel's parameters, as the kernel splits them.

Why its own parser: `intel_idle.max_cstate=1`, `mitigations=off`, `nosmt`,
`transparent_hugepage=never` or `isolcpus=` on one host of a fleet change what every
benchmark on it measures, and they are set at boot, far from any sysctl. The kernel splits
the line at spaces outside double quotes (a value may be quoted: `dyndbg="file x +p"`),
and everything after a bare `--` is for init, not the kernel.
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import guard

FLAG = "set"  # the value of a parameter given without '=' ('nosmt')


def _words(line: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    quoted = False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif ch.isspace() and not quoted:
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words


@guard("/proc/cmdline")
def parse_cmdline(text: str) -> dict[str, str]:
    """{param: value} ('set' for a bare flag; the last of repeated params wins, as for
    the kernel); ValueError for text of more than one line or with control characters."""
    lines = text.strip("\n").splitlines()
    if len(lines) > 1:
        raise ValueError(f"/proc/cmdline: {len(lines)} lines, the kernel writes one")
    line = lines[0] if lines else ""
    if any(ord(ch) < 32 and ch != "\t" for ch in line):
        raise ValueError("/proc/cmdline: control characters in the line")
    out: dict[str, str] = {}
    for word in _words(line):
        if word == "--":
            break
        name, sep, value = word.partition("=")
        out[name] = value if sep else FLAG
    return out
