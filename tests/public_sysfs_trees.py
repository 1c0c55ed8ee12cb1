"""The public sysfs recordings (tests/fixtures/public/sysfs, SOURCES.md) unpacked into probe
roots, so the settings probe reads a real server's files the way it reads a live host's.

Why unpack rather than parse: the recordings come in their projects' own archive forms —
intel/pepc's `inlinefiles.txt` (`mode|path|value` lines) and prometheus/procfs's ttar (a
text archive: `Path:`, `Lines: N`, N lines of content, `Mode:`, a `# ttar - - -` line between
entries). Written out as files they are a tree like any recorded host's, and the probe script
and the parsers run on them unchanged (kinds/host/settings_probe_script.py with a probe root).

Only the forms these recordings use are read; anything else is refused in one line naming
the file, the line and what was there, so a recording that changes form is noticed, not
half read.
"""

from __future__ import annotations

from pathlib import Path

CPUFREQ_POLICY = "sys/devices/system/cpu/cpufreq/policy"


def unpack_inlinefiles(archive: Path, root: Path) -> dict[str, str]:
    """pepc's `mode|path|value` lines as files under `root` (each value and a newline, as
    sysfs prints it); {host path: value}, the first line of a path kept as SOURCES.md says.

    pepc records cpufreq by policy (`cpufreq/policyN/...`); on a host the kernel links each
    `cpuN/cpufreq` to its policy's directory, and that is where the probe reads a CPU's
    frequency settings. The link is made for every policy whose CPU's directory the
    recording has (policy N serves CPU N on this intel_pstate server: one CPU per policy)."""
    values: dict[str, str] = {}
    for number, line in enumerate(archive.read_text().splitlines(), 1):
        mode, sep, rest = line.partition("|")
        path, sep2, value = rest.partition("|")
        if not (sep and sep2) or mode not in ("rw", "ro") or not path.startswith("/"):
            raise ValueError(f"{archive.name}:{number}: not a 'mode|/path|value' line: {line[:60]!r}")
        values.setdefault(path, value)
    for path, value in values.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(value + "\n")
    policies = root / CPUFREQ_POLICY
    for policy in sorted(policies.parent.glob("policy[0-9]*")):
        cpu = root / "sys/devices/system/cpu" / f"cpu{policy.name.removeprefix('policy')}"
        if cpu.is_dir() and not (cpu / "cpufreq").exists():
            (cpu / "cpufreq").symlink_to(Path("..") / "cpufreq" / policy.name)
    return values


def unpack_ttar(archive: Path, root: Path, strip: str = "") -> dict[str, str]:
    """The ttar's files under `root` (`strip`, a leading directory of its paths, removed);
    {host path: content}. Modes are applied after the content is written."""
    lines = archive.read_text().splitlines()
    files: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.startswith("# ttar "):
            i += 1
            continue
        if not line.startswith("Path: "):
            raise ValueError(f"{archive.name}:{i + 1}: expected 'Path:', not {line[:60]!r}")
        path = line.removeprefix("Path: ").strip()
        if not path.startswith(strip) or ".." in path.split("/"):
            raise ValueError(f"{archive.name}:{i + 1}: Path: {path!r} is not under {strip!r}")
        head = lines[i + 1] if i + 1 < len(lines) else ""
        count = head.removeprefix("Lines: ")
        if not head.startswith("Lines: ") or not count.isdigit():
            raise ValueError(f"{archive.name}:{i + 2}: expected 'Lines: N', not {head[:60]!r}")
        body = lines[i + 2:i + 2 + int(count)]
        mode_at = i + 2 + int(count)
        mode = lines[mode_at].removeprefix("Mode: ") if mode_at < len(lines) else ""
        if len(body) != int(count):
            raise ValueError(f"{archive.name}:{len(lines)}: ends inside the {count} lines "
                             f"of {path}")
        if not mode.isdigit() or len(mode) != 3:
            raise ValueError(f"{archive.name}:{mode_at + 1}: expected 'Mode: NNN' after "
                             f"{count} lines of {path}")
        host_path = "/" + path.removeprefix(strip).lstrip("/")
        target = root / host_path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(text + "\n" for text in body))
        target.chmod(int(mode, 8))
        files[host_path] = "\n".join(body)
        i = mode_at + 1
    return files
