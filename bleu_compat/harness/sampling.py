"""Choosing a small run's cases by kind (issue 25): the gate's sample.

The gate runs the first :data:`~bleu_compat.cli.gate.GATE_CASES` cases of each
tool; a bug whose first trigger is a later case of the default run (a limit off
by one first reached exactly by case 337; NLTK's ``auto_reweigh``, which acts
only when a corpus has fewer candidate tokens than four orders) passed it. Here
each request of the default run gets a *kind*: the coarse facts read from the
request alone (no implementation runs) that the card's branches, limits and the
catalog's entries turn on. :func:`sample_by_kind` adds to the first cases each
later case of the default run with a fact they do not have, so the gate meets
every fact the default crosscheck meets, for the price of generating the
requests once (``gate --update`` keeps the sample in the baseline) and running
the few added cases.

The kinds depend only on the seed and the generator code: the sample is the
same on any machine.
"""

from __future__ import annotations

from typing import Any

from .checks import card
from .generate import generate_case

__all__ = ["kind_of", "sample_by_kind"]

Request = dict[str, Any]


def _cmp(a: int, b: int) -> int:
    return (a > b) - (a < b)


def _corpus_kind(request: Request, limits: dict[str, int]) -> tuple[Any, ...]:
    hyps, refs = request["hypotheses"], request["references"]
    n = request.get("max_order", 4)
    tokens = [t for h in hyps for t in h] + [t for rs in refs for r in rs for t in r]
    sizes = [len(t.encode("utf-8")) for t in tokens]
    c = sum(len(h) for h in hyps)
    shortest = sum(min((len(r) for r in rs), default=0) for rs in refs)
    at_limit = (
        len(hyps) == limits["max_segments"],
        any(len(rs) == limits["max_references_per_segment"] for rs in refs),
        max(sizes, default=0) == limits["max_token_bytes"],
        len(tokens) == limits["max_total_tokens"],
        sum(sizes) == limits["max_total_token_bytes"],
    )
    # fewer candidate tokens than orders, and a unigram match (NLTK's auto_reweigh acts there)
    short = 0 if c == 0 else 2 if c >= n else 1 if any(
        t in {x for r in rs for x in r} for h, rs in zip(hyps, refs) for t in h) else 3
    return (
        ("orders, candidate tokens", n == 4, short),
        ("candidate vs shortest references", _cmp(c, shortest)),
        ("a hypothesis shorter than N", any(len(h) < n for h in hyps)),
        ("an empty hypothesis", any(not h for h in hyps)),
        ("an empty token", any(t == "" for t in tokens)),
        ("whitespace in a token", any(any(ch.isspace() for ch in t) for t in tokens)),
        ("non-ASCII token at the byte limit", any(size == limits["max_token_bytes"] and not t.isascii()
                                                  for t, size in zip(tokens, sizes))),
        ("decimals", "decimals" in request),
        *((f"at limit {k}", v) for k, v in zip(
            ("segments", "references", "token bytes", "tokens", "total bytes"), at_limit)),
    )


def _smoothing_kind(request: Request, limits: dict[str, int]) -> tuple[Any, ...]:
    m, t = request["matches"], request["totals"]
    c, r = request["candidate_length"], request["reference_length"]
    values = [*m, *t, c, r]
    method = request["smoothing"]
    return (
        ("method, effective order", method, request.get("effective_order", False)),
        ("method, epsilon 0", method, "epsilon" in request and request["epsilon"] == 0),
        ("method, zero matches", method, m[0] == 0, any(x == 0 for x in m[1:])),
        ("method, a zero total", method, any(x == 0 for x in t)),
        ("orders", len(m)),
        ("candidate vs reference", 0 if c == 0 else _cmp(c, r) + 2),
        ("decimals", "decimals" in request),
        ("at limit orders", len(m) == limits["max_orders"]),
        ("at limit count value", max(values) == limits["max_count_value"]),
    )


def _brevity_kind(request: Request, limits: dict[str, int]) -> tuple[Any, ...]:
    segs = request["segments"]
    c = sum(s["candidate_length"] for s in segs)
    lengths = [v for s in segs for v in s["reference_lengths"]] + [s["candidate_length"] for s in segs]
    closest = sum(min(s["reference_lengths"], key=lambda v: (abs(v - s["candidate_length"]), v))
                  for s in segs if s["reference_lengths"])
    return (
        ("no segment", not segs),
        ("candidate vs closest references", 0 if c == 0 else _cmp(c, closest) + 2, closest == 0),
        ("a segment without references", any(not s["reference_lengths"] for s in segs)),
        ("decimals", "decimals" in request),
        ("at limit segments", len(segs) == limits["max_segments"]),
        ("at limit references", any(len(s["reference_lengths"]) == limits["max_references_per_segment"]
                                    for s in segs)),
        ("at limit length value", max(lengths, default=0) == limits["max_length_value"]),
    )


_KINDS = {"bleu-corpus-compute": _corpus_kind, "bleu-smoothing-compute": _smoothing_kind,
          "bleu-brevity-penalty": _brevity_kind}


def kind_of(tool_id: str, request: Request) -> tuple[Any, ...]:
    """The kind of a valid request: the facts of the request alone, each a tuple (name,
    value...): which branch of the card it takes, which card limit it reaches exactly, which
    catalog trigger it carries (an empty hypothesis, an empty or whitespace token, fewer
    candidate tokens than four orders, a zero count, an epsilon of 0, ...).

    Raises:
        KeyError: unknown tool.
    """
    return _KINDS[tool_id](request, card(tool_id)["limits"])


def sample_by_kind(seed: int, tool_id: str, first: int, pool: int) -> list[int]:
    """Case numbers: ``0 .. first - 1``, then, in order, each case in ``first .. pool - 1``
    with a fact (:func:`kind_of`) none of the cases before it has: every fact of the default
    run's cases is met.

    Args:
        seed: the run's seed; tool_id: the card.
        first: the cases always run (the gate's count).
        pool: the default run's count: the cases whose kinds the sample must cover.
    """
    seen = {fact for k in range(min(first, pool))
            for fact in kind_of(tool_id, generate_case(seed, tool_id, k).request)}
    chosen = list(range(first))
    for k in range(first, pool):
        facts = set(kind_of(tool_id, generate_case(seed, tool_id, k).request))
        if not facts <= seen:
            seen |= facts
            chosen.append(k)
    return chosen
