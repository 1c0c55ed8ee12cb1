"""Independent read-only commands on one host, a few at a time, answers in the order asked.

Why: a command whose cost is mostly its own start (the `ceph` CLI: 0.3-1 s of Python start
and mon connection per call) adds up when a step asks a dozen of them one after another; a
Ceph inventory asked 6 and a configuration review 15, seconds of every Ceph run. Only for
commands that change nothing and do not depend on each other's answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from stackprobe.transport.base import CommandResult

AT_ONCE = 4  # enough to hide the start of each; few enough for a 2-core controller


def side_by_side(run: Callable[[list[str]], CommandResult], argvs: Sequence[list[str]],
                 at_once: int = AT_ONCE) -> list[CommandResult]:
    """run(argv) for each, `at_once` at a time; the results in the order of `argvs`."""
    if not argvs:
        return []
    with ThreadPoolExecutor(max_workers=min(at_once, len(argvs))) as pool:
        return list(pool.map(run, argvs))
