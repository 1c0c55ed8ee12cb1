"""A titled table of formatted cells: what the extra tables (Ceph, SLO, recommendations)
hand to every renderer (terminal, Markdown)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TextTable:
    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # sentences printed under the table
    left: tuple[int, ...] = (0,)  # columns of words (left-aligned); the others hold figures
    wide_only: tuple[int, ...] = ()  # columns a narrow terminal leaves out (the notes say it)
    layer: str | None = None  # the rung it is about: a kind's tables are shown in ladder order


def step_table_title(name: str, step) -> str:
    """A kind's table title: its name, and the step's title when that says more than the
    kind's own default (a suite's `title:`, a second step of the kind)."""
    title = step.title or step.id
    if title.startswith(name):  # 'Settings (recorded trees)' says it better
        return title
    return name if name.startswith(title) else f"{name} — {title}"
