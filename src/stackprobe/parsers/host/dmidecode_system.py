"""`dmidecode -t bios -t baseboard -t system` (or a whole dump) -> the BIOS, board and
system names and versions.

Why: /sys/class/dmi/id gives the same fields without root, but not on every kernel or
platform; dmidecode (as root) reads the SMBIOS table itself (DMTF DSP0134: type 0 'BIOS
Information', type 1 'System Information', type 2 'Base Board Information'). An older
BIOS on one host of a fleet is the first thing to look at when it alone is slower.
"""

from __future__ import annotations

from stackprobe.parsers.bad_input import guard

# what dmidecode prints before its records, or instead of them (no SMBIOS table: many VMs)
_BANNERS = ("# dmidecode", "# No SMBIOS", "Scanning /dev/mem", "Getting SMBIOS data",
            "SMBIOS ", "Table at ", "No SMBIOS nor DMI entry point found")

_WANTED = {
    "BIOS Information": {"Vendor": "bios.vendor", "Version": "bios.version",
                         "Release Date": "bios.date"},
    "System Information": {"Manufacturer": "system.vendor", "Product Name": "system.product"},
    "Base Board Information": {"Manufacturer": "board.vendor", "Product Name": "board.name"},
}
_UNKNOWN = {"", "Not Specified", "Not Provided", "To Be Filled By O.E.M.", "Default string",
            "Unknown"}


@guard("dmidecode")
def parse_dmidecode_system(text: str) -> dict[str, str]:
    """{setting name: value} of the first BIOS, system and board records; ValueError for
    text that is not dmidecode's."""
    out: dict[str, str] = {}
    section: dict[str, str] | None = None
    seen = False
    for line in text.splitlines():
        if line.startswith(("Handle 0x", *_BANNERS)):
            seen = True
        if not line.strip():
            section = None
            continue
        if not line[:1].isspace():
            section = _WANTED.get(line.strip())
            continue
        if section is not None and ":" in line:
            key, value = (p.strip() for p in line.split(":", 1))
            name = section.get(key)
            if name and value not in _UNKNOWN:
                out.setdefault(name, value)
    if not seen:
        raise ValueError("dmidecode: no 'Handle 0x…' record and no dmidecode banner")
    return out
