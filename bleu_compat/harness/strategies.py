"""Generators of card requests: hypothesis strategies and a seeded generator.

One generator function per tool (:func:`gen_corpus`, :func:`gen_smoothing`,
:func:`gen_brevity`) makes every random choice through a :class:`Source`.
Two sources drive the same code:

* :class:`DrawSource` turns each choice into a ``draw`` from a hypothesis
  strategy (``st.integers``, ``st.sampled_from``); :func:`requests` wraps a
  generator in ``st.composite``, so the property tests get hypothesis'
  search and shrinking;
* :class:`RandomSource` answers each choice from a ``random.Random``;
  :mod:`bleu_compat.harness.generate` seeds it with the string
  ``f"{seed}:{tool_id}:{case}"``, so case ``k`` of a run is reproducible on
  its own, in any process, in any order, without hypothesis' database or
  its internal (unstable) ``ConjectureData`` API.

The generators aim at the regimes where BLEU implementations disagree (issue
4): empty hypotheses and references, segments shorter than max_order, 1–8
references, tiny and large vocabularies, ties in the closest reference
length, identical and disjoint corpora, tokens with spaces, Unicode
whitespace, case variants, NFC/NFD variants and zero-width characters,
max_order 1–8, decimals 0–15 with exact binary ties, smoothing statistics
with zero matches, zero totals, counts up to 1e12, c = 0 and r = 0, and
brevity-penalty segments up to the card limits. :func:`regimes_of` names the
regimes a request is in, judged from the request itself (not from how it was
generated), so a test can show each one is reached.
"""

from __future__ import annotations

import decimal
import random
import unicodedata
from typing import Any, Callable, Protocol, Sequence, TypeVar

from hypothesis import strategies as st

__all__ = [
    "Source",
    "RandomSource",
    "DrawSource",
    "gen_corpus",
    "gen_smoothing",
    "gen_brevity",
    "GENERATORS",
    "requests",
    "corpus_requests",
    "smoothing_requests",
    "brevity_requests",
    "regimes_of",
    "REGIMES",
]

T = TypeVar("T")
Request = dict[str, Any]


class Source(Protocol):
    """Where a generator's random choices come from."""

    def integer(self, lo: int, hi: int) -> int:
        """An int in [lo, hi]."""

    def choice(self, options: Sequence[T]) -> T:
        """One of ``options`` (non-empty)."""

    def boolean(self, p: float = 0.5) -> bool:
        """True with probability about ``p`` (shrinks to False)."""


class RandomSource:
    """A :class:`Source` answered by ``random.Random`` (deterministic for a seed)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def boolean(self, p: float = 0.5) -> bool:
        return self.rng.random() < p


class DrawSource:
    """A :class:`Source` answered by hypothesis ``draw`` (searchable, shrinkable)."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return int(self.draw(st.integers(lo, hi)))

    def choice(self, options: Sequence[T]) -> T:
        return self.draw(st.sampled_from(list(options)))

    def boolean(self, p: float = 0.5) -> bool:
        # 0 (the shrink target) means False.
        return bool(self.draw(st.integers(0, 999)) >= 1000 - round(p * 1000))


# --- tokens ---------------------------------------------------------------------

#: Tokens that look alike but differ under exact string equality, or that a
#: whitespace split would break apart.
SPACE_TOKENS = ("a b", "New York", " lead", "trail ", "x  y")
UNICODE_WS_TOKENS = ("a\u00a0b", "ist\u00a05", "x\u2003y", "p\u3000q", "t\tu", "l\u2028m")
CASE_TOKENS = ("the", "The", "THE", "tHe", "Straße", "STRASSE")
NFC = unicodedata.normalize("NFC", "Café")
NFD = unicodedata.normalize("NFD", "Café")
NORMALISATION_TOKENS = (NFC, NFD, "\u00c5", "A\u030a", "\u212b")  # Å three ways
ZERO_WIDTH_TOKENS = ("x\u200by", "\u200b", "zero\u200cwidth", "\ufeff28", "28", "a\u2060b")
PLAIN_TOKENS = tuple("the a of to and in is that it was for on , . ' \" - ( )".split()) + (
    "Haus", "über", "город", "東京", "שלום", "😀",
)
SPECIAL_KINDS = {
    "token_space": SPACE_TOKENS,
    "token_unicode_ws": UNICODE_WS_TOKENS,
    "token_case_variant": CASE_TOKENS,
    "token_nfc_nfd": NORMALISATION_TOKENS,
    "token_zero_width": ZERO_WIDTH_TOKENS,
}

