"""Every finding a rule may name: the kinds' (kinds/registry.py: checks) and the ones that
need the report's analyses (the ladder's efficiency), said once."""

from __future__ import annotations

from functools import cache

from stackprobe.kinds import registry
from stackprobe.kinds.checks import CheckRegistry
from stackprobe.verdict.ceiling_check import EfficiencyVsCeiling


@cache
def all_checks() -> CheckRegistry:
    return CheckRegistry((*registry.checks().checks, EfficiencyVsCeiling()))
