"""The `settings` kind: every setting of every host that changes what a benchmark
measures — CPU (SMT, governor, turbo, C-states), kernel (version, command line,
mitigations, sysctls, THP), firmware (BIOS, board, BMC), memory (DIMMs), NICs (MTU,
rings, offloads, firmware), disks (scheduler, read-ahead, write cache), mounts, tuned,
irqbalance and time — read only, each with the file or command it came from.

Why before any load: seed 004 turns hyper-threading and power management off and sets the
OS before its first benchmark, and seed 001 reports each machine's governor, scheduler,
mount options and mitigations; a host set differently from its role explains its figures
before they are measured. One probe per host (kinds/host/settings_probe_script.py), all
hosts at once, parsed by parsers/host/settings_probe.py; docs/settings.md lists the names.

`probe_root:` reads a recorded tree instead of the live host (`{host}` in it stands for
each host's name). Without `--hosts` it probes this machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import field_validator

from stackprobe.kinds.context import StepContext, StepOutcome, failure_message
from stackprobe.kinds.contract import HostMode, Kind, Tool
from stackprobe.kinds.host.settings_checks import CHECKS
from stackprobe.kinds.host.settings_judging import judge_settings
from stackprobe.kinds.host.settings_probe_script import probe_argv
from stackprobe.kinds.host.settings_table import settings_tables
from stackprobe.kinds.host.settings_tables import settings_judging_tables
from stackprobe.kinds.probes import ReadsTrees, probe_hosts, probes_outcome
from stackprobe.parsers.host.settings_probe import parse_settings_probe
from stackprobe.schema.settings_records import SettingsRecord
from stackprobe.spec.settings_profile import ProfileError, builtin_profiles, is_path, load_profile
from stackprobe.spec.steps import StepSpec


class SettingsStep(StepSpec, ReadsTrees):
    """Every setting of each host, read only, with its source (sysfs, procfs, /etc,
    ethtool, dmidecode, ipmitool, chronyc, timedatectl, tuned-adm)."""

    kind: Literal["settings"]
    # probe_root (kinds/probes.py): <probe_root>/sys, /proc, /etc and /commands are read
    # instead of the live host's
    # a profile's name or path: the settings every host is expected to have
    profile: str | None = None
    # paths whose mounts to report besides block-device and network filesystems
    mounts: list[str] = []

    @field_validator("profile")
    @classmethod
    def _known(cls, v):
        """A profile by name must be a built-in one (refused with the suite's line); a file
        is read when the step is planned, against the suite's directory."""
        if v is not None and not is_path(v) and v not in builtin_profiles():
            raise ValueError(f"{v!r}: not a built-in profile ({', '.join(builtin_profiles())})"
                             " nor a profile file (a path, or a name ending in .yaml)")
        return v

    @field_validator("mounts")
    @classmethod
    def _paths(cls, v):
        for path in v:
            if not path.startswith("/"):
                raise ValueError(f"{path!r}: an absolute path")
        return v


class SettingsRunner:
    def prepare(self, ctx: StepContext) -> None:
        pass

    def run(self, ctx: StepContext) -> StepOutcome:
        spec: SettingsStep = ctx.step.spec
        probed_hosts = probe_hosts(ctx, "settings-probe", probe_argv)
        if probed_hosts is None:
            return StepOutcome.stopped()
        # drift is judged within each role of the hosts file
        roles = {p.name: list(p.host.roles) for p in probed_hosts if p.host is not None}
        records: list[SettingsRecord] = []
        warnings: list[str] = []
        probed = []
        for one in probed_hosts:
            name, res = one.name, one.result
            if not res.ok:
                warnings.append(f"{name}: settings probe failed: {failure_message(res, 'sh')}")
                continue
            try:
                found = parse_settings_probe(res.stdout, host=name, mounts=tuple(spec.mounts))
            except ValueError as exc:
                warnings.append(f"{name}: {exc}")
                continue
            probed.append(name)
            records.append(found.record)
            warnings += found.warnings
        findings = {"settings": {"hosts": probed, "probe_root": spec.probe_root}}
        judged, said = judge_settings(records, roles, spec.profile, None)
        findings.update(judged)
        warnings += said
        return probes_outcome(probed, records, warnings, findings)

    def cleanup(self, ctx: StepContext) -> None:
        pass


class Settings(Kind):
    name = "settings"
    spec = SettingsStep
    layer = "hardware"
    family = "host"
    hosts = HostMode.FLEET
    records = (SettingsRecord,)
    # each read only where installed: the probe reads sysfs, procfs and /etc without them.
    # chronyc too, but it is not declared: Debian's chrony replaces systemd-timesyncd and
    # polls public NTP servers, which a test machine must not do; a host running chronyd
    # has chronyc, and the probe asks it only there
    tools = (Tool("dmidecode", "dmidecode", ("dmidecode", "--version"),
                  "BIOS, board and DIMM settings (as root)"),
             Tool("ethtool", "ethtool", ("ethtool", "--version"), "NIC rings, offloads, firmware"),
             Tool("ipmitool", "ipmitool", ("ipmitool", "-V"), "BMC firmware"))

    checks = CHECKS

    def needs(self, spec):
        return ()  # the probe runs without them, reading sysfs and procfs

    def expand(self, spec, defaults, base_dir):
        """A profile is read now: a misspelt name or a broken file is refused before the
        run (one line, file:line: field), and a profile path is made absolute against the
        suite's directory, so the run reads the file the suite meant."""
        for concrete, swept in super().expand(spec, defaults, base_dir):
            if concrete.profile is not None:
                try:
                    load_profile(concrete.profile, base_dir)
                except ProfileError as exc:
                    raise ProfileError(f"settings step: profile: {exc}") from None
                if is_path(concrete.profile) and base_dir is not None:
                    path = Path(base_dir) / concrete.profile  # an absolute one stays itself
                    concrete = concrete.model_copy(update={"profile": str(path)})
            yield concrete, swept

    def title(self, spec: SettingsStep, name):
        return spec.trees_title("Settings")

    def estimate_s(self, spec, hosts):
        return 5.0

    def runner(self):
        return SettingsRunner()

    def rows(self, step):
        return []  # settings are not figures

    def tables(self, steps):
        return settings_tables(steps) + settings_judging_tables(steps)


KIND = Settings()
