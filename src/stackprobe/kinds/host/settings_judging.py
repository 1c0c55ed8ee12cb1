"""What the settings step concludes from the settings it read: drift within each role and,
when the step names a profile, each expectation on each host (docs/settings.md).

The runner calls judge_settings once, after every host's SettingsRecord is in: the result
goes to the step's findings (docs/results-schema.md, "settings"), a warning per drift
sentence and per failing expectation. A profile that cannot be read is said in the
findings and a warning; the settings and the drift are kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from stackprobe.analysis.settings_drift import settings_drift
from stackprobe.analysis.settings_profile import ExpectationResult, evaluate
from stackprobe.kinds.host.settings_checks import grouped, profile_criteria
from stackprobe.schema.settings_records import SettingsRecord
from stackprobe.spec.settings_profile import Profile, ProfileError, load_profile


def judge_settings(records: Sequence[object], roles: dict[str, list[str]],
                   profile_ref: str | None, base_dir: Path | str | None
                   ) -> tuple[dict, list[str]]:
    """(findings {'settings_drift': ..., 'profile': ..., 'criteria': [...]}, warnings)."""
    settings = [r for r in records if isinstance(r, SettingsRecord)]
    drift = settings_drift(settings, roles)
    findings: dict = {"settings_drift": drift.to_json()}
    warnings = [f"settings drift ({', '.join(d.roles)}): {d.text}" for d in drift.drifts]
    if not profile_ref:
        return findings, warnings
    try:
        profile = load_profile(profile_ref, base_dir)
    except ProfileError as exc:
        findings["profile"] = {"ref": profile_ref, "error": str(exc)}
        warnings.append(f"profile {profile_ref} not judged: {exc}")
        return findings, warnings
    results = evaluate(profile, settings, roles)
    findings["profile"] = profile_json(profile, results)
    findings["criteria"] = profile_criteria(profile, results)
    warnings += [f"profile {profile.name}: {r.expectation.text} fails: {grouped(r, 'FAIL')}"
                 for r in results if r.status == "fail"]
    return findings, warnings


def profile_json(profile: Profile, results: list[ExpectationResult]) -> dict:
    """Every host's status per expectation; the values only where it is not PASS."""
    hosts: list[str] = []
    for result in results:
        hosts += [h.host for h in result.hosts if h.host not in hosts]
    return {
        "name": profile.name, "file": profile.file, "description": profile.description,
        "hosts": hosts,
        "expectations": [{
            "rule": r.expectation.text, "setting": r.expectation.setting,
            "origin": f"{profile.file}:{r.expectation.line}", "status": r.status,
            "roles": list(r.expectation.roles), "why": r.expectation.why,
            "source": r.expectation.source,
            "hosts": {h.host: h.status for h in r.hosts},
            "problems": [{"host": h.host, "setting": j.setting, "value": j.value,
                          "status": j.status}
                         for h in r.hosts for j in h.judged if j.status != "PASS"],
        } for r in results],
    }
