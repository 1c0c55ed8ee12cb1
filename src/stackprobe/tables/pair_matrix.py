"""A host × host table: the shape every pair measurement is shown in (iperf3, MPI, RDMA).

One row per host, one column per host, '—' on the diagonal, an empty cell for a pair that
was not measured; what a measured cell says is the caller's (`cell(a, b)`, None when the
pair was not measured).

A matrix that would be mostly empty is a list of the measured pairs instead (dense()).
Why: `pairs: 64` drawn among 1,000 hosts touches about 120 of them, and their 14,000-cell
matrix (a table, and the HTML report's heatmap) was most of the report's size and load
time while it held 64 figures.
"""

from __future__ import annotations

from collections.abc import Callable

from stackprobe.tables.text_table import TextTable

# A matrix for up to this many hosts; beyond them, when this share of its pairs was measured.
MATRIX_HOSTS = 32
MATRIX_FILL = 0.25


def dense(hosts: int, measured: int) -> bool:
    """Whether `measured` ordered pairs among `hosts` hosts are drawn as a matrix."""
    return hosts <= MATRIX_HOSTS or measured >= MATRIX_FILL * hosts * (hosts - 1)


def pair_matrix(title: str, corner: str, hosts: list[str],
                cell: Callable[[str, str], str | None], layer: str | None = None,
                order: Callable[[tuple[str, str]], object] | None = None) -> TextTable:
    """The matrix, or (sparse) one row per measured pair, sorted by `order` when given."""
    texts = {(a, b): text for a in hosts for b in hosts
             if a != b and (text := cell(a, b)) is not None}
    if dense(len(hosts), len(texts)):
        t = TextTable(title, [corner, *hosts], layer=layer)
        for a in hosts:
            t.rows.append([a, *("—" if a == b else texts.get((a, b), "") for b in hosts)])
        return t
    row_name, _, col_name = (w.strip() for w in corner.partition("\\"))
    t = TextTable(title, [row_name or "from", col_name or "to", "measured"], layer=layer)
    for a, b in sorted(texts, key=order) if order else texts:
        t.rows.append([a, b, texts[(a, b)]])
    n = len(hosts)
    t.notes.append(f"{len(texts)} of the {n * (n - 1)} ordered pairs of {n} hosts measured: "
                   f"listed, not drawn as a matrix (more than {MATRIX_HOSTS} hosts)")
    return t
