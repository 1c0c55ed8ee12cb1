"""The settings probe's output (one host) -> one SettingsRecord: every setting read, each
with its source (docs/settings.md lists the names).

The probe (kinds/host/settings_probe_script.py) prints every file and command output
under a marker (parsers/host/settings_sources.py splits them). Three rules for what a
setting holds:

- a source that is there and readable: its value, as the source prints it (normalised
  only where the source mixes forms: THP's `[madvise]`, a scheduler's `[mq-deadline]`);
- a source that is there but cannot be read: value None and a warning naming the host,
  the setting and the source — never a guess;
- a source that is not there: the setting is left out, except those a profile asks about
  (settings_names.EXPECTED_SOURCES), which are kept with value None and the source they
  would have come from, so that a profile says UNKNOWN for them and never passes them.

Output without its end marker (cut short) is a ValueError of one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import guard
from stackprobe.parsers.host.settings_cpu import cpu_settings
from stackprobe.parsers.host.settings_devices import device_settings
from stackprobe.parsers.host.settings_names import EXPECTED_SOURCES
from stackprobe.parsers.host.settings_sources import Collected, read_sources
from stackprobe.parsers.host.settings_system import system_settings
from stackprobe.schema.settings_records import SettingsRecord


@dataclass
class SettingsProbe:
    record: SettingsRecord
    warnings: list[str] = field(default_factory=list)


@guard("settings probe")
def parse_settings_probe(text: str, host: str | None = None,
                         mounts: tuple[str, ...] = ()) -> SettingsProbe:
    """The host's settings (sorted by name) and the warnings of sources it could not
    read; `mounts`: paths whose mounts to report besides the default filesystems."""
    sources = read_sources(text)
    out = Collected(host=host)
    cpu_settings(sources, out)
    system_settings(sources, out)
    device_settings(sources, out, tuple(mounts))
    for name, source in EXPECTED_SOURCES.items():
        if name not in out.settings:
            out.add(name, None, source)
    record = SettingsRecord(host=host, settings=dict(sorted(out.settings.items())))
    return SettingsProbe(record=record, warnings=out.warnings)
