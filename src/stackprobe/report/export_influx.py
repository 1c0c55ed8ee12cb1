"""A run as InfluxDB line protocol: one point per figure, for `influx write` or Telegraf.

Why this shape: the tags are what a query groups by (suite, run, host, step, kind,
workload, key, direction, figure), the figure itself is the field `value`, its unit a
string field beside it, and the point's time is when its step ended — so a dashboard
draws a workload's figure run after run on a time axis. `key` is a tag too: it alone
tells apart the rows of one step that share everything else (osd.0 and osd.1 of one OSD
bench), which would otherwise be one series at one time, and InfluxDB keeps only the
last of such points. See docs/export.md.
"""

from __future__ import annotations

import re

from stackprobe.report.export_labels import exported
from stackprobe.schema.results import RunResults

MEASUREMENT = "stackprobe"
# sorted by key: the order InfluxDB keeps tags in, and writes fastest
TAGS = ("direction", "figure", "host", "key", "kind", "run", "step", "suite", "workload")
_SPECIAL_TAG = re.compile(r"([,= ])")
_SPECIAL_MEASUREMENT = re.compile(r"([, ])")


def to_line_protocol(results: RunResults) -> str:
    """Every figure of the run as one line: `stackprobe,TAGS value=V,unit="U" TIME`."""
    lines = []
    for item in exported(results):
        tags = "".join(f",{_tag(name)}={_tag(item.labels[name])}" for name in TAGS
                       if item.labels[name])  # the protocol has no empty tag values
        fields = f"value={_float(item.value)},unit={_string(item.unit)}"
        time = f" {item.time_ns}" if item.time_ns is not None else ""
        lines.append(f"{_measurement(MEASUREMENT)}{tags} {fields}{time}")
    return "".join(line + "\n" for line in lines)


def _tag(text: str) -> str:
    """A tag key or value: comma, equals sign and space escaped with a backslash; other
    backslashes stay as they are (InfluxDB 1.x reads them literally, and the parser the
    tests use follows it). A line feed cannot be escaped in a tag: it is written as the
    two characters `\\n`, as InfluxDB's client libraries write it."""
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return _SPECIAL_TAG.sub(r"\\\1", text)


def _measurement(text: str) -> str:
    """A measurement name: comma and space escaped (an equals sign is plain there)."""
    return _SPECIAL_MEASUREMENT.sub(r"\\\1", text.replace("\n", "\\n"))


def _string(text: str) -> str:
    """A string field value: in double quotes, with `"` and backslash escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _float(value: float) -> str:
    """A float field value; repr keeps every digit (and 1e-05 is valid there)."""
    return repr(float(value))
