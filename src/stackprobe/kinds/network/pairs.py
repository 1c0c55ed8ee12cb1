"""Which pairs of hosts a pair step measures, declared once for every pair kind.

The network matrix, MPI ping-pong, RDMA and the soak all take `pairs:` the same way: every
ordered pair ('all'), N of them drawn with the run id as seed (the same run id, the same
pairs: a rerun or a resume measures what the first run did), or the pairs listed. A pair of
one host is refused when the suite is read; a listed host the step does not run on is
refused when the step starts (the hosts are known only then).
"""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, Field

if TYPE_CHECKING:
    from stackprobe.kinds.context import StepContext
    from stackprobe.transport.fleet import HostHandle


def _two_hosts(value):
    for a, b in value if isinstance(value, list) else ():
        if a == b:
            raise ValueError(f"a pair of one host: [{a}, {b}]")
    return value


# the suite field: 'all', a count of random ordered pairs, or [[client, server], ...]
Pairs = Annotated[Literal["all"] | Annotated[int, Field(ge=1)] | list[tuple[str, str]],
                  AfterValidator(_two_hosts)]


def choose_pairs(names: list[str], pairs: str | int, seed: str) -> list[tuple[str, str]]:
    """All ordered pairs, or `pairs` of them drawn with a seed (the same run id, the same
    pairs), in a stable order. A draw picks positions in the list of every ordered pair
    without making that list (n·(n-1) pairs: a million tuples at 1,000 hosts)."""
    n = len(names)
    count = n * (n - 1)
    if pairs == "all" or int(pairs) >= count:
        return list(itertools.permutations(names, 2))
    return sorted(_nth_pair(names, i) for i in random.Random(seed).sample(range(count), int(pairs)))


def _nth_pair(names: list[str], i: int) -> tuple[str, str]:
    """The i-th pair of itertools.permutations(names, 2), computed."""
    a, j = divmod(i, len(names) - 1)
    return names[a], names[j if j < a else j + 1]


def resolve_pairs(pairs, names: list[str], seed: str) -> list[tuple[str, str]] | str:
    """The ordered pairs to measure among the step's hosts `names`, or why the list given
    is wrong; a pair listed twice is measured once."""
    if not isinstance(pairs, list):
        return choose_pairs(names, pairs, seed)
    unknown = sorted({h for p in pairs for h in p} - set(names))
    if unknown:
        return f"pairs: {', '.join(unknown)} not among the step's hosts ({', '.join(names)})"
    return list(dict.fromkeys((a, b) for a, b in pairs))


def members(chosen: list[tuple[str, str]], names: list[str]) -> list[str]:
    """The hosts of `names` that the pairs `chosen` take part in, in their order: 64 pairs
    drawn among 1,000 hosts touch at most 128, and a pair step has nothing to do on the
    others (no link probe, no counters, no sadc)."""
    used = {h for pair in chosen for h in pair}
    return [n for n in names if n in used]


class PairHosts:
    """For a pair kind (mixed in before Kind): the executor watches (sadc) only the hosts
    of the pairs drawn with the run id — the same draw the step makes — or all of them
    when the list given is wrong (the step says why when it starts; docs/scale.md)."""

    def monitored_hosts(self, spec, names: list[str], run_id: str) -> list[str]:
        chosen = resolve_pairs(spec.pairs, names, run_id)
        return names if isinstance(chosen, str) else members(chosen, names)


def pair_count(pairs, hosts: int) -> int:
    """How many pairs a plan of `hosts` hosts measures (at least two hosts assumed)."""
    n = max(2, hosts)
    if isinstance(pairs, list):
        return len(pairs)
    return n * (n - 1) if pairs == "all" else min(int(pairs), n * (n - 1))


def step_pairs(ctx: StepContext, what: str
               ) -> tuple[dict[str, HostHandle], list[tuple[str, str]]] | str:
    """The step's hosts by name (in the step's order) and the pairs to measure, or why the
    step cannot start: `what` ('a network step') needs --hosts and two hosts at least."""
    if ctx.fleet is None or len(ctx.step.hosts) < 2:
        return f"{what} needs --hosts and at least 2 hosts in its `hosts:`"
    by_name = {h.name: h for h in ctx.fleet.select(ctx.step.hosts)}
    chosen = resolve_pairs(ctx.step.spec.pairs, list(by_name), ctx.run_dir.run_id)
    return chosen if isinstance(chosen, str) else (by_name, chosen)