CORPUS_SHAPES = (
    "mixed", "mixed", "mixed", "tiny_vocab", "large_vocab", "identical", "disjoint",
    "special_tokens", "special_tokens", "short_segments", "ties", "empty", "decimals_tie",
)


def _vocabulary(src: Source, shape: str) -> list[str]:
    if shape == "tiny_vocab":
        return list(PLAIN_TOKENS[: src.integer(1, 3)])
    if shape == "large_vocab":
        return [f"w{k}" for k in range(src.integer(500, 5000))]
    vocab = list(PLAIN_TOKENS[: src.integer(4, len(PLAIN_TOKENS))])
    if shape == "special_tokens" or src.boolean(0.2):
        kinds = list(SPECIAL_KINDS)
        for _ in range(src.integer(1, 3)):
            vocab.extend(SPECIAL_KINDS[src.choice(kinds)])
    return vocab


def _tokens(src: Source, vocab: Sequence[str], length: int) -> list[str]:
    return [src.choice(vocab) for _ in range(length)]


def _mutate(src: Source, tokens: list[str], vocab: Sequence[str]) -> list[str]:
    """A reference made from the hypothesis by a few edits (so n-grams match)."""
    out = list(tokens)
    for _ in range(src.integer(0, 3)):
        op = src.choice(("replace", "delete", "insert"))
        if op == "insert" or not out:
            out.insert(src.integer(0, len(out)), src.choice(vocab))
        elif op == "delete":
            del out[src.integer(0, len(out) - 1)]
        else:
            out[src.integer(0, len(out) - 1)] = src.choice(vocab)
    return out


def _ref_count(src: Source) -> int:
    return src.choice((1, 1, 1, 2, 2, 3, 4, src.integer(1, 8), 8))


def _decimals(src: Source, p: float = 0.3) -> int | None:
    return src.integer(0, 15) if src.boolean(p) else None


def gen_corpus(src: Source) -> Request:
    """A valid bleu-corpus-compute request (see the module docstring for the regimes)."""
    shape = src.choice(CORPUS_SHAPES)
    if shape == "decimals_tie":
        return _corpus_decimal_tie(src)
    max_order = src.choice((4, 4, 4, 1, 2, 3, 5, 6, 7, 8, src.integer(1, 8)))
    vocab = _vocabulary(src, shape)
    other = [f"{t}\u2020" for t in vocab]  # disjoint from vocab
    n_segments = src.choice((1, 1, 2, 3, src.integer(1, 8), src.integer(1, 40)))
    hypotheses: list[list[str]] = []
    references: list[list[list[str]]] = []
    for _ in range(n_segments):
        if shape == "empty" and src.boolean(0.5):
            length = 0
        elif shape == "short_segments" or src.boolean(0.15):
            length = src.integer(0, max(0, max_order - 1))
        else:
            length = src.integer(0, 25)
        hyp = _tokens(src, vocab, length)
        refs: list[list[str]] = []
        for k in range(_ref_count(src)):
            if shape == "identical":
                ref = list(hyp)
            elif shape == "disjoint":
                ref = _tokens(src, other, src.integer(0, 25))
            elif shape == "empty" and src.boolean(0.4):
                ref = []
            elif shape == "ties" and k < 2 and length > 0:
                d = src.integer(0, min(3, length))
                ref = _tokens(src, vocab, length - d if k == 0 else length + d)
            elif src.boolean(0.6):
                ref = _mutate(src, hyp, vocab)
            else:
                ref = _tokens(src, vocab, src.integer(0, 25))
            refs.append(ref)
        if shape == "ties" and src.boolean(0.5):
            refs.reverse()
        hypotheses.append(hyp)
        references.append(refs)
    request: Request = {"hypotheses": hypotheses, "references": references}
    if max_order != 4 or src.boolean(0.2):
        request["max_order"] = max_order
    decimals = _decimals(src)
    if decimals is not None:
        request["decimals"] = decimals
    return request


