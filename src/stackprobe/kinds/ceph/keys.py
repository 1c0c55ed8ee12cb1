"""The cephx keys a run's Ceph client uses, read so they can be hidden (store/redact.py).

stackprobe never handles the key itself: the Ceph tools read it from a keyring named by
`-k`, by the conf's `keyring` option or by Ceph's default paths. A tool can still print
it (debug logs, an error, CEPH_ARGS) and the run directory must not keep it, so the
session reads the same files the tools would and registers every key found there.
Pure parsing plus best-effort reads: an unreadable keyring only means nothing to register.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

# Ceph's built-in keyring search list, used when the conf names none.
DEFAULT_KEYRINGS = ("/etc/ceph/$cluster.$name.keyring", "/etc/ceph/$cluster.keyring",
                    "/etc/ceph/keyring", "/etc/ceph/keyring.bin")
_SECTION = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")
_OPTION = re.compile(r"^\s*([A-Za-z0-9_ -]+?)\s*=\s*(.*?)\s*$")


def conf_options(text: str, sections: tuple[str, ...]) -> dict[str, list[str]]:
    """Option values of the named sections of a Ceph conf or keyring, by normalised name
    (`keyring file` and `keyring_file` are one option, as Ceph reads them)."""
    found: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if m := _SECTION.match(line):
            current = m.group(1)
            continue
        m = _OPTION.match(re.split(r"\s[#;]", line, maxsplit=1)[0])
        if m and current in sections:
            name = re.sub(r"[ -]+", "_", m.group(1).strip().lower())
            found.setdefault(name, []).append(m.group(2))
    return found


def keys_in_keyring(text: str) -> list[str]:
    """Every `key = …` of a keyring, whatever entity it belongs to."""
    keys = []
    for line in text.splitlines():
        m = _OPTION.match(re.split(r"\s[#;]", line, maxsplit=1)[0])
        if m and m.group(1).strip().lower() == "key" and m.group(2):
            keys.append(m.group(2))
    return keys


def expand_meta(path: str, client: str, cluster: str = "ceph") -> str:
    """Ceph's metavariables in a conf path: $cluster, $name, $type, $id, $host."""
    values = {"cluster": cluster, "name": f"client.{client}", "type": "client", "id": client,
              "host": socket.gethostname().split(".")[0]}
    return re.sub(r"\$(cluster|name|type|id|host)\b", lambda m: values[m.group(1)], path)


def keyring_paths(conf_text: str, client: str, keyring: Path | None = None) -> list[Path]:
    """The keyrings the client may read: `-k`, the conf's `keyring` options (client.<id>,
    client, global — all of them: hiding a key too many costs nothing), else Ceph's own
    defaults."""
    opts = conf_options(conf_text, (f"client.{client}", "client", "global"))
    listed = [p for value in opts.get("keyring", []) for p in re.split(r"[,;\s]+", value) if p]
    if not listed:
        listed = list(DEFAULT_KEYRINGS)
    paths = [keyring] if keyring is not None else []
    return paths + [Path(expand_meta(p, client)).expanduser() for p in listed]


def client_keys(conf: Path, client: str, keyring: Path | None = None) -> list[str]:
    """Every key the client's conf and keyrings hold: `key` options, `keyfile` contents and
    each keyring's `key = …` lines. Unreadable files are skipped."""
    try:
        conf_text = conf.read_text(encoding="utf-8", errors="replace")
    except OSError:
        conf_text = ""
    opts = conf_options(conf_text, (f"client.{client}", "client", "global"))
    keys = list(opts.get("key", []))
    for keyfile in opts.get("keyfile", []):
        keys += _read(Path(expand_meta(keyfile, client)).expanduser()).split()[:1]
    for path in keyring_paths(conf_text, client, keyring):
        keys += keys_in_keyring(_read(path))
    return list(dict.fromkeys(k for k in keys if k))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        return ""
