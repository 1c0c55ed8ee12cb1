"""'efficiency vs ceiling >= 70%': each rung of the ladder against the ceiling its lower
rungs set (analysis/ceilings.py; `show`'s ladder table). A rung without a ceiling (its
inputs were not measured) answers nothing: the rule is NOT MEASURED, never a pass."""

from __future__ import annotations

from stackprobe.kinds.checks import Check, Outcome
from stackprobe.report.ladder_tables import run_ladder


class EfficiencyVsCeiling(Check):
    phrase = "efficiency vs ceiling"
    aliases = ("efficiency",)
    unit = "%"
    argument = True  # optional: a part of the rung's name ('rados bench', 'h1')
    describes = "measured / the ceiling the lower rungs set, per ladder rung, in %"

    def outcomes(self, results, steps, argument=""):
        ids = {s.id for s in steps}
        want = argument.strip().lower()
        out = []
        for rung in run_ladder(results):
            if rung.step not in ids or (want and want not in rung.name.lower()):
                continue
            if rung.efficiency is None:
                continue
            out.append(Outcome(True, rung.verdict, (rung.step,), value=rung.efficiency * 100))
        return out
