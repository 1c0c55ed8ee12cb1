"""The command line's SSH settings (`--ssh-user`, `--ssh-port`, `--ssh-config`) laid over
a hosts file's, so the order is the one OpenSSH users expect: the command line, then the
hosts file (its `ssh:` defaults and each host's own), then the ssh config, then OpenSSH's
defaults (the user running stackprobe, port 22). What a setting leaves unset is left to the
ssh config by the transport (transport/ssh.py `connect_options`).
"""

from __future__ import annotations

from stackprobe.spec.hosts import HostsFile


def with_ssh_options(hosts: HostsFile, *, user: str | None = None, port: int | None = None,
                     config: str | None = None) -> HostsFile:
    """`hosts` with the command line's settings over every host's."""
    given = {k: v for k, v in (("user", user), ("port", port), ("config", config))
             if v is not None}
    if not given:
        return hosts
    data = hosts.model_dump()
    data["ssh"].update(given)
    for host in data["hosts"]:
        host["ssh"].update(given)
    return HostsFile.model_validate(data)
