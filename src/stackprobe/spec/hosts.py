"""hosts.yaml: the machines of a cluster, how to reach them, and what to test on each.

    ssh:                         # defaults for every host
      user: root
      identity: ~/.ssh/id_ed25519
      known_hosts: ~/.ssh/known_hosts   # or "none": accept any host key (labs only)
      config: ~/.ssh/config             # the OpenSSH client config read (the default; "none")
    hosts:
      - name: node1
        address: 192.0.2.11
        roles: [client, storage]        # steps select hosts by role or by name
        nic_speed_mbps: 25000           # expected link speed: slower pairs are flagged
        links: {eth0: 25000, "mlx5_0/1": 100000}  # expected speed (Mb/s) per NIC, IB port
                                        #   (device/port) or bond: link_state flags less
        directories: [/srv/bench]       # where disk tests may write (stackprobe's own subdir)
        devices: [/dev/nvme0n1]         # raw devices for read-only disk baselines
        ssh: {port: 2222}               # per-host overrides
        ceph:                           # how this host reaches Ceph (default: the run's
          conf: /etc/ceph/ceph.conf     #   conf, client and keyring, same paths everywhere)
          client: bench1                #   a cephx user of its own (client.bench1)
          keyring: /etc/ceph/ceph.client.bench1.keyring
      - name: ceph1
        access: local                   # this machine itself: commands run here, no SSH
        roles: [storage]
      - name: node1-bmc
        access: management              # a management controller (BMC): no shell at all
        address: 192.0.2.111

How a step meets its hosts is its kind's (`HostMode`: each on its own, all together, in
pairs, or the controller alone), and what it needs of them (`Reach`): a shell (SSH or
local entries) or a management controller (management entries). `hosts: all` and roles
select the hosts a kind can reach; naming one it cannot is an error.

Validated like suites: an error names the file, line and field.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from stackprobe.spec.bmc import BmcSettings


class HostMode(StrEnum):
    """How a kind meets the hosts of `--hosts` when a step names some."""

    CONTROLLER = "controller"  # the controller alone: `hosts:` is refused
    EACH = "each"  # each host on its own, all at once; the hosts compared with each other
    FLEET = "fleet"  # all hosts together, driven from the controller, started at once
    PAIRS = "pairs"  # ordered pairs of hosts, one pair at a time (network, MPI)


class Reach(StrEnum):
    """What of a host a kind needs."""

    SHELL = "shell"  # commands on the host: over SSH, or here for a `local` entry
    MANAGEMENT = "management"  # its management controller (a BMC), no shell

    @property
    def words(self) -> str:
        return "shell" if self is Reach.SHELL else "management controller"


LOCAL_ADDRESS = "127.0.0.1"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SshSettings(_Strict):
    user: str | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    identity: str | None = None
    known_hosts: str | None = None  # a file, or "none"
    config: str | None = None  # OpenSSH client config; unset: ~/.ssh/config when there
    # what ssh is given (the name the config's Host blocks match) when the address is the
    # config's HostName for it; unset: the address (cli/hosts_arg.py sets it)
    destination: str | None = None
    connect_timeout: float | None = Field(default=None, gt=0)


class HostCeph(_Strict):
    """How one client host reaches the Ceph cluster: paths as they are on that host."""

    conf: str | None = None  # None: the run's conf path (the same on every host)
    client: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+$")  # cephx id
    keyring: str | None = None

    @field_validator("conf", "keyring")
    @classmethod
    def _absolute(cls, v):
        if v is not None and (not v.startswith("/") or ".." in v.split("/")):
            raise ValueError(f"{v!r}: an absolute path without '..'")
        return v


class Host(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    address: str | None = Field(default=None, min_length=1)  # local entries: 127.0.0.1
    # ssh: commands over SSH; local: this machine itself, no SSH; management: a BMC address
    access: Literal["ssh", "local", "management"] = "ssh"
    roles: list[str] = Field(default_factory=lambda: ["client"])
    nic_speed_mbps: int | None = Field(default=None, gt=0)
    # expected speed (Mb/s) per NIC, InfiniBand port ('mlx5_0/1') or bond (link_state)
    links: dict[str, Annotated[int, Field(gt=0)]] = Field(default_factory=dict)
    directories: list[str] = Field(default_factory=list)
    devices: list[str] = Field(default_factory=list)
    ssh: SshSettings = Field(default_factory=SshSettings)
    ceph: HostCeph | None = None
    bmc: BmcSettings | None = None  # how its BMC is reached over IPMI (spec/bmc.py)

    @model_validator(mode="after")
    def _address(self):
        if self.address is None:
            if self.access != "local":
                raise ValueError(f"{self.name}: address is required (only `access: local` "
                                 "entries may leave it out)")
            self.address = LOCAL_ADDRESS
        return self

    @property
    def reach(self) -> Reach:
        return Reach.MANAGEMENT if self.access == "management" else Reach.SHELL

    @field_validator("directories")
    @classmethod
    def _absolute(cls, v):
        for d in v:
            if not d.startswith("/") or ".." in d.split("/"):
                raise ValueError(f"{d!r}: directories must be absolute paths without '..'")
        return v

    @field_validator("devices")
    @classmethod
    def _devices(cls, v):
        for d in v:
            if not d.startswith("/dev/") or ".." in d.split("/"):
                raise ValueError(f"{d!r}: devices are /dev/... paths")
        return v


class HostsFile(_Strict):
    ssh: SshSettings = Field(default_factory=SshSettings)
    hosts: list[Host] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self):
        for attr in ("name", "address"):
            seen: set[str] = set()
            for h in self.hosts:
                value = getattr(h, attr)
                if value in seen:
                    raise ValueError(f"two hosts have the {attr} {value!r}")
                seen.add(value)
        return self

    def ssh_for(self, host: Host) -> SshSettings:
        """The host's SSH settings: its own, else the file's defaults."""
        merged = self.ssh.model_dump()
        merged.update({k: v for k, v in host.ssh.model_dump().items() if v is not None})
        return SshSettings(**merged)

    def select(self, selector: str | list[str], reach: Reach = Reach.SHELL) -> list[Host]:
        """Hosts for a step: 'all', a role, a host name, or a list of names/roles. 'all'
        and roles keep the hosts offering `reach`; naming a host that does not is an error."""
        items = selector if isinstance(selector, list) else [selector]
        chosen: list[Host] = []
        for item in items:
            if item == "all":
                found = [h for h in self.hosts if h.reach is reach]
                if not found:
                    raise ValueError(f"no host offers a {reach.words}")
            elif any(item in h.roles for h in self.hosts):
                found = [h for h in self.hosts if item in h.roles and h.reach is reach]
                if not found:
                    raise ValueError(f"no host of role {item!r} offers a {reach.words}")
            else:
                found = [h for h in self.hosts if h.name == item]
                if not found:
                    raise ValueError(f"no host has the name or role {item!r}")
                if found[0].reach is not reach:
                    raise ValueError(f"{item} is an `access: {found[0].access}` entry: it "
                                     f"offers no {reach.words}")
            chosen += [h for h in found if h not in chosen]
        return chosen
