"""A runner's stdout on its way to the run's live display (docs/live.md).

Runners that stream hand `ctx.execute(on_stdout=...)` what `stdout_reader` makes of a
feeder (analysis/live_figures.py, analysis/live_ceph.py): each finished interval goes to
the step's `live` callback, which the engine set from the run's display. With no display
(`--quiet`) there is nothing to read and nothing changes in how the tool runs.

The live path must never cost a measurement: a feeder or display that fails is dropped
for the rest of the command, and the command's output is kept and parsed as always.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from stackprobe.analysis.live_figures import LiveFigures, LiveSink


class Feeder(Protocol):
    def feed(self, text: str) -> list[list[LiveFigures]]: ...


StdoutReader = Callable[[str], bool]  # True: the command should end now (steady state)


def stdout_reader(live: LiveSink | None, feeder: Feeder,
                  then: StdoutReader | None = None) -> StdoutReader | None:
    """on_stdout for a command: the feeder's intervals to `live`, then `then` (a steady
    state monitor) decides whether the command ends; None when neither is wanted."""
    if live is None:
        return then
    state = {"on": True}

    def read(text: str) -> bool:
        if state["on"]:
            try:
                for figures in feeder.feed(text):
                    live(figures)
            except Exception:  # a view, not the result: stop showing, keep measuring
                state["on"] = False
        return then(text) if then is not None else False

    return read
