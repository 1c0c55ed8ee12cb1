"""The ipmitool command line for one BMC, and what its failure means, in one line.

Why here and not in the runner: the password rules live in one place. It never goes on the
command line a run keeps: `-E` with IPMI_PASSWORD in the command's environment (its value
is hidden in the saved command and registered with the run's redactor because of the
variable's name), or `-f FILE`, which ipmitool reads itself. With neither, an empty
IPMI_PASSWORD keeps ipmitool from asking on a terminal.

ipmitool's own words tell the failures apart (checked against OpenIPMI's ipmi_sim and
ipmitool 1.8.19, docs/ipmi.md): a BMC that never answers (nothing listens there, or a
firewall: 'Get Auth Capabilities error') and one that answers but refuses the login
('RAKP 2 HMAC is invalid': wrong password; 'unauthorized name': unknown user). Over
lanplus both end in the same 'Unable to establish IPMI v2 / RMCP+ session': only with -v
does ipmitool print the line before it, so the first command of a step runs with -v.
"""

from __future__ import annotations

import os

from stackprobe.spec.bmc import BmcSettings

# -N: seconds to wait for an answer, -R: retries; a BMC that is not there costs about 2 s here
TIMEOUT_S = 1
RETRIES = 1

_REFUSED = ("unauthorized name", "rakp 2 hmac is invalid", "invalid user name",
            "password invalid", "authentication type", "unable to read password",
            "insufficient privilege", "invalid session id", "rakp 4 message has invalid",
            "activate session error", "invalid authentication algorithm")
_SILENT = ("unable to establish ipmi v2", "unable to establish lan session",
           "no response from remote controller", "get auth capabilities error",
           "connection refused", "unable to resolve", "no route to host",
           "network is unreachable", "get channel cipher suites")
_OPEN = ("could not open device",)


class PasswordMissing(ValueError):
    """The environment variable a hosts file names for the password is not set."""


def ipmitool_argv(address: str, bmc: BmcSettings) -> tuple[list[str], dict[str, str]]:
    """(argv before the command words, environment to add) for one BMC."""
    if bmc.interface == "open":
        return ["ipmitool", "-I", "open"], {}
    argv = ["ipmitool", "-I", bmc.interface, "-H", address, "-p", str(bmc.port),
            "-N", str(TIMEOUT_S), "-R", str(RETRIES)]
    if bmc.user:
        argv += ["-U", bmc.user]
    if bmc.cipher_suite is not None:
        argv += ["-C", str(bmc.cipher_suite)]
    if bmc.password_file:
        return argv + ["-f", bmc.password_file], {}
    value = ""
    if bmc.password_env:
        value = os.environ.get(bmc.password_env, None)
        if value is None:
            raise PasswordMissing(f"the BMC password's variable {bmc.password_env} "
                                  "(password_env) is not set")
    return argv + ["-E"], {"IPMI_PASSWORD": value}


def where(address: str, bmc: BmcSettings) -> str:
    return "local /dev/ipmi0" if bmc.interface == "open" else f"{address}:{bmc.port}"


def failure(stderr: str, returncode: int | None, address: str, bmc: BmcSettings) -> str:
    """Why ipmitool got nothing from the BMC, in one line naming it."""
    text = stderr.lower()
    at = where(address, bmc)
    if any(w in text for w in _REFUSED):
        who = f"user {bmc.user!r}" if bmc.user else "the anonymous user"
        return f"BMC at {at} refused the login of {who} (wrong user or password?)"
    if any(w in text for w in _OPEN):
        return "no local BMC: /dev/ipmi0 cannot be opened (ipmi_devintf loaded? root?)"
    if any(w in text for w in _SILENT):
        return (f"BMC at {at} does not answer (nothing listening there, or the network "
                f"drops IPMI)")
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return f"BMC at {at}: " + (lines[-1][:200] if lines else f"ipmitool exit {returncode}")
