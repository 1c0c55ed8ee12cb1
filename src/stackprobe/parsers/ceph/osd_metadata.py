"""`ceph osd metadata -f json` -> where each OSD keeps its data, for reading it in place.

An OSD reports (`ceph osd metadata`, one object per OSD that has booted) its host and the
device BlueStore opened. Which key names the thing to read, in this order:

- `bluestore_bdev_access_mode` says how BlueStore opened it: `blk` (a block device) or
  `file` (a regular file: the lab's sparse `osd/ceph-N/block`, or any file-backed OSD);
- `bluestore_bdev_dev_node`: the kernel's node of the device (`/dev/dm-3` under LVM), the
  most direct thing to read on a `blk` OSD;
- `bluestore_bdev_partition_path`: the partition of older, partition-based deployments;
- `bluestore_bdev_path`: the path BlueStore opened (`.../ceph-N/block`, a symlink to the
  device or the file itself);
- `osd_data` + `/block`: the same path, for metadata that lacks the key above.

FileStore OSDs (`osd_objectstore: filestore`) have no single device: they are listed with
no path and the reason. Sizes come from `bluestore_bdev_size` (bytes). Everything is a
string in this JSON, numbers included.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from stackprobe.parsers.bad_input import guard, loads


@dataclass(frozen=True)
class OsdDevice:
    osd: int
    hostname: str | None
    path: str | None  # what to read; None: nothing readable (reason says why)
    kind: str  # device | file | unknown
    size_bytes: int | None
    device_class: str | None
    reason: str | None = None  # why there is no path


@guard("ceph osd metadata")
def parse_osd_metadata(text: str) -> list[OsdDevice]:
    """Every OSD the metadata lists, in id order; ValueError on anything else."""
    try:
        doc = loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"ceph osd metadata: not JSON ({exc.msg})") from None
    if isinstance(doc, dict):  # `ceph osd metadata N` prints one object
        doc = [doc]
    if not isinstance(doc, list):
        raise ValueError("ceph osd metadata: expected a JSON list of OSDs")
    out = [_device(entry) for entry in doc]
    ids = [d.osd for d in out]
    if len(set(ids)) != len(ids):
        raise ValueError("ceph osd metadata: an OSD id appears twice")
    return sorted(out, key=lambda d: d.osd)


def _device(entry: object) -> OsdDevice:
    if not isinstance(entry, dict):
        raise ValueError("ceph osd metadata: an entry is not an object")
    osd = _int(entry.get("id"), "id")
    if osd is None or osd < 0:
        raise ValueError("ceph osd metadata: an entry has no OSD id")
    host = _text(entry.get("hostname"))
    size = _int(entry.get("bluestore_bdev_size"), f"osd.{osd} bluestore_bdev_size")
    device_class = _text(entry.get("default_device_class"))
    store = _text(entry.get("osd_objectstore")) or "bluestore"
    if store != "bluestore":
        return OsdDevice(osd, host, None, "unknown", size, device_class,
                         f"{store}: no single device to read")
    mode = _text(entry.get("bluestore_bdev_access_mode"))
    dev_node = _text(entry.get("bluestore_bdev_dev_node"))
    partition = _text(entry.get("bluestore_bdev_partition_path"))
    bdev_path = _text(entry.get("bluestore_bdev_path"))
    data = _text(entry.get("osd_data"))
    block = f"{data.rstrip('/')}/block" if data else None
    if mode == "file":
        path, kind = bdev_path or block, "file"
    else:
        path = dev_node or partition or bdev_path or block
        kind = "device" if (dev_node or partition or mode == "blk") else "unknown"
    if path is None or not path.startswith("/"):
        return OsdDevice(osd, host, None, kind, size, device_class,
                         "the metadata names no device or osd_data path")
    return OsdDevice(osd, host, path, kind, size, device_class)


def _text(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"ceph osd metadata: expected a string, got {value!r:.40}")
    value = value.strip()
    if "\n" in value or "\x00" in value:
        raise ValueError("ceph osd metadata: a value holds a line break or NUL")
    return value or None


def _int(value: object, what: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError(f"ceph osd metadata: {what} is not an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 20:
        return int(value)
    raise ValueError(f"ceph osd metadata: {what} is not an integer: {value!r:.40}")
