"""Enough file descriptors for one SSH connection per host.

A run keeps one SSH connection (one socket) per host for its whole length, beside the
files, pipes and sockets it opens anyway. Debian's default soft limit is 1,024 open files
per process (hard: 524,288 under systemd): a run over a thousand hosts would fail halfway
through connecting with EMFILE. Before connecting, the soft limit is raised as far as the
run needs — never past the hard limit, which only root may raise; when the hard limit is too
low the run stops before any load with one line saying how to raise it.
"""

from __future__ import annotations

import resource

from stackprobe.errors import UserError

HEADROOM = 256  # the run's own files, pipes and sockets beside the connections


def needed(connections: int) -> int:
    return connections + HEADROOM


def ensure_open_files(connections: int) -> int:
    """Raise this process's soft RLIMIT_NOFILE to cover `connections` SSH connections;
    the soft limit now. UserError (one line) when the hard limit is below the need."""
    want = needed(connections)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= want:
        return soft
    if hard != resource.RLIM_INFINITY and hard < want:
        raise UserError(f"{connections} hosts need about {want} open files; this process may "
                        f"open at most {hard} (ulimit -Hn): raise the hard limit "
                        "(limits.conf nofile, or LimitNOFILE= for a service) or split the hosts")
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return want
