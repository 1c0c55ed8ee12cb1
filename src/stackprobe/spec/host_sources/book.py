"""Where every hosts form adds its hosts, so all of them refuse the same things the same way.

A form adds a host by name at the line that names it, gives it roles and settings
(address, user, port, identity) each with the line that says it; the book refuses a host
named twice where the form says a name may appear once, a setting given two different
values, and more than `MAX_HOSTS` hosts — each naming the file, the line and the field —
and makes the `HostsFile` the run reads.

Every problem of a file is reported, not only the first: whoever fixes an inventory with an
unknown group, a duplicate and a bad range should not learn of them one run at a time. A
form notes a problem it can read past (`note`: the host is not added again, the setting
keeps its first value, the line is skipped) and goes on; one it cannot read past (`fail`:
unreadable YAML, too many hosts) ends the reading with the problems noted before it. The
error is still one line — the CLI prints a UserError as one line, and the fuzz targets hold
every parser to that — with one `file:line: field: problem` per problem in the file's
order, joined by "; ", at most `MAX_PROBLEMS` of them and then how many more.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import ValidationError

from stackprobe.spec.hosts import Host, HostsFile, SshSettings

# Far above any cluster a run reaches from one controller, far below what would take
# seconds or megabytes to expand: `n[1-99999999]` is refused before it is expanded.
MAX_HOSTS = 4096
MAX_PROBLEMS = 20  # listed in the error; a file with more has a count of the rest
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
        self.problems: list[tuple[int, str]] = []  # noted so far: (line, 'file:line: field: problem')

    def problem(self, line: int, what: str, problem: str) -> str:
        """One problem as one line: whatever a name holds (a newline, a control character)."""
        return " ".join(f"{self.filename}:{line}: {what}: {problem}".split())

    def note(self, line: int, what: str, problem: str) -> None:
        """A problem the form reads past; reported with the others when the file is read."""
        self.problems.append((line, self.problem(line, what, problem)))

    def fail(self, line: int, what: str, problem: str) -> ValueError:
        """A problem that ends the reading: the error to raise, with the problems before it."""
        return self.error([*self.problems, (line, self.problem(line, what, problem))])

    def error(self, problems: list[tuple[int, str]]) -> ValueError:
        """One line: the problems in the file's order, at most MAX_PROBLEMS of them."""
        shown = [text for _, text in sorted(problems, key=lambda p: p[0])[:MAX_PROBLEMS]]
        more = len(problems) - len(shown)
        return ValueError("; ".join(shown) + (f"; and {more} more problems" if more > 0 else ""))

    def check(self) -> None:
        """Raise the problems noted so far, if any."""
        if self.problems:
            raise self.error(self.problems)

    def add(self, name: str, line: int, role: str | None = None, *, once: bool = True) -> Draft:
        """The host `name`, new or (when `once` is false) as added before; with `role`. A
        host named again where it may appear once is noted, and not added twice."""
        draft = self.drafts.get(name)
        if draft is None:
            if len(self.drafts) >= MAX_HOSTS:
                raise self.fail(line, name, f"more than {MAX_HOSTS} hosts")
            draft = self.drafts[name] = Draft(name, line)
        elif once:
            self.note(line, name, f"listed twice (first on line {draft.line})")
        if role is not None and role not in draft.roles:
            draft.roles.append(role)
        return draft

    def set(self, draft: Draft, key: str, value: object, line: int) -> None:
        """A setting of the host; the same one with another value is noted (the first kept)."""
        before = draft.settings.get(key)
        if before is not None and before[0] != value:
            self.note(line, key, f"{draft.name}: {value!r} here, {before[0]!r} on line "
                      f"{before[1]}")
        draft.settings.setdefault(key, (value, line))

    def hosts_file(self) -> HostsFile:
        if not self.drafts and not self.problems:
            raise self.fail(1, "hosts", "no host in it")
        hosts = [(h, d) for d in self.drafts.values() if (h := self._host(d)) is not None]
        seen: dict[str, Draft] = {}
        for h, d in hosts:
            if h.address in seen:
                line = d.settings.get("address", (None, d.line))[1]
                self.note(line, "address", f"{d.name}: {h.address} is also the address "
                          f"of {seen[h.address].name}")
            seen.setdefault(h.address, d)
        self.check()
        try:
            return HostsFile(hosts=[h for h, _ in hosts])
        except ValidationError as exc:
            raise self.fail(1, "hosts", _first_error(exc)) from None

    def _host(self, d: Draft) -> Host | None:
        """The host of a draft; None when its settings are refused (noted)."""
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
            self.note(line, loc, f"{d.name}: {_first_error(exc)}")
            return None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return " ".join(str(err["msg"]).split())[:200]
