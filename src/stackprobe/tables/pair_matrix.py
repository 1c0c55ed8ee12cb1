"""A host × host table: the shape every pair measurement is shown in (iperf3, MPI, RDMA).

One row per host, one column per host, '—' on the diagonal, an empty cell for a pair that
was not measured; what a measured cell says is the caller's (`cell(a, b)`, None when the
pair was not measured).
"""

from __future__ import annotations

from collections.abc import Callable

from stackprobe.tables.text_table import TextTable


def pair_matrix(title: str, corner: str, hosts: list[str],
                cell: Callable[[str, str], str | None], layer: str | None = None) -> TextTable:
    t = TextTable(title, [corner, *hosts], layer=layer)
    for a in hosts:
        t.rows.append([a, *("—" if a == b else cell(a, b) or "" for b in hosts)])
    return t
