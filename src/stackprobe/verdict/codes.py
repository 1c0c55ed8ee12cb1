"""The exit status of `stackprobe run`, `resume`, `compare --against` and `show --verdict`.

When several apply, the first in this order wins (docs/verdicts.md): the run was
interrupted (130), a step failed (1: figures are missing, so no verdict is complete), a
criterion failed (3), a gated figure regressed (4). 2 is a usage error (bad suite, bad
option, missing tool) and 70 a bug in stackprobe, as every command reports them.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_STEP_FAILED = 1
EXIT_USAGE = 2
EXIT_CRITERIA_FAILED = 3
EXIT_REGRESSION = 4
EXIT_INTERNAL_ERROR = 70  # EX_SOFTWARE in sysexits.h
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it

# which code wins when several apply: earlier wins
PRECEDENCE = (EXIT_INTERRUPTED, EXIT_STEP_FAILED, EXIT_CRITERIA_FAILED, EXIT_REGRESSION, EXIT_OK)


def winning(codes: list[int] | set[int]) -> int:
    """The code to exit with when `codes` all apply."""
    for code in PRECEDENCE:
        if code in codes:
            return code
    return EXIT_OK
