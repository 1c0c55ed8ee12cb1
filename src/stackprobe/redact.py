"""Secrets out of everything a run keeps: results.json, saved commands, raw output, reports.

A run directory is meant to be shared — attached to a ticket, copied to a colleague,
compared months later — so it must never carry what lets someone into the cluster: a
cephx key, an S3 secret key, a password. stackprobe cannot stop a tool from printing one
(fio echoes its job options, a traceback shows an environment), so every file it writes
into a run directory passes through a Redactor first (store/rundir.py), which knows:

- registered values: exact strings learned at run time — the Ceph client's key, read from
  its keyring when the Ceph session starts (runners/ceph_keys.py), and the values of
  environment variables whose name looks secret (stackprobe's own environment, which
  every local command inherits, and the variables added for a command);
- patterns for secrets nobody registered: cephx keys (`AQ…==`, 40 base64 characters),
  `--key VALUE` options, `password = VALUE`-style settings, `NAME=VALUE` with a secret
  name, and the password part of `scheme://user:password@host` (S3 URLs among them).

A secret is replaced by `<redacted>`; the name around it stays, so a reader still sees
that a key was given and where. Registered values are scoped to a run: `for_run(run_id)`
is the one Redactor of that run, shared by the run directory and the Ceph session that
reads the key (they are created at different places and both know the run id).
Pure apart from that registry and model(), which redacts results in place.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

REDACTED = "<redacted>"
# A registered value shorter than this would blank ordinary words and numbers everywhere.
MIN_SECRET_LEN = 8
SECRET_NAME_PARTS = ("KEY", "SECRET", "PASSWORD", "PASSWD", "TOKEN", "CREDENTIAL")
# Command-line options whose next argument (or `=value`) is the secret itself.
SECRET_FLAGS = ("--key", "--secret", "--secret-key", "--password", "--passwd",
                "--passphrase", "--token")

# A cephx key: base64 of 28 bytes (type 1, creation time, length, 16-byte secret), so 40
# characters that start with "AQ" (the type) and end with "==" (the padding).
_CEPHX = re.compile(r"(?<![A-Za-z0-9+/])AQ[A-Za-z0-9+/]{36}==")
# scheme://user:password@host — the password only. An S3 secret key may hold a '/' (it
# is base64-like), other URLs' passwords not (it would be a path: host:8080/a@b).
_S3_SECRET = re.compile(r"(\bs3://[^\s:/@]+:)[^\s@]+(?=@)")
_URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+(?=@)")
# A value as it appears after a name: quoted (kept quoted, spaces and all), or a word.
_QUOTED = r"\"[^\"\n]*\"|'[^'\n]*'"
_FLAG = re.compile(r"(?<![\w-])((?:" + "|".join(re.escape(f) for f in SECRET_FLAGS)
                   + r")(?:=|[ \t]+))(" + _QUOTED + r"|\S+)")
# `password = x`, `"secret_key": "x"`, `aws_secret_access_key: x`, `rgw keystone admin
# password = x` — a setting whose own name says it is secret.
_SETTING = re.compile(
    r"(?i)((?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_-])*"
    r"(?:password|passwd|passphrase|secret|secret[_-]?key|secret[_-]access[_-]key|api[_-]?key"
    r"|access[_-]?token|auth[_-]?token)"
    r"[\"']?[ \t]*[=:][ \t]*)(" + _QUOTED + r"|[^\s\"',;&]+)")
# A keyring's `key = VALUE` line (also commented out), whatever the value looks like.
_KEY_LINE = re.compile(r"(?im)^([ \t#;]*key[ \t]*=[ \t]*)(\S+)")
# Shell-style NAME=VALUE (a .cmd line's environment, `env` output) with a secret name.
_ASSIGNMENT = re.compile(r"(?<![\w-])([A-Z][A-Z0-9_]*)=('[^']*'|\"[^\"]*\"|[^\s'\"]+)")


def secret_name(name: str) -> bool:
    """An environment variable or setting whose name says its value is secret."""
    upper = name.upper()
    return any(part in upper for part in SECRET_NAME_PARTS)


def redact_env(env: Mapping[str, str]) -> dict[str, str]:
    """The same variables, the values of secret-named ones replaced (by name alone)."""
    return {k: (REDACTED if secret_name(k) and v else v) for k, v in env.items()}


def _hidden(value: str) -> str:
    """REDACTED in the value's own quotes, so the text around it still parses."""
    quote = value[0] if value[:1] in ("'", '"') and len(value) > 1 and value[-1] == value[0] else ""
    return f"{quote}{REDACTED}{quote}"


def _hide_value(match: re.Match[str]) -> str:
    return match.group(1) + _hidden(match.group(2))


def _assignment(match: re.Match[str]) -> str:
    name = match.group(1)
    return f"{name}={_hidden(match.group(2))}" if secret_name(name) else match.group(0)


def _keep_prefix(match: re.Match[str]) -> str:
    return match.group(1) + REDACTED


