"""`--hosts` and the `--ssh-*` options as every command reads them: the hosts (any form
suite/hosts_value.py reads) with the command line's SSH settings laid over the file's."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from stackprobe.errors import UserError


@dataclass(frozen=True)
class SshOptions:
    user: str | None = None
    port: int | None = None
    config: Path | None = None

    def given(self) -> list[str]:
        return [flag for flag, v in (("--ssh-user", self.user), ("--ssh-port", self.port),
                                     ("--ssh-config", self.config)) if v is not None]


def load(value, ssh: SshOptions = SshOptions()):
    """The HostsFile of `--hosts` (None without it), the `--ssh-*` options applied."""
    from stackprobe.spec.host_sources.ssh_options import with_ssh_options
    from stackprobe.suite.hosts_value import load_hosts_value

    if value is None:
        if ssh.given():
            raise UserError(f"{', '.join(ssh.given())}: only with --hosts")
        return None
    config = None
    if ssh.config is not None and str(ssh.config).lower() == "none":
        config = "none"
    elif ssh.config is not None:
        if not ssh.config.is_file() or not os.access(ssh.config, os.R_OK):
            raise UserError(f"--ssh-config {ssh.config}: no such readable file")
        config = str(ssh.config.resolve())
    return config_addresses(with_ssh_options(load_hosts_value(value), user=ssh.user,
                                             port=ssh.port, config=config))


def config_addresses(hosts):
    """Hosts known by name alone (`node[01-16]`, an inventory without ansible_host) get
    the ssh config's HostName as their address — what fio, iperf3 and the other tools that
    connect to a host directly need — and keep their name as what ssh is given, so the
    config's `Host` blocks still match it."""
    from pydantic import ValidationError

    from stackprobe.spec.hosts import HostsFile
    from stackprobe.transport.ssh import config_hostname

    data = hosts.model_dump()
    changed = False
    for host, raw in zip(hosts.hosts, data["hosts"]):
        if host.access != "ssh" or host.address != host.name:
            continue
        try:
            address = config_hostname(host.name, hosts.ssh_for(host))
        except ValueError as exc:
            raise UserError(f"{host.name}: {exc}") from None
        if address != host.name:
            raw["address"] = address
            raw["ssh"]["destination"] = host.name
            changed = True
    if not changed:
        return hosts
    try:
        return HostsFile.model_validate(data)
    except ValidationError as exc:
        raise UserError("--hosts: with the ssh config's HostName: "
                        + " ".join(str(exc.errors()[0]["msg"]).split())) from None


def stored(value) -> str | None:
    """--hosts as the run keeps it for `resume`."""
    from stackprobe.suite.hosts_value import stored as _stored

    return None if value is None else _stored(value)
