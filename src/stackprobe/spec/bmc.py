"""hosts.yaml: how a host's BMC is reached over IPMI (the `bmc:` of a host entry).

    hosts:
      - name: node1-bmc
        access: management
        address: 192.0.2.111
        bmc:
          interface: lanplus            # lanplus (IPMI 2.0), lan (IPMI 1.5), open (/dev/ipmi0)
          port: 623
          user: admin
          cipher_suite: 3               # ipmitool -C; 17 is its default, some BMCs refuse it
          password_env: BMC_PASSWORD    # or password_file: /root/.bmc-pass

The password is never written here nor in a suite, and never on a command line a run keeps:
it is read from the named environment variable and handed to ipmitool as IPMI_PASSWORD
(`-E`), or ipmitool reads the named file itself (`-f`). A `password:` key is refused.
`interface: open` asks the BMC of the machine stackprobe runs on, through its own
/dev/ipmi0 (needs root), and takes no address, user or password.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

IPMI_PORT = 623


class BmcSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    interface: Literal["lanplus", "lan", "open"] = "lanplus"
    port: int = Field(default=IPMI_PORT, ge=1, le=65535)
    user: str | None = Field(default=None, min_length=1, max_length=16)
    cipher_suite: int | None = Field(default=None, ge=0, le=17)
    password_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    password_file: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_password(cls, data):
        if isinstance(data, dict) and "password" in data:
            raise ValueError("password: never in the hosts file; name where it is with "
                             "password_env (an environment variable) or password_file")
        return data

    @field_validator("password_file")
    @classmethod
    def _absolute(cls, v):
        if v is not None and not v.startswith("/"):
            raise ValueError(f"{v!r}: an absolute path")
        return v

    @model_validator(mode="after")
    def _one_source(self):
        if self.password_env and self.password_file:
            raise ValueError("password_env and password_file: give one of them")
        if self.interface != "lanplus" and self.cipher_suite is not None:
            raise ValueError("cipher_suite: only for interface lanplus")
        return self