# Each pattern in the order it is applied, its replacement, and its gate: whether the text
# (and its lower-cased form) holds the literal the pattern cannot match without. Why the
# gates: a run keeps megabytes of monitor samples and tool output per host, and the
# patterns scan about 2 MB/s; most text holds none of these words, and a substring test is
# a hundred times faster. For ASCII text the gates are exact: a pattern matches only where
# its literal is (the case-blind ones looked up in the lower-cased text), and REDACTED, all
# that a substitution adds, holds no gate. Text with other characters gets every pattern
# (case-blind matching folds some non-ASCII letters onto ASCII ones, e.g. the Kelvin sign
# onto k).
_SETTING_WORDS = ("pass", "secret", "api", "token")
_Replacement = str | Callable[[re.Match[str]], str]
_PATTERNS: tuple[tuple[re.Pattern[str], _Replacement, Callable[[str, str], bool]], ...] = (
    (_CEPHX, REDACTED, lambda text, lower: "AQ" in text),
    (_S3_SECRET, _keep_prefix, lambda text, lower: "://" in text),
    (_URL_PASSWORD, _keep_prefix, lambda text, lower: "://" in text),
    (_FLAG, _hide_value, lambda text, lower: any(f in text for f in SECRET_FLAGS)),
    (_SETTING, _hide_value, lambda text, lower: any(w in lower for w in _SETTING_WORDS)),
    (_KEY_LINE, _hide_value, lambda text, lower: "key" in lower),
    (_ASSIGNMENT, _assignment, lambda text, lower: any(p in text for p in SECRET_NAME_PARTS)),
)


def redact_patterns(text: str) -> str:
    """What the patterns alone recognise as secret, replaced (no registered values)."""
    if not text.isascii():
        return _every_pattern(text)
    lower = text.lower()
    for pattern, replacement, gate in _PATTERNS:
        if gate(text, lower):
            text = pattern.sub(replacement, text)
    return text


def _every_pattern(text: str) -> str:
    for pattern, replacement, _ in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def worth_registering(value: str) -> bool:
    """A value that can be hidden without blanking ordinary text: long enough, and not a
    path (a variable like KEYS_DIR=/tmp would otherwise hide every /tmp)."""
    value = value.strip()
    return len(value) >= MIN_SECRET_LEN and not value.startswith(("/", "~/", "./", "../"))


class Redactor:
    """Registered secret values plus the patterns; thread-safe (per-node steps run
    commands from several threads at once)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        self._regex: re.Pattern[str] | None = None
        self.generation = 0  # grows with each new value: what was clean may not be now
        for v in values:
            self.register(v)

    # ------------------------------------------------------------------ learning
    def register(self, value: str | None) -> bool:
        """Hide this exact string from now on; False when it is too short or a path to
        hide safely."""
        if not value or not worth_registering(value):
            return False
        value = value.strip()
        with self._lock:
            if value not in self._values:
                self._values.add(value)
                self._regex = None
                self.generation += 1
        return True

    def register_env(self, env: Mapping[str, str] | None) -> None:
        """The values of the secret-named variables among env."""
        for name, value in (env or {}).items():
            if secret_name(name):
                self.register(value)

    @property
    def values(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._values)

    def _values_regex(self) -> re.Pattern[str] | None:
        with self._lock:
            if self._regex is None and self._values:
                longest_first = sorted(self._values, key=len, reverse=True)
                self._regex = re.compile("|".join(re.escape(v) for v in longest_first))
            return self._regex

    # ------------------------------------------------------------------ hiding
    def text(self, text: str) -> str:
        """Registered values, then patterns, replaced."""
        regex = self._values_regex()
        if regex is not None:
            text = regex.sub(REDACTED, text)
        return redact_patterns(text)

    def values_only(self, text: str) -> str:
        """Registered values replaced, no patterns (for binary content, where a pattern
        match would be chance and a replacement damage)."""
        regex = self._values_regex()
        return regex.sub(REDACTED, text) if regex is not None else text

    def data(self, data: bytes) -> bytes:
        """Bytes of a file: text redacted, any other byte kept as it was."""
        text = data.decode("utf-8", errors="surrogateescape")
        hidden = self.values_only(text) if "\0" in text else self.text(text)
        return data if hidden == text else hidden.encode("utf-8", errors="surrogateescape")

    def argv(self, argv: Sequence[str]) -> list[str]:
        """An argument list: each argument redacted, and the argument after a secret flag
        (`--key VALUE`) hidden whatever it looks like."""
        out: list[str] = []
        hide_next = False
        for arg in argv:
            out.append(REDACTED if hide_next and arg else self.text(arg))
            hide_next = arg in SECRET_FLAGS
        return out

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """Secret-named variables hidden by name, the others' values redacted as text."""
        return {k: self.text(v) for k, v in redact_env(env).items()}

    def tree(self, obj: Any) -> Any:
        """A JSON-like value: every string redacted, lists of strings as argument lists, a
        secret-named key's string value hidden; a new value (models inside are redacted in
        place, see model())."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, BaseModel):
            self.model(obj)
            return obj
        if isinstance(obj, dict):
            return {k: (REDACTED if isinstance(k, str) and secret_name(k) and isinstance(v, str)
                        and v else self.tree(v)) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            if obj and all(isinstance(x, str) for x in obj):
                hidden = self.argv(obj)
            else:
                hidden = [self.tree(x) for x in obj]
            return tuple(hidden) if isinstance(obj, tuple) else hidden
        return obj

    def model(self, model: BaseModel) -> None:
        """Redact a pydantic model in place (results before they are saved, and so before
        the terminal prints them). A field that changes is assigned a new value and nested
        models keep their identity: the executor holds references to its step results, and
        containers shared with others (a step's params) are never modified. Fields never
        serialised (exclude=True: raw histogram bins) are left alone."""
        for name, info in type(model).model_fields.items():
            if info.exclude:
                continue
            value = getattr(model, name)
            hidden = self.tree(value)
            if hidden is not value and hidden != value:
                setattr(model, name, hidden)


_RUNS: dict[str, Redactor] = {}
_RUNS_LOCK = threading.Lock()


def for_run(run_id: str) -> Redactor:
    """The Redactor of one run (created on first use): the run directory writes through
    it, the Ceph session registers the client's key in it."""
    with _RUNS_LOCK:
        return _RUNS.setdefault(run_id, Redactor())
