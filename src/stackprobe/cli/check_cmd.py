"""`stackprobe check [--hosts FILE] [--profile NAME|FILE] [--probe-root DIR]`: the checks
before any benchmark.

Seed 004 accepted no load test before every server's settings, power management and IPMI
had been looked at. This runs the built-in `check` suite — every host's settings (read, never
changed), the settings that differ between hosts of one role, a profile's expectations, every
BMC, the hardware's health counters — without load, in seconds, stored as a run like any
other (so `show`, `compare`, `history` read it) and ending in the same verdict and exit status
as `run`. Without --hosts it checks this machine.

The options change the built-in suite before it is planned, and the suite as changed is the
one kept in the run directory: --profile names the settings step's profile (`none`: no
profile), --probe-root makes every step that reads a host's files read a recorded tree
instead (`{host}` in it stands for each host's name) — trees collected from machines
elsewhere are checked the same way.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer
import yaml

from stackprobe.cli import judging as judge_opts
from stackprobe.cli import options

SUITE = "check"
NO_PROFILE = "none"


def check(
    hosts_file: Path = typer.Option(
        None, "--hosts", help="Check these machines (over SSH) and their BMCs; default: this "
        "machine. " + options.HOSTS_HELP),
    ssh_user: str = options.SSH_USER,
    ssh_port: int = options.SSH_PORT,
    ssh_config: Path = options.SSH_CONFIG,
    profile: str = typer.Option(
        None, "--profile", metavar="NAME|FILE", help="Expected settings: a built-in profile's "
        "name or a YAML file (default: the suite's, hpc-storage); 'none' for no profile."),
    probe_root: str = typer.Option(
        None, "--probe-root", metavar="DIR", help="Read a recorded tree standing for each "
        "host's / instead of the live host ('{host}' in it: the host's name)."),
    out: Path = options.OUT,
    strict: bool = judge_opts.STRICT,
    junit: Path = judge_opts.JUNIT,
) -> None:
    """Check settings, drift, a profile, the BMCs and health counters without load; exit 3
    when a criterion fails (docs/settings.md)."""
    from stackprobe.cli.hosts_arg import SshOptions
    from stackprobe.cli.run_cmd import run_loaded
    from stackprobe.suite.loader import load_suite

    loaded = check_suite(load_suite(SUITE), on_hosts=hosts_file is not None, profile=profile,
                         probe_root=probe_root)
    run_loaded(loaded, hosts_file=hosts_file, ssh=SshOptions(ssh_user, ssh_port, ssh_config),
               target=None, out=out, strict=strict, junit=junit,
               monitor=False, health=False, command_line=tuple(sys.argv))


def check_suite(loaded, *, on_hosts: bool, profile: str | None, probe_root: str | None):
    """The built-in suite with the options applied: steps on this machine without --hosts,
    the profile and the probe root set. Returns a LoadedSuite whose text is the suite run."""
    from dataclasses import replace

    from stackprobe.kinds import registry
    from stackprobe.spec.settings_profile import is_path
    from stackprobe.suite.loader import parse_suite

    data = yaml.safe_load(loaded.text)
    for step in data["steps"]:
        if not on_hosts:
            step.pop("hosts", None)
        fields = registry.kind(step["kind"]).spec.model_fields  # what the step's kind takes
        if "profile" in fields and profile is not None:
            if profile == NO_PROFILE:
                step.pop("profile", None)
            else:
                step["profile"] = str(Path(profile).resolve()) if is_path(profile) else profile
        if "probe_root" in fields and probe_root is not None:
            step["probe_root"] = probe_root
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    return replace(loaded, suite=parse_suite(text, f"{SUITE}.yaml"), text=text)

