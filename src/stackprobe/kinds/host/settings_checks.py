"""The settings step's findings as criteria: 'no settings drift', and each expectation of a
settings profile as its own checklist item.

'no settings drift' is a check a suite names: one outcome per (role, setting) compared,
failing where the hosts of the role differ (the drift's sentence as what was measured).

A profile's expectations need no `criteria:` line: the profile the step was given is its
acceptance list. The step stores each expectation as a CheckItem-shaped dict in
findings['criteria'] (verdict/step_criteria.py turns them into checklist items): rule
'profile hpc-storage: cpu.smt in off, forceoff, notsupported', origin the profile file and
line, pass when every host passes, fail when any fails, not measured when none fails but
some are UNKNOWN (or no host is in its roles).
"""

from __future__ import annotations

from stackprobe.analysis.settings_drift import hosts_text
from stackprobe.analysis.settings_profile import ExpectationResult
from stackprobe.kinds.checks import Check, Outcome
from stackprobe.schema.verdict import CheckItem
from stackprobe.spec.settings_profile import Profile

NAMED = 4  # values named in what was measured, then '(+N more)'


class NoSettingsDrift(Check):
    phrase = "no settings drift"
    aliases = ("no drifted setting", "no setting drift", "same settings in each role")
    looks_at = "settings compared"
    describes = ("every setting read on 2+ hosts of a role has one value on all of them "
                 "(settings; volatile and unreadable settings left out)")

    def all_well(self, outcomes):
        return f"{len(outcomes)} settings compared within roles, none differ"

    def outcomes(self, results, steps, argument=""):
        out = []
        for step in steps:
            found = step.findings.get("settings_drift")
            if not found:
                continue
            drifts = found.get("drifts") or []
            for drift in drifts:
                roles = ", ".join(drift.get("roles") or [])
                out.append(Outcome(False, f"{roles}: {drift.get('text')}", (step.id,)))
            for group in found.get("groups") or []:
                alike = int(group.get("compared") or 0) - int(group.get("differ") or 0)
                out += [Outcome(True, f"{group.get('role')}: alike", (step.id,))] * max(alike, 0)
        return out


CHECKS = (NoSettingsDrift(),)


def grouped(result: ExpectationResult, status: str) -> str:
    """The hosts of one status by what they hold: 'h4: cpu.governor powersave',
    'h1, h2, h3 and 13 more: cpu.smt not read' (missing or unreadable there),
    'h3: disk.sdb.scheduler bfq; h7: disk.sda.scheduler bfq'."""
    by_value: dict[tuple[str, str | None], list[str]] = {}
    for host in result.with_status(status):
        for j in host.judged:
            if j.status == status:
                by_value.setdefault((j.setting, j.value), []).append(host.host)
    parts = [f"{hosts_text(hosts)}: {setting} {'not read' if value is None else value}"
             for (setting, value), hosts in sorted(by_value.items(), key=lambda kv: -len(kv[1]))]
    return "; ".join(parts[:NAMED]) + (f" (+{len(parts) - NAMED} more)" if len(parts) > NAMED else "")


def per_host_text(result: ExpectationResult) -> str:
    """'FAIL 1 (h4); UNKNOWN 0; PASS 15 (h1, h2, h3 and 12 more)'."""
    parts = []
    for status in ("FAIL", "UNKNOWN", "PASS"):
        hosts = [h.host for h in result.with_status(status)]
        parts.append(f"{status} {len(hosts)}" + (f" ({hosts_text(hosts)})" if hosts else ""))
    return "; ".join(parts)


def expectation_item(profile: Profile, result: ExpectationResult) -> CheckItem:
    exp = result.expectation
    status = result.status
    if status == "fail":
        measured = grouped(result, "FAIL")
    elif status == "not measured":
        measured = (grouped(result, "UNKNOWN") if result.hosts else
                    f"no host with role {', '.join(exp.roles)}" if exp.roles else "no host")
    else:
        measured = f"{len(result.hosts)} host{'s' if len(result.hosts) != 1 else ''}, all pass"
    return CheckItem(kind="criterion", rule=f"profile {profile.name}: {exp.text}",
                     origin=f"{profile.file}:{exp.line}", status=status, measured=measured,
                     detail=per_host_text(result))


def profile_criteria(profile: Profile, results: list[ExpectationResult]) -> list[dict]:
    """findings['criteria']: one CheckItem-shaped dict per expectation."""
    return [expectation_item(profile, r).model_dump(mode="json", exclude_none=True)
            for r in results]
