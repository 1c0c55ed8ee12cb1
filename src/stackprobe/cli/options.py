"""Options several commands share, said once."""

from __future__ import annotations

import typer

from stackprobe.cli.runs_dir import resolve_option
from stackprobe.errors import UserError

# where runs are: this option, else $STACKPROBE_RUNS, the config file's runs_dir, ./runs
# (cli/runs_dir.py); --out/-o is its older spelling
OUT = typer.Option(
    None, "--runs-dir", "--out", "-o", callback=resolve_option, show_default=False,
    help="Where run directories are (default: $STACKPROBE_RUNS, runs_dir in "
    "~/.config/stackprobe/config.yaml, else ./runs).",
)


def complete_suite(incomplete: str) -> list[str]:
    """Shell completion of a SUITE: the built-in names (files complete as files)."""
    from stackprobe.suite.loader import builtin_names

    return [n for n in builtin_names() if n.startswith(incomplete)]


SUITE = typer.Argument(
    None, autocompletion=complete_suite,
    help="Built-in suite name (quick, standard; `stackprobe suites` lists them), a suite "
    "YAML file, or a fio job file (run unchanged as a one-step suite).")
SET = typer.Option(
    None, "--set", metavar="KEY=VALUE",
    help="Change the suite: KEY=VALUE sets its defaults (runtime=60, size=4G), "
    "STEP.KEY=VALUE one step by name (or every step of a kind); repeatable; validated like the YAML.",
)


def check_format(fmt: str, formats: tuple[str, ...]) -> None:
    """Refuse a --format the command does not write, naming the ones it does."""
    if fmt not in formats:
        raise UserError(f"--format {fmt}: choose one of {', '.join(formats)}")


# SSH for the hosts of --hosts, over the hosts file's settings and the ssh config's
# (cli/hosts_arg.py; docs/multi-host.md "SSH settings and their precedence")
SSH_USER = typer.Option(None, "--ssh-user", help="Log in to every host as this user.")
SSH_PORT = typer.Option(None, "--ssh-port", min=1, max=65535, help="SSH port of every host.")
SSH_CONFIG = typer.Option(None, "--ssh-config", metavar="FILE",
                          help="OpenSSH client config to read instead of ~/.ssh/config "
                          "('none': none at all).")
HOSTS_HELP = ("The hosts: hosts.yaml, an MPI hostfile, an Ansible inventory, ROLE:HOSTFILE, "
              "or names and ranges ('storage:oss[1-8],client:node[01-16]').")