#: (matched, total, decimals) with matched/total an exact binary tie at ``decimals``.
_TIES = ((1, 2, 0), (1, 4, 1), (3, 4, 1), (1, 8, 2), (5, 8, 2), (3, 8, 2), (1, 16, 3), (9, 16, 3))


def _corpus_decimal_tie(src: Source) -> Request:
    """max_order 1, c > r, unigram precision m/l an exact binary tie at ``decimals``."""
    matched, total, decimals = src.choice(_TIES)
    hyp = [f"m{k}" for k in range(matched)] + [f"x{k}" for k in range(total - matched)]
    ref = [f"m{k}" for k in range(matched)]
    return {"hypotheses": [hyp], "references": [[ref]], "max_order": 1, "decimals": decimals}


SMOOTHING_SHAPES = (
    "mixed", "mixed", "mixed", "zero_matches", "zero_totals", "huge", "c_zero", "r_zero",
    "decimals_tie", "small",
)


def gen_smoothing(src: Source) -> Request:
    """A valid bleu-smoothing-compute request."""
    shape = src.choice(SMOOTHING_SHAPES)
    method = src.choice(("none", "method1", "method2", "method3"))
    if shape == "decimals_tie":
        matched, total, decimals = src.choice(_TIES)
        return {
            "matches": [matched], "totals": [total], "candidate_length": total,
            "reference_length": src.integer(0, total), "smoothing": method, "decimals": decimals,
        }
    n_orders = src.choice((4, 4, 1, 2, 3, 5, 6, 7, 8))
    hi = {"huge": 10**12, "small": 5}.get(shape, src.choice((10, 100, 10**4, 10**6)))
    if shape == "huge":
        top = src.choice((10**12, src.integer(10**11, 10**12)))
    else:
        top = src.integer(0, hi)
    totals: list[int] = []
    t = top
    for _ in range(n_orders):
        totals.append(t)
        t = max(0, t - src.choice((1, 0, src.integer(0, max(1, t // 2 + 1)))))
    if shape == "zero_totals":
        cut = src.integer(0, n_orders - 1)
        totals = [0 if k >= cut else v for k, v in enumerate(totals)]
    matches = [src.integer(0, v) if v and src.boolean(0.9) else 0 for v in totals]
    if shape == "zero_matches" or matches[0] == 0:
        matches = [0] * n_orders
    c = totals[0] if src.boolean(0.5) else src.integer(0, hi)
    r = src.integer(0, hi) if src.boolean(0.6) else c + src.integer(-min(c, 3), 3)
    c, r = min(c, 10**12), min(r, 10**12)
    if shape == "c_zero":
        c = 0
    if shape == "r_zero":
        r = 0
    request: Request = {
        "matches": matches, "totals": totals, "candidate_length": c,
        "reference_length": r, "smoothing": method,
    }
    if method == "method1" and src.boolean(0.5):
        request["epsilon"] = src.choice((0.1, 0.0, 1.0, 0.01, 1e-9, 0.5, 0.3))
    if src.boolean(0.4):
        request["effective_order"] = src.boolean(0.6)
    decimals = _decimals(src)
    if decimals is not None:
        request["decimals"] = decimals
    return request


BREVITY_SHAPES = ("mixed", "mixed", "mixed", "ties", "c_zero", "r_zero", "large_values")
MAX_LENGTH_VALUE = 1_000_000


def gen_brevity(src: Source) -> Request:
    """A valid bleu-brevity-penalty request."""
    # Limit-size requests (up to 10,000 segments) are rare: they cost 100x a
    # typical case in every implementation.
    shape = "limits" if src.boolean(0.04) else src.choice(BREVITY_SHAPES)
    if shape == "limits":
        n_segments = src.choice((10_000, 10_000, src.integer(1000, 10_000), 1))
    else:
        n_segments = src.choice((1, 1, 2, 3, src.integer(1, 10), src.integer(1, 100)))
    hi = {"large_values": MAX_LENGTH_VALUE, "limits": MAX_LENGTH_VALUE}.get(
        shape, src.choice((5, 30, 100))
    )
    segments = []
    for _ in range(n_segments):
        if shape == "limits" and src.boolean(0.3):
            c = MAX_LENGTH_VALUE
        else:
            c = 0 if shape == "c_zero" else src.integer(0, hi)
        n_refs = _ref_count(src)
        if shape == "r_zero":
            refs = [0] * n_refs
        elif shape == "ties" and src.boolean(0.8):
            d = src.integer(0, min(c, 5))
            refs = [c + d, c - d] + [src.integer(0, hi) for _ in range(n_refs - 2)]
            refs = refs[: max(2, n_refs)]
            if src.boolean(0.5):
                refs.reverse()
        else:
            refs = [src.integer(0, hi) for _ in range(n_refs)]
        refs = [min(v, MAX_LENGTH_VALUE) for v in refs]
        segments.append({"candidate_length": c, "reference_lengths": refs})
    request: Request = {"segments": segments}
    decimals = _decimals(src)
    if decimals is not None:
        request["decimals"] = decimals
    return request


GENERATORS: dict[str, Callable[[Source], Request]] = {
    "bleu-corpus-compute": gen_corpus,
    "bleu-smoothing-compute": gen_smoothing,
    "bleu-brevity-penalty": gen_brevity,
}


def requests(tool_id: str) -> st.SearchStrategy[Request]:
    """A hypothesis strategy of valid requests for ``tool_id`` (shrinkable).

    Raises:
        KeyError: unknown tool.
    """
    generator = GENERATORS[tool_id]

    @st.composite
    def strategy(draw: Callable[[st.SearchStrategy[Any]], Any]) -> Request:
        return generator(DrawSource(draw))

    return strategy()


def corpus_requests() -> st.SearchStrategy[Request]:
    """Valid bleu-corpus-compute requests."""
    return requests("bleu-corpus-compute")


def smoothing_requests() -> st.SearchStrategy[Request]:
    """Valid bleu-smoothing-compute requests."""
    return requests("bleu-smoothing-compute")


def brevity_requests() -> st.SearchStrategy[Request]:
    """Valid bleu-brevity-penalty requests."""
    return requests("bleu-brevity-penalty")


# --- regimes, judged from the request ---------------------------------------------

REGIMES: dict[str, tuple[str, ...]] = {
    "bleu-corpus-compute": (
        "empty_hypothesis", "empty_reference", "segment_shorter_than_max_order",
        "refs_1", "refs_8", "refs_varied", "tiny_vocab", "large_vocab",
        "closest_ref_tie", "identical", "disjoint", "token_space", "token_unicode_ws",
        "token_case_variant", "token_nfc_nfd", "token_zero_width",
        *(f"max_order_{n}" for n in range(1, 9)), "decimals_0", "decimals_15",
        "decimals_tie",
    ),
    "bleu-smoothing-compute": (
        "zero_matches", "zero_totals", "huge_counts", "c_zero", "r_zero", "c_gt_r",
        "c_lt_r", "none", "method1", "method2", "method3", "epsilon_0", "effective_order",
        *(f"orders_{n}" for n in range(1, 9)), "decimals_0", "decimals_15", "decimals_tie",
    ),
    "bleu-brevity-penalty": (
        "c_zero", "r_zero", "closest_ref_tie", "refs_1", "refs_8", "max_length_value",
        "max_segments", "c_gt_r", "c_lt_r", "c_eq_r", "decimals_0", "decimals_15",
    ),
}

def _is_tie(value: float, decimals: int) -> bool:
    scaled = decimal.Decimal(value).scaleb(decimals)
    return scaled - scaled.to_integral_value(rounding=decimal.ROUND_FLOOR) == decimal.Decimal("0.5")


def _tie_regimes(tool_id: str, request: Request, out: set[str]) -> None:
    decimals = request.get("decimals")
    if decimals is None:
        return
    out.add(f"decimals_{decimals}")
    from bleu_compat.tools import execute

    plain = {k: v for k, v in request.items() if k != "decimals"}
    result = execute(tool_id, plain)
    if any(_is_tie(result[f], decimals) for f in ("bleu", "brevity_penalty") if f in result):
        out.add("decimals_tie")


def _has_tie(length: int, ref_lengths: Sequence[int]) -> bool:
    """Two reference lengths equally far from ``length``, one shorter, one longer."""
    values = set(ref_lengths)
    return any(v < length and 2 * length - v in values for v in values)


def regimes_of(tool_id: str, request: Request) -> set[str]:
    """The regimes (names in :data:`REGIMES`) a valid request falls in."""
    out: set[str] = set()
    if tool_id == "bleu-corpus-compute":
        hyps, refs = request["hypotheses"], request["references"]
        n = request.get("max_order", 4)
        out.add(f"max_order_{n}")
        counts = {len(r) for r in refs}
        if 1 in counts:
            out.add("refs_1")
        if 8 in counts:
            out.add("refs_8")
        if len(counts) > 1:
            out.add("refs_varied")
        tokens = [t for h in hyps for t in h] + [t for rs in refs for r in rs for t in r]
        vocab = set(tokens)
        if tokens and len(vocab) <= 3 and len(tokens) >= 6:
            out.add("tiny_vocab")
        if len(vocab) >= 200:
            out.add("large_vocab")
        for h, rs in zip(hyps, refs):
            if not h:
                out.add("empty_hypothesis")
            if any(not r for r in rs):
                out.add("empty_reference")
            if len(h) < n:
                out.add("segment_shorter_than_max_order")
            if _has_tie(len(h), [len(r) for r in rs]):
                out.add("closest_ref_tie")
        if all(all(r == h for r in rs) for h, rs in zip(hyps, refs)) and any(hyps):
            out.add("identical")
        hyp_vocab = {t for h in hyps for t in h}
        ref_vocab = {t for rs in refs for r in rs for t in r}
        if hyp_vocab and ref_vocab and not hyp_vocab & ref_vocab:
            out.add("disjoint")
        folded = {}
        normal = {}
        for t in vocab:
            if " " in t:
                out.add("token_space")
            if any(ch.isspace() and ch != " " for ch in t):
                out.add("token_unicode_ws")
            if any(unicodedata.category(ch) == "Cf" for ch in t):
                out.add("token_zero_width")
            folded.setdefault(t.casefold(), set()).add(t)
            normal.setdefault(unicodedata.normalize("NFC", t), set()).add(t)
        if any(len(v) > 1 for v in folded.values()):
            out.add("token_case_variant")
        if any(len(v) > 1 for v in normal.values()):
            out.add("token_nfc_nfd")
    elif tool_id == "bleu-smoothing-compute":
        m, t = request["matches"], request["totals"]
        c, r = request["candidate_length"], request["reference_length"]
        out.add(request["smoothing"])
        out.add(f"orders_{len(m)}")
        if m[0] == 0:
            out.add("zero_matches")
        if 0 in t:
            out.add("zero_totals")
        if max(t + [c, r]) >= 10**11:
            out.add("huge_counts")
        if c == 0:
            out.add("c_zero")
        if r == 0:
            out.add("r_zero")
        out.add("c_gt_r" if c > r else "c_lt_r" if c < r else "c_eq_r")
        if request.get("epsilon") == 0:
            out.add("epsilon_0")
        if request.get("effective_order"):
            out.add("effective_order")
    else:
        segments = request["segments"]
        c = sum(s["candidate_length"] for s in segments)
        r = 0
        for s in segments:
            cl, rl = s["candidate_length"], s["reference_lengths"]
            r += min(rl, key=lambda v: (abs(v - cl), v))
            if len(rl) == 1:
                out.add("refs_1")
            if len(rl) == 8:
                out.add("refs_8")
            if _has_tie(cl, rl):
                out.add("closest_ref_tie")
            if cl == 1_000_000 or 1_000_000 in rl:
                out.add("max_length_value")
        if c == 0:
            out.add("c_zero")
        if r == 0:
            out.add("r_zero")
        if len(segments) == 10_000:
            out.add("max_segments")
        out.add("c_gt_r" if c > r else "c_lt_r" if c < r else "c_eq_r")
    _tie_regimes(tool_id, request, out)
    return out
