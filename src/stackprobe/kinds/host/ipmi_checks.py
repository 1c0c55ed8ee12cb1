"""The BMC findings as acceptance criteria: 'every BMC answers', 'no sensor out of range',
'no SEL error', 'no chassis fault'.

Each reads the step's BmcRecords (schema/bmc_records.py) and names what it found: the BMC
and why it did not answer, the sensor and its reading against the threshold it crossed,
the SEL entry's id, sensor and event, the chassis fault. A BMC that did not answer has no
sensors, log or chassis to judge: those three checks leave it out (its own criterion fails).
"""

from __future__ import annotations

from stackprobe.kinds.checks import Check, Outcome


def _bmcs(steps):
    for step in steps:
        for rec in step.records:
            if getattr(rec, "type", None) == "bmc":
                yield step, rec


def _name(rec) -> str:
    return rec.host or rec.address or "BMC"


class EveryBmcAnswers(Check):
    phrase = "every bmc answers"
    aliases = ("every bmc reachable",)
    looks_at = "BMCs"
    describes = "every BMC answered ipmitool and accepted the login"

    def all_well(self, outcomes):
        return f"{len(outcomes)} BMCs, all answered"

    def outcomes(self, results, steps, argument=""):
        return [Outcome(rec.reachable, f"{_name(rec)}: " + (
            f"answers (firmware {rec.info.firmware if rec.info else '?'})" if rec.reachable
            else rec.problem or "does not answer"), (step.id,)) for step, rec in _bmcs(steps)]


class NoSensorOutOfRange(Check):
    phrase = "no sensor out of range"
    looks_at = "sensors"
    describes = "no BMC sensor beyond its thresholds or in a non-ok threshold status"

    def outcomes(self, results, steps, argument=""):
        return [Outcome(not s.out_of_range, f"{_name(rec)} {s.name}: "
                        + (s.out_of_range or "within range"), (step.id,))
                for step, rec in _bmcs(steps) if rec.reachable
                for s in rec.sensors if not s.discrete]


class NoSelError(Check):
    phrase = "no sel error"
    aliases = ("no bmc event error",)
    looks_at = "event logs"
    describes = "no asserted failure (fail, fault, critical, uncorrectable, ...) in a BMC's SEL"

    def all_well(self, outcomes):
        return f"{len(outcomes)} event logs, no error entry"

    def outcomes(self, results, steps, argument=""):
        out = []
        for step, rec in _bmcs(steps):
            if not rec.reachable:
                continue
            bad = rec.sel_errors
            text = "; ".join(f"SEL {e.id} {e.sensor}: {e.event}" for e in bad)
            out.append(Outcome(not bad, f"{_name(rec)}: " + (
                text or f"{len(rec.sel)} entries, no error"), (step.id,)))
        return out


class NoChassisFault(Check):
    phrase = "no chassis fault"
    looks_at = "chassis"
    describes = "no power, drive or cooling fault latched by the chassis, no intrusion"

    def outcomes(self, results, steps, argument=""):
        return [Outcome(not rec.chassis.faults, f"{_name(rec)}: " + (
            ", ".join(rec.chassis.faults) or "power " + {True: "on", False: "off"}.get(
                rec.chassis.power_on, "unknown") + ", no fault"), (step.id,))
                for step, rec in _bmcs(steps) if rec.reachable and rec.chassis is not None]


CHECKS = (EveryBmcAnswers(), NoSensorOutOfRange(), NoSelError(), NoChassisFault())
