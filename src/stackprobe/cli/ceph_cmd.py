"""`stackprobe ceph review`: the Ceph configuration review on its own, outside a run.

Read-only: the same `ceph ... -f json` queries as the `ceph_review` step, against the
cluster a run would use (--ceph-conf, the lab in ./.stackprobe/lab/ceph, /etc/ceph), and
the same rules. Exit 0 when no rule found anything at fail severity, 3 when one did, 2 on
a usage error or a cluster that answers none of the queries.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

ceph_app = typer.Typer(help="Read-only looks at a Ceph cluster.", no_args_is_help=True)

FORMATS = ("terminal", "md", "json")
CONNECT_TIMEOUT_S = "30"


@ceph_app.command("review")
def review(
    ceph_conf: Path | None = typer.Option(None, "--ceph-conf", help="The cluster's ceph.conf "
                                          "(default: the lab cluster here, else /etc/ceph)."),
    fmt: str = typer.Option("terminal", "--format", help="terminal, md or json."),
) -> None:
    """Review the cluster's configuration (DB/WAL, PGs, replication, daemon placement,
    memory, full ratios, versions, clocks, scrubbing, device classes); changes nothing."""
    from stackprobe.analysis.ceph_review.registry import review as run_rules
    from stackprobe.cli.options import check_format
    from stackprobe.errors import UserError
    from stackprobe.kinds.ceph.ceph_review_sources import collect
    from stackprobe.kinds.ceph.ceph_review_view import summary, to_record
    from stackprobe.kinds.ceph.target import resolve_target
    from stackprobe.parsers.ceph.review_sources import parse_cluster_config
    from stackprobe.transport.local import LocalTransport
    from stackprobe.transport.side_by_side import side_by_side
    from stackprobe.verdict.codes import EXIT_CRITERIA_FAILED, EXIT_OK

    check_format(fmt, FORMATS)
    target = resolve_target(None, ceph_conf, Path.cwd())
    transport = LocalTransport()
    outputs, failed, _ = collect(
        lambda commands: side_by_side(lambda argv: transport.run(argv, timeout=120),
                                      [argv for _, argv in commands]),
        [*target.cli(), "--connect-timeout", CONNECT_TIMEOUT_S])
    if not outputs:
        why = next(iter(failed.values()), "no answer")
        raise UserError(f"the Ceph cluster of {target.conf} answered no query ({why})")
    config = parse_cluster_config(outputs, strict=False)
    config.unread.update(failed)
    results = run_rules(config)
    records = [to_record(f) for r in results for f in r.findings]
    kept = summary(results, config)
    if fmt == "json":
        print(json.dumps({"conf": str(target.conf), **kept,
                          "findings": [r.to_json() for r in records]}, indent=2))
    elif fmt == "md":
        print(_markdown(records, kept))
    else:
        _terminal(records, kept)
    raise typer.Exit(EXIT_CRITERIA_FAILED if any(r.severity == "fail" for r in records)
                     else EXIT_OK)


def _markdown(records, kept) -> str:
    from stackprobe.kinds.ceph.ceph_review_view import counts_text, review_table

    table = review_table(records, kept["rules"])
    lines = [f"# {table.title}", "", counts_text(records, len(kept["rules"])), "",
             "| " + " | ".join(table.headers) + " |",
             "|" + "---|" * len(table.headers)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in table.rows]
    lines += [f"- not read: {cmd}: {why}" for cmd, why in kept["unread"].items()]
    return "\n".join(lines)


def _terminal(records, kept) -> None:
    from stackprobe.cli.console import make_console
    from stackprobe.kinds.ceph.ceph_review_view import counts_text, review_table
    from stackprobe.report.terminal import NARROW_COLUMNS, rich_table

    console = make_console()
    table = review_table(records, kept["rules"])
    console.print(rich_table(table, narrow=console.width < NARROW_COLUMNS))
    console.print(counts_text(records, len(kept["rules"])))
    for cmd, why in kept["unread"].items():
        console.print(f"not read: {cmd}: {why}", style="yellow")
