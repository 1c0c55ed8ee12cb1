"""Where every hosts form adds its hosts, so all of them refuse the same things the same way.

A form adds a host by name at the line that names it, gives it roles and settings
(address, user, port, identity) each with the line that says it; the book refuses a host
named twice where the form says a name may appear once, a setting given two different
values, and more than `MAX_HOSTS` hosts — each as one line naming the file, the line and
the field — and makes the `HostsFile` the run reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import ValidationError

from stackprobe.spec.hosts import Host, HostsFile, SshSettings

# Far above any cluster a run reaches from one controller, far below what would take
# seconds or megabytes to expand: `n[1-99999999]` is refused before it is expanded.
MAX_HOSTS = 4096
DEFAULT_ROLE = "client"
SSH_FIELDS = ("user", "port", "identity")


@dataclass
class Draft:
    name: str
    line: int
    roles: list[str] = field(default_factory=list)
    settings: dict[str, tuple[object, int]] = field(default_factory=dict)  # field → (value, line)


class HostBook:
    def __init__(self, filename: str):
        self.filename = filename
        self.drafts: dict[str, Draft] = {}

    def fail(self, line: int, what: str, problem: str) -> ValueError:
        """The one-line error: whatever a name holds (a newline, a control character), the
        message stays one line."""
        return ValueError(" ".join(f"{self.filename}:{line}: {what}: {problem}".split()))

    def add(self, name: str, line: int, role: str | None = None, *, once: bool = True) -> Draft:
        """The host `name`, new or (when `once` is false) as added before; with `role`."""
        draft = self.drafts.get(name)
        if draft is None:
            if len(self.drafts) >= MAX_HOSTS:
                raise self.fail(line, name, f"more than {MAX_HOSTS} hosts")
            draft = self.drafts[name] = Draft(name, line)
        elif once:
            raise self.fail(line, name, f"listed twice (first on line {draft.line})")
        if role is not None and role not in draft.roles:
            draft.roles.append(role)
        return draft

    def set(self, draft: Draft, key: str, value: object, line: int) -> None:
        """A setting of the host; the same one with another value is refused."""
        before = draft.settings.get(key)
        if before is not None and before[0] != value:
            raise self.fail(line, key, f"{draft.name}: {value!r} here, {before[0]!r} on line "
                            f"{before[1]}")
        draft.settings.setdefault(key, (value, line))

    def hosts_file(self) -> HostsFile:
        if not self.drafts:
            raise self.fail(1, "hosts", "no host in it")
        hosts = [self._host(d) for d in self.drafts.values()]
        seen: dict[str, Draft] = {}
        for h, d in zip(hosts, self.drafts.values()):
            if h.address in seen:
                line = d.settings.get("address", (None, d.line))[1]
                raise self.fail(line, "address", f"{d.name}: {h.address} is also the address "
                                f"of {seen[h.address].name}")
            seen[h.address] = d
        try:
            return HostsFile(hosts=hosts)
        except ValidationError as exc:
            raise self.fail(1, "hosts", _first_error(exc)) from None

    def _host(self, d: Draft) -> Host:
        values = {k: v for k, (v, _) in d.settings.items()}
        ssh = {k: values[k] for k in SSH_FIELDS if k in values}
        data = {"name": d.name, "address": values.get("address", d.name),
                "roles": d.roles or [DEFAULT_ROLE]}
        if values.get("access"):
            data["access"] = values["access"]
        try:
            return Host(**data, ssh=SshSettings(**ssh))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = str(err["loc"][0]) if err["loc"] else "name"
            line = d.settings.get(loc, (None, d.line))[1]
            raise self.fail(line, loc, f"{d.name}: {_first_error(exc)}") from None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return " ".join(str(err["msg"]).split())[:200]
