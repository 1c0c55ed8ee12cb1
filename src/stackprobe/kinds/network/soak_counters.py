"""The soak's hosts' error counters, read before and after the load.

Which NIC: the one holding the host's address in hosts.yaml (`ip -o addr show`, as the
network matrix finds it), so a docker bridge's drops on the same host are not blamed on the
soak; every InfiniBand port's counters are read too (an IPoIB or RDMA fabric under the
same cables). The dump is one `sh -c` line per host (parsers/network/nic_counters.py says
its form); the deltas of error and drop counters are analysis/soak.py's.
"""

from __future__ import annotations

from stackprobe.analysis.soak import counter_deltas
from stackprobe.kinds.context import StepContext
from stackprobe.kinds.network.network import nic_of
from stackprobe.parsers.network.nic_counters import dump_script, parse_nic_counters
from stackprobe.schema.soak_records import NicCountersRecord
from stackprobe.transport.fleet import HostHandle


def soak_nics(ctx: StepContext, handles: list[HostHandle]) -> dict[str, str | None]:
    """{host: the interface holding its address, None when not found}."""
    assert ctx.fleet is not None

    def one(h: HostHandle) -> str | None:
        res = ctx.execute(f"{h.name}-ip-addr", ["ip", "-o", "addr", "show"], on=h.transport)
        return nic_of(res.stdout, h.host.address) if res.ok else None

    return ctx.fleet.each(one, [h.name for h in handles])


def read_counters(ctx: StepContext, handles: list[HostHandle], nics: dict[str, str | None],
                  when: str) -> dict[str, dict[str, int] | str]:
    """{host: {counter: value}} or, where the read failed, the reason in words."""
    assert ctx.fleet is not None

    def one(h: HostHandle) -> dict[str, int] | str:
        res = ctx.execute(f"{h.name}-counters-{when}", ["sh", "-c", dump_script(nics[h.name])],
                          on=h.transport)
        try:
            return parse_nic_counters(res.stdout)
        except ValueError as exc:
            return f"{exc} ({res.stderr.strip()[-160:]})" if res.stderr.strip() else str(exc)

    return ctx.fleet.each(one, [h.name for h in handles])


def counter_records(before: dict[str, dict[str, int] | str],
                    after: dict[str, dict[str, int] | str],
                    nics: dict[str, str | None]) -> list[NicCountersRecord]:
    """One record per host: its counters' growth, or why it is not known."""
    out = []
    for host in before:
        b, a = before[host], after.get(host, "not read after the soak")
        if isinstance(b, str) or isinstance(a, str):
            out.append(NicCountersRecord(host=host, error=b if isinstance(b, str) else a))
            continue
        ports = sorted({key.split(" ", 1)[0] for key in a if key in b})
        out.append(NicCountersRecord(host=host, nics=ports, deltas=counter_deltas(b, a),
                                     counters=sum(1 for key in a if key in b)))
    return out
