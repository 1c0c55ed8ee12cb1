"""`stackprobe doctor [--hosts H] [--json]`: every external tool, found or missing, its
version, the apt-get line; which built-in suites can run here; and with --hosts, each host:
reachable, its tools, its free space, its clock.

Exit 0 when the tools the default suite needs are present and every host answers; 2 when
the default suite misses a tool or a host cannot be reached.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import typer

from stackprobe.cli import options


def doctor(
    hosts_value: Path = typer.Option(None, "--hosts", help="Check these hosts too. "
                                     + options.HOSTS_HELP),
    ssh_user: str = options.SSH_USER,
    ssh_port: int = options.SSH_PORT,
    ssh_config: Path = options.SSH_CONFIG,
    as_json: bool = typer.Option(False, "--json", help="Print the findings as one JSON document."),
) -> None:
    """List the tools stackprobe can use, what to install for the missing ones, which
    built-in suites can run here, and (--hosts) whether each host is ready."""
    from stackprobe.cli import hosts_arg
    from stackprobe.cli.doctor_local import local_tools, suite_findings
    from stackprobe.engine.preflight import required_tools
    from stackprobe.engine.tools import all_tools, unmet
    from stackprobe.plan.expand import expand
    from stackprobe.suite.loader import DEFAULT_SUITE, load_suite

    hosts = hosts_arg.load(hosts_value, hosts_arg.SshOptions(ssh_user, ssh_port, ssh_config))
    tools = local_tools()
    found = {t.name: t.version is not None for t in tools}
    blocking = unmet(required_tools(expand(load_suite(DEFAULT_SUITE).suite)), found.get)
    suites = suite_findings(found)
    on_hosts = []
    if hosts is not None:
        from stackprobe.cli.doctor_hosts import check_hosts

        on_hosts = check_hosts(hosts, all_tools())
    unreachable = [h.name for h in on_hosts if not h.reachable]
    if as_json:
        print(json.dumps({
            "tools": [asdict(t) for t in tools],
            "default_suite": {"name": DEFAULT_SUITE, "missing": blocking},
            "suites": [s.as_json() for s in suites],
            "hosts": [asdict(h) for h in on_hosts],
        }, indent=2))
    else:
        from stackprobe.cli.doctor_print import print_findings

        print_findings(tools, blocking, suites, on_hosts)
    if blocking or unreachable:
        raise typer.Exit(2)
