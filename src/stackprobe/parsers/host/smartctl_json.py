"""`smartctl -j -a` (or `-x`) of one disk -> its health and its error counters.

smartctl's JSON (smartmontools 7.0 and later, `json_format_version` 1) carries one block per
protocol; what says a disk is failing differs by protocol:

- ATA/SATA: attributes 5 (reallocated sectors), 197 (sectors pending reallocation),
  198 (offline uncorrectable) and 187 (reported uncorrectable), by their raw values;
- SCSI/SAS: the grown defect list and the uncorrected read/write/verify errors of the error
  counter log;
- NVMe: the health log's media errors, error-log entries, critical warning and wear
  (percentage used).

`smart_status.passed` is the drive's own overall verdict. `smartctl.exit_status` bits 0-1
mean nothing was read (bad command line, device not opened — a virtio disk, or a disk left
asleep by `-n standby`): the disk is kept with the tool's message as its problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stackprobe.parsers.bad_input import guard, load_json
from stackprobe.schema.health_records import DiskHealth

_MAX = 2**63
ATA_ATTRIBUTES = {5: "reallocated sectors", 197: "pending sectors",
                  198: "offline uncorrectable sectors", 187: "reported uncorrectable errors"}
NVME_COUNTERS = {"media_errors": "media errors", "num_err_log_entries": "error log entries"}
_NO_DATA = 0x3  # exit status bits: command line did not parse, device open failed


@dataclass
class DiskReading:
    disk: DiskHealth
    counters: dict[str, int] = field(default_factory=dict)  # '<disk> <what>' -> count


def count(value, where: str) -> int:
    """A JSON value that must be a whole count; ValueError naming it otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < _MAX:
        raise ValueError(f"{where}: {str(value)[:30]!r} is not a count")
    return value


def _opt(value, where: str) -> int | None:
    return None if value is None else count(value, where)


def _messages(doc: dict) -> str:
    msgs = (doc.get("smartctl") or {}).get("messages") or []
    texts = [str(m.get("string")) for m in msgs if isinstance(m, dict) and m.get("string")]
    return "; ".join(texts)[:200] or "no data"


def _ata(doc: dict, name: str, out: dict[str, int]) -> None:
    table = (doc.get("ata_smart_attributes") or {}).get("table") or []
    for attr in table:
        what = ATA_ATTRIBUTES.get(attr.get("id"))
        if what is not None:
            out[f"{name} {what}"] = count((attr.get("raw") or {}).get("value"),
                                          f"smartctl: attribute {attr.get('id')} raw value")


def _scsi(doc: dict, name: str, out: dict[str, int]) -> None:
    if "scsi_grown_defect_list" in doc:
        out[f"{name} grown defects"] = count(doc["scsi_grown_defect_list"],
                                             "smartctl: scsi_grown_defect_list")
    log = doc.get("scsi_error_counter_log") or {}
    for direction in ("read", "write", "verify"):
        part = log.get(direction)
        if isinstance(part, dict) and "total_uncorrected_errors" in part:
            out[f"{name} {direction} uncorrected errors"] = count(
                part["total_uncorrected_errors"], f"smartctl: {direction} uncorrected errors")


def _nvme(doc: dict, name: str, disk: DiskHealth, out: dict[str, int]) -> None:
    log = doc.get("nvme_smart_health_information_log")
    if not isinstance(log, dict):
        return
    for key, what in NVME_COUNTERS.items():
        if key in log:
            out[f"{name} {what}"] = count(log[key], f"smartctl: nvme {key}")
    disk.critical_warning = _opt(log.get("critical_warning"), "smartctl: critical_warning")
    disk.percentage_used = _opt(log.get("percentage_used"), "smartctl: percentage_used")


@guard("smartctl json")
def parse_smartctl_json(text: str, name: str | None = None) -> DiskReading:
    """One disk's reading; `name` is the disk's kernel name ('sda'), else the device's."""
    doc = load_json(text, "smartctl json", dict)
    if "smartctl" not in doc and "json_format_version" not in doc:
        raise ValueError("smartctl json: not smartctl's JSON (no 'smartctl' object)")
    device = doc.get("device") or {}
    name = name or str(device.get("name") or "disk").rsplit("/", 1)[-1]
    disk = DiskHealth(name=name, source="smartctl", protocol=device.get("protocol"),
                      model=doc.get("model_name") or doc.get("scsi_model_name"))
    status = count((doc.get("smartctl") or {}).get("exit_status", 0), "smartctl: exit_status")
    if status & _NO_DATA:
        disk.problem = _messages(doc)
        return DiskReading(disk)
    out: dict[str, int] = {}
    passed = (doc.get("smart_status") or {}).get("passed")
    disk.passed = passed if isinstance(passed, bool) else None
    temp = (doc.get("temperature") or {}).get("current")
    disk.temperature_c = float(count(temp, "smartctl: temperature")) if temp is not None else None
    disk.power_on_hours = _opt((doc.get("power_on_time") or {}).get("hours"),
                               "smartctl: power_on_time hours")
    _ata(doc, name, out)
    _scsi(doc, name, out)
    _nvme(doc, name, disk, out)
    return DiskReading(disk, out)
