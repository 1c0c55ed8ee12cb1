"""Asking a host for a tool: is it on the PATH, and which version is it (works over SSH)."""

from __future__ import annotations

import re

from stackprobe.spec.tools import Tool
from stackprobe.transport.base import Transport


def has_tool(transport: Transport, name: str) -> bool:
    """Whether `name` is on the host's PATH (asked through the transport: works remotely)."""
    res = transport.run(["sh", "-c", 'command -v "$1" >/dev/null', "sh", name], timeout=30)
    return res.returncode == 0


def tool_version(transport: Transport, tool: Tool) -> str | None:
    """First line that looks like a version, or None when the tool is missing."""
    if not has_tool(transport, tool.name):
        return None
    res = transport.run(list(tool.version_argv), timeout=30)
    text = (res.stdout + "\n" + res.stderr).strip()
    m = re.search(r"\d+\.\d+(?:\.\d+)?(?:[-.][\w.+~]+)?", text)
    if m:
        return m.group(0)
    return text.splitlines()[0][:60] if text else "present"
