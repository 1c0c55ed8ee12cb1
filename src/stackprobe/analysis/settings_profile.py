"""A settings profile judged on the hosts' settings: per expectation, per host, PASS, FAIL
or UNKNOWN.

UNKNOWN is never a pass: the setting is not on that host or could not be read (None), or
a number is expected and the value is not one ('mixed: ...', text). A glob expectation
('disk.*.scheduler') is judged on every matching setting of a host, and the host fails if
any of them does; a host with no matching setting at all is UNKNOWN (no disk seen is not
every disk right). An expectation with `roles:` judges only the hosts of those roles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

from stackprobe.analysis.settings_drift import host_name
from stackprobe.schema.settings_records import Setting, SettingsRecord
from stackprobe.spec.settings_profile import Expectation, Profile

HostStatus = Literal["PASS", "FAIL", "UNKNOWN"]


@dataclass(frozen=True)
class Judged:
    """One setting of one host against one expectation."""

    setting: str
    value: str | None
    status: HostStatus


@dataclass(frozen=True)
class HostResult:
    host: str
    judged: tuple[Judged, ...]

    @property
    def status(self) -> HostStatus:
        statuses = {j.status for j in self.judged}
        return "FAIL" if "FAIL" in statuses else "UNKNOWN" if "UNKNOWN" in statuses else "PASS"


@dataclass(frozen=True)
class ExpectationResult:
    expectation: Expectation
    hosts: tuple[HostResult, ...]  # the hosts in its scope

    @property
    def status(self) -> Literal["pass", "fail", "not measured"]:
        statuses = {h.status for h in self.hosts}
        if "FAIL" in statuses:
            return "fail"
        return "not measured" if "UNKNOWN" in statuses or not self.hosts else "pass"

    def with_status(self, status: HostStatus) -> list[HostResult]:
        return [h for h in self.hosts if h.status == status]


def as_number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def judge_value(expectation: Expectation, value: str | None) -> HostStatus:
    """One value against one expectation; text compared with runs of whitespace as one."""
    if value is None:
        return "UNKNOWN"
    text = " ".join(value.split())
    kind = expectation.comparison
    if kind == "equals":
        return "PASS" if text == expectation.values[0] else "FAIL"
    if kind == "not":
        return "PASS" if text != expectation.values[0] else "FAIL"
    if kind == "one_of":
        return "PASS" if text in expectation.values else "FAIL"
    number = as_number(text)
    if number is None or expectation.number is None:
        return "UNKNOWN"
    ok = number >= expectation.number if kind == "at_least" else number <= expectation.number
    return "PASS" if ok else "FAIL"


def judge_host(expectation: Expectation, host: str, settings: dict[str, Setting]) -> HostResult:
    if expectation.is_glob:
        names = sorted(n for n in settings if fnmatchcase(n, expectation.setting))
        if not names:
            return HostResult(host, (Judged(expectation.setting, None, "UNKNOWN"),))
    else:
        names = [expectation.setting]
    judged = []
    for name in names:
        value = settings[name].value if name in settings else None
        judged.append(Judged(name, value, judge_value(expectation, value)))
    return HostResult(host, tuple(judged))


def in_scope(expectation: Expectation, host: str, roles: dict[str, list[str]]) -> bool:
    return not expectation.roles or bool(set(expectation.roles) & set(roles.get(host) or ()))


def evaluate(profile: Profile, records: Sequence[SettingsRecord],
             roles: dict[str, list[str]]) -> list[ExpectationResult]:
    by_host = {host_name(r): r.settings for r in records}
    return [ExpectationResult(exp, tuple(judge_host(exp, host, settings)
                                         for host, settings in by_host.items()
                                         if in_scope(exp, host, roles)))
            for exp in profile.expectations]
