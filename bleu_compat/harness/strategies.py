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
brevity-penalty segments up to the card limits.

Issue 10 added the regimes planted bugs showed unreachable:

* *twins*: a hypothesis token next to a reference token of the same segment
  that differs from it only by surrounding whitespace (``"a "``/``"a"``,
  ``" a"``, ``"a\t"``, ``"a\u00a0"``), by case (``"A"``/``"a"``) or by
  Unicode normalisation (``"é"`` U+00E9 / ``"e\u0301"``), so that a counter
  comparing tokens after ``str.strip()``, ``.lower()`` or NFC gets other
  clipped matches than exact string equality;
* corpora at the card's limits, exactly: 1,000 segments, 50,000 tokens,
  1,048,576 token bytes, tokens of 128 UTF-8 bytes (ASCII and multi-byte);
  rare (about 1 case in 80) because the libraries take ~0.5 s on one;
* method1 with subnormal and tiny ``epsilon`` (5e-324 … 1e-9), with totals
  that make ``epsilon / total`` underflow to 0 (SPEC §2: ``ln 0 = −∞``,
  bleu 0) and totals that do not; counts at 1e12 and 1e12 − 1; c = r = 0;
* ragged corpora: one segment with 8 references beside segments with 1,
  empty references and hypotheses, hypotheses shorter than max_order.

:func:`regimes_of` names the regimes a request is in, judged from the
request itself (not from how it was generated), so a test can show each one
is reached.
"""

from __future__ import annotations

import decimal
import math
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
    "EXACT_REGIMES",
    "gen_exact_regime",
    "exact_regime_requests",
    "gen_raw_corpus",
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
#: The card's largest token, 128 UTF-8 bytes, in 1-, 2-, 3- and 4-byte characters.
MAX_BYTE_TOKENS = ("x" * 128, "é" * 64, "א" * 64, "東" * 42 + "ab", "😀" * 32)
SPECIAL_KINDS = {
    "token_space": SPACE_TOKENS,
    "token_unicode_ws": UNICODE_WS_TOKENS,
    "token_case_variant": CASE_TOKENS,
    "token_nfc_nfd": NORMALISATION_TOKENS,
    "token_zero_width": ZERO_WIDTH_TOKENS,
    "max_token_bytes": MAX_BYTE_TOKENS,
}

#: Tokens whose twins (:func:`twins`) are made: ASCII, precomposed (NFC) letters, a word
#: whose upper case is longer (ß -> SS).
TWIN_BASES = ("a", "the", "Haus", "\u00e9", "Caf\u00e9", "\u00c5ngstr\u00f6m", "stra\u00dfe", "I")


def twins(token: str) -> list[str]:
    """Tokens that differ from ``token`` but equal it after ``str.strip()``, case folding
    (``.lower()``/``.upper()``) or Unicode normalisation (NFC/NFD), in a fixed order."""
    out = [token + " ", " " + token, token + "\t", token + "\u00a0", "\n" + token,
           token.upper(), token.lower(), token.capitalize(), token.swapcase(),
           unicodedata.normalize("NFD", token), unicodedata.normalize("NFC", token)]
    seen: list[str] = []
    for t in out:
        if t != token and t not in seen:
            seen.append(t)
    return seen


CORPUS_SHAPES = (
    "mixed", "mixed", "mixed", "tiny_vocab", "large_vocab", "identical", "disjoint",
    "special_tokens", "special_tokens", "short_segments", "ties", "empty", "decimals_tie",
    "twins", "twins", "ragged",
)
#: Corpora at the card's limits (exactly); drawn in about 1 case in 80.
CORPUS_LIMIT_SHAPES = ("limit_segments", "limit_tokens", "limit_bytes")
CORPUS_LIMIT_P = 0.0125
CORPUS_MAX_SEGMENTS = 1000
CORPUS_MAX_TOTAL_TOKENS = 50_000
CORPUS_MAX_TOTAL_TOKEN_BYTES = 1_048_576
CORPUS_MAX_TOKEN_BYTES = 128


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


def _twin_vocabulary(src: Source) -> tuple[list[str], dict[str, list[str]]]:
    """Some bases with their twins, and each token's group (itself and its twins)."""
    bases = [src.choice(TWIN_BASES) for _ in range(src.integer(1, 4))]
    vocab: list[str] = list(PLAIN_TOKENS[: src.integer(2, 8)])
    group: dict[str, list[str]] = {}
    for base in dict.fromkeys(bases):
        members = [base, *twins(base)]
        for t in members:
            group[t] = members
        vocab.extend(members)
    return vocab, group


def _twin_swap(src: Source, tokens: list[str], group: dict[str, list[str]]) -> list[str]:
    """``tokens`` with some tokens replaced by a twin (so only exact equality tells them apart)."""
    out = list(tokens)
    for i, t in enumerate(out):
        if t in group and src.boolean(0.5):
            out[i] = src.choice([u for u in group[t] if u != t])
    return out


def _ref_count(src: Source) -> int:
    return src.choice((1, 1, 1, 2, 2, 3, 4, src.integer(1, 8), 8))


def _decimals(src: Source, p: float = 0.3) -> int | None:
    return src.integer(0, 15) if src.boolean(p) else None


def gen_corpus(src: Source) -> Request:
    """A valid bleu-corpus-compute request (see the module docstring for the regimes)."""
    if src.boolean(CORPUS_LIMIT_P):
        return _corpus_at_limits(src, src.choice(CORPUS_LIMIT_SHAPES))
    shape = src.choice(CORPUS_SHAPES)
    if shape == "decimals_tie":
        return _corpus_decimal_tie(src)
    max_order = src.choice((4, 4, 4, 1, 2, 3, 5, 6, 7, 8, src.integer(1, 8)))
    group: dict[str, list[str]] = {}
    if shape == "twins":
        vocab, group = _twin_vocabulary(src)
    else:
        vocab = _vocabulary(src, shape)
    # disjoint from vocab (and within the 128-byte token limit)
    other = [f"{t}\u2020" for t in vocab if len(t.encode("utf-8")) <= CORPUS_MAX_TOKEN_BYTES - 3]
    n_segments = src.choice((1, 1, 2, 3, src.integer(1, 8), src.integer(1, 40)))
    hypotheses: list[list[str]] = []
    references: list[list[list[str]]] = []
    if shape == "ragged":
        n_segments = src.integer(2, 12)
        wide = src.integer(0, n_segments - 1)  # the one segment with 8 references
    for i in range(n_segments):
        if shape in ("empty", "ragged") and src.boolean(0.3 if shape == "ragged" else 0.5):
            length = 0
        elif shape in ("short_segments", "ragged") or src.boolean(0.15):
            length = src.integer(0, max(0, max_order - 1))
        else:
            length = src.integer(0, 25)
        hyp = _tokens(src, vocab, length)
        refs: list[list[str]] = []
        if shape == "ragged":
            n_refs = 8 if i == wide else src.choice((1, 1, 2))
        else:
            n_refs = _ref_count(src)
        for k in range(n_refs):
            if shape == "identical":
                ref = list(hyp)
            elif shape == "disjoint":
                ref = _tokens(src, other, src.integer(0, 25))
            elif shape == "twins":
                ref = _twin_swap(src, _mutate(src, hyp, vocab) if src.boolean(0.7) else list(hyp), group)
            elif shape in ("empty", "ragged") and src.boolean(0.4):
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
    _fit_byte_budget(hypotheses, references)
    request: Request = {"hypotheses": hypotheses, "references": references}
    if max_order != 4 or src.boolean(0.2):
        request["max_order"] = max_order
    decimals = _decimals(src)
    if decimals is not None:
        request["decimals"] = decimals
    return request


def _fit_byte_budget(hypotheses: list[list[str]], references: list[list[list[str]]]) -> None:
    """Keep a corpus within max_total_token_bytes: the 128-byte tokens of a 40-segment,
    8-reference corpus can exceed 1 MiB. Long tokens are replaced by ``"x"`` from the last
    reference backwards until the corpus fits (deterministic, no draw)."""
    lists = hypotheses + [r for rs in references for r in rs]
    total = sum(len(t.encode("utf-8")) for tokens in lists for t in tokens)
    for tokens in reversed(lists):
        if total <= CORPUS_MAX_TOTAL_TOKEN_BYTES:
            return
        for j in range(len(tokens) - 1, -1, -1):
            size = len(tokens[j].encode("utf-8"))
            if size > 8:
                tokens[j] = "x"
                total -= size - 1
                if total <= CORPUS_MAX_TOTAL_TOKEN_BYTES:
                    return


def _corpus_at_limits(src: Source, shape: str) -> Request:
    """A corpus exactly at one of the card's limits.

    ``limit_segments``: 1,000 short segments; ``limit_tokens``: exactly 50,000
    tokens (hypotheses and references) in 1–1,000 segments; ``limit_bytes``:
    exactly 1,048,576 UTF-8 bytes of tokens, in tokens of 128 bytes (ASCII and
    multi-byte) and a few short ones. The bulk is drawn from a ``Random``
    seeded by one draw, so a hypothesis example stays small.
    """
    bulk = random.Random(src.integer(0, 2**32 - 1))
    max_order = src.choice((1, 2, 4, 4, 8))
    # short tokens only (50,000 tokens of 128 bytes would be 6 MiB); limit_bytes has its own
    kinds = [k for k in SPECIAL_KINDS if k != "max_token_bytes"]
    vocab = list(PLAIN_TOKENS[:12]) + list(SPECIAL_KINDS[src.choice(kinds)])

    def near(hyp: list[str]) -> list[str]:
        return [t if bulk.random() < 0.7 else bulk.choice(vocab) for t in hyp]

    hypotheses: list[list[str]] = []
    references: list[list[list[str]]] = []
    if shape == "limit_segments":
        for _ in range(CORPUS_MAX_SEGMENTS):
            hyp = [bulk.choice(vocab) for _ in range(bulk.randint(0, 6))]
            refs = [near(hyp) for _ in range(bulk.choice((1, 1, 2, 4)))]
            hypotheses.append(hyp)
            references.append(refs)
    elif shape == "limit_tokens":
        n_segments = src.choice((1, 10, 100, 1000))
        per_segment = CORPUS_MAX_TOTAL_TOKENS // n_segments  # tokens per segment, hyp + 1 ref
        for _ in range(n_segments):
            hyp_len = bulk.randint(0, per_segment)
            hyp = [bulk.choice(vocab) for _ in range(hyp_len)]
            ref = (near(hyp) + [bulk.choice(vocab) for _ in range(per_segment)])[: per_segment - hyp_len]
            hypotheses.append(hyp)
            references.append([ref])
    else:  # limit_bytes: 8,192 tokens of 128 bytes = 1 MiB, minus room for short tokens
        big = list(MAX_BYTE_TOKENS) + [f"{k:03d}" + "y" * 125 for k in range(20)]
        n_segments = src.choice((1, 8, 64, 512))
        n_big = CORPUS_MAX_TOTAL_TOKEN_BYTES // CORPUS_MAX_TOKEN_BYTES - 2  # two 128-byte slots left
        fill = ["ab"] * 64 + ["a"] * 128  # 256 bytes in short tokens
        tokens = [bulk.choice(big) for _ in range(n_big)] + fill
        bulk.shuffle(tokens)
        half = len(tokens) // 2
        hyp_tokens, ref_tokens = tokens[:half], tokens[half:]
        for i in range(n_segments):
            hypotheses.append(hyp_tokens[i * half // n_segments:(i + 1) * half // n_segments])
            lo, hi = i * len(ref_tokens) // n_segments, (i + 1) * len(ref_tokens) // n_segments
            references.append([ref_tokens[lo:hi]])
    request: Request = {"hypotheses": hypotheses, "references": references}
    if max_order != 4:
        request["max_order"] = max_order
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
    "decimals_tie", "small", "tiny_epsilon", "tiny_epsilon", "near_max", "c_r_zero",
)
MAX_COUNT_VALUE = 10**12
#: method1 epsilons below the normal range (5e-324 is the smallest subnormal, 2^-1074) and
#: tiny normal ones: ``epsilon / total`` underflows to 0 for some totals and not for others.
TINY_EPSILONS = (5e-324, 1e-323, 1.5e-323, 1e-320, 1e-310, 1e-300, 1e-9)
#: Totals of a zero-match order beside a tiny epsilon: 1 (no division), 2 and 6 (the tie at
#: 2^-1075 for 5e-324 and 1.5e-323, rounding to even 0), 5, 1e5, 1e12 - 1, 1e12.
TINY_EPSILON_TOTALS = (1, 1, 2, 3, 5, 6, 10**5, MAX_COUNT_VALUE - 1, MAX_COUNT_VALUE)


def _smoothing_tiny_epsilon(src: Source) -> Request:
    """method1 with a subnormal or tiny epsilon and at least one zero-match order."""
    n_orders = src.choice((2, 2, 3, 4, 4, 8))
    epsilon = src.choice(TINY_EPSILONS)
    t1 = src.choice((1, 2, 10, 10**6, MAX_COUNT_VALUE))
    m1 = src.choice((1, t1, src.integer(1, t1)))
    matches, totals = [m1], [t1]
    for n in range(2, n_orders + 1):
        if src.boolean(0.6):
            matches.append(0)
            totals.append(src.choice(TINY_EPSILON_TOTALS))
        else:
            t = src.integer(1, t1)
            matches.append(src.integer(1, t))
            totals.append(t)
    if all(m != 0 for m in matches):
        matches[-1] = 0
    c = src.choice((t1, src.integer(1, MAX_COUNT_VALUE), 1))
    r = src.choice((c, src.integer(0, c), c + src.integer(0, 3)))
    request: Request = {
        "matches": matches, "totals": totals, "candidate_length": c,
        "reference_length": min(r, MAX_COUNT_VALUE), "smoothing": "method1", "epsilon": epsilon,
    }
    if src.boolean(0.3):
        request["effective_order"] = src.boolean(0.5)
    decimals = _decimals(src, 0.2)
    if decimals is not None:
        request["decimals"] = decimals
    return request


def _near_max(src: Source) -> int:
    return src.choice((MAX_COUNT_VALUE, MAX_COUNT_VALUE - 1, MAX_COUNT_VALUE - src.integer(2, 1000)))


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
    if shape == "tiny_epsilon":
        return _smoothing_tiny_epsilon(src)
    n_orders = src.choice((4, 4, 1, 2, 3, 5, 6, 7, 8))
    hi = {"huge": MAX_COUNT_VALUE, "near_max": MAX_COUNT_VALUE, "small": 5}.get(
        shape, src.choice((10, 100, 10**4, 10**6))
    )
    if shape == "huge":
        top = src.choice((MAX_COUNT_VALUE, src.integer(10**11, MAX_COUNT_VALUE)))
    elif shape == "near_max":
        top = _near_max(src)
    else:
        top = src.integer(0, hi)
    totals: list[int] = []
    t = top
    for _ in range(n_orders):
        totals.append(t)
        if shape == "near_max" and src.boolean(0.5):
            t = max(0, t - src.choice((0, 1)))
        else:
            t = max(0, t - src.choice((1, 0, src.integer(0, max(1, t // 2 + 1)))))
    if shape == "zero_totals":
        cut = src.integer(0, n_orders - 1)
        totals = [0 if k >= cut else v for k, v in enumerate(totals)]
    if shape == "near_max":
        matches = [src.choice((v, max(0, v - 1), src.integer(0, v))) if v else 0 for v in totals]
    else:
        matches = [src.integer(0, v) if v and src.boolean(0.9) else 0 for v in totals]
    if shape == "zero_matches" or matches[0] == 0:
        matches = [0] * n_orders
    if shape == "near_max":
        c, r = _near_max(src), _near_max(src)
    else:
        c = totals[0] if src.boolean(0.5) else src.integer(0, hi)
        r = src.integer(0, hi) if src.boolean(0.6) else c + src.integer(-min(c, 3), 3)
    c, r = min(c, MAX_COUNT_VALUE), min(r, MAX_COUNT_VALUE)
    if shape in ("c_zero", "c_r_zero"):
        c = 0
    if shape in ("r_zero", "c_r_zero"):
        r = 0
    request: Request = {
        "matches": matches, "totals": totals, "candidate_length": c,
        "reference_length": r, "smoothing": method,
    }
    if method == "method1" and src.boolean(0.5):
        request["epsilon"] = src.choice((0.1, 0.0, 1.0, 0.01, 1e-9, 0.5, 0.3, src.choice(TINY_EPSILONS)))
    if src.boolean(0.4):
        request["effective_order"] = src.boolean(0.6)
    decimals = _decimals(src)
    if decimals is not None:
        request["decimals"] = decimals
    return request


BREVITY_SHAPES = ("mixed", "mixed", "mixed", "ties", "c_zero", "r_zero", "large_values", "c_r_zero")
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
            c = 0 if shape in ("c_zero", "c_r_zero") else src.integer(0, hi)
        n_refs = _ref_count(src)
        if shape in ("r_zero", "c_r_zero"):
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


#: The ranges of exact values the truth's exact side (:mod:`bleu_compat.harness.truth`)
#: treats specially (issue 25, item 4), each -> (what it is, the tools that can reach it).
#: ``r/c`` bounds: the brevity penalty ``exp(1 - r/c)`` is below the smallest normal double
#: 2^-1022 from r/c = 709.3964 (1 + 1022 ln 2), and at or below half the smallest subnormal,
#: 2^-1075 (its double is 0), from r/c = 746.1332 (1 + 1075 ln 2); the truth short-cuts
#: r/c > 800 to 0 without evaluating exp.
EXACT_REGIMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "bp-c-zero": ("c = 0: brevity penalty 0", ("bleu-brevity-penalty", "bleu-smoothing-compute")),
    "bp-c-above-r": ("c > r: brevity penalty 1", ("bleu-brevity-penalty", "bleu-smoothing-compute",
                                                   "bleu-corpus-compute")),
    "rc-1-80": ("1 <= r/c <= 80", ("bleu-brevity-penalty", "bleu-smoothing-compute",
                                   "bleu-corpus-compute")),
    "rc-80-709": ("80 < r/c < 709.39: a tiny normal brevity penalty",
                  ("bleu-brevity-penalty", "bleu-smoothing-compute", "bleu-corpus-compute")),
    "rc-709-746": ("709.40 < r/c < 746.13: a subnormal brevity penalty",
                   ("bleu-brevity-penalty", "bleu-smoothing-compute", "bleu-corpus-compute")),
    "rc-746-800": ("746.14 < r/c <= 800: exp evaluated, at or below 2^-1075, its double 0",
                   ("bleu-brevity-penalty", "bleu-smoothing-compute", "bleu-corpus-compute")),
    "rc-above-800": ("r/c > 800: the truth's short-cut to 0",
                     ("bleu-brevity-penalty", "bleu-smoothing-compute", "bleu-corpus-compute")),
    "ratio-rounds-to-zero": ("method1: epsilon / total below 2^-1075 (its double 0: bleu 0)",
                             ("bleu-smoothing-compute",)),
    "ratio-tie": ("method1: epsilon / total exactly 2^-1075 (rounds to the even 0)",
                  ("bleu-smoothing-compute",)),
    "ratio-subnormal": ("method1: epsilon / total subnormal, not 0", ("bleu-smoothing-compute",)),
}
#: (lo, hi) of r/c per regime: r/c strictly inside (hi None: up to the tool's limit)
_RC_BOUNDS = {"rc-1-80": (1, 80), "rc-80-709": (80, 709.39), "rc-709-746": (709.40, 746.13),
              "rc-746-800": (746.14, 800), "rc-above-800": (800, None)}


def _rc_pair(src: Source, regime: str, c_max: int, r_max: int) -> tuple[int, int]:
    """(c, r) with r/c inside ``regime``'s bounds, c <= c_max, r <= r_max."""
    lo, hi = _RC_BOUNDS[regime]
    hi_value = hi if hi is not None else r_max
    c = src.integer(1, max(1, min(c_max, int(r_max / hi_value))))
    low = math.floor(c * lo) + 1
    high = min(r_max, math.ceil(c * hi_value) - 1) if hi is not None else r_max
    if regime == "rc-1-80":
        low = c  # r/c = 1 included: BP exactly 1 without the c > r branch
    return c, src.integer(low, max(low, high))


def gen_exact_regime(src: Source, tool_id: str, regime: str) -> Request:
    """A valid ``tool_id`` request whose exact values lie in ``regime`` (:data:`EXACT_REGIMES`).

    Raises:
        ValueError: ``tool_id`` cannot reach ``regime``.
    """
    if tool_id not in EXACT_REGIMES[regime][1]:
        raise ValueError(f"{tool_id} cannot reach {regime}")
    if tool_id == "bleu-brevity-penalty":
        if regime == "bp-c-zero":
            c, r = 0, src.integer(0, 1000)
        elif regime == "bp-c-above-r":
            r = src.integer(0, 1000)
            c = r + src.integer(1, 1000)
        else:
            c, r = _rc_pair(src, regime, 1000, MAX_LENGTH_VALUE)
        refs = [r] + [src.integer(r + abs(r - c) + 1, MAX_LENGTH_VALUE)
                      for _ in range(src.integer(0, 2)) if r + abs(r - c) < MAX_LENGTH_VALUE]
        return {"segments": [{"candidate_length": c, "reference_lengths": refs}]}
    if tool_id == "bleu-corpus-compute":
        if regime == "bp-c-above-r":
            c = src.integer(2, 6)
            r = src.integer(1, c - 1)
        else:
            c, r = _rc_pair(src, regime, 6, 6000)
        hyp = ["w"] * c
        ref = ["w"] * min(c, r) + ["f"] * (r - min(c, r))
        return {"hypotheses": [hyp], "references": [[ref]], "max_order": 1}
    # bleu-smoothing-compute
    n_orders = src.integer(1, 4)
    if regime.startswith("ratio-"):
        if regime == "ratio-rounds-to-zero":
            epsilon, total = 5e-324, src.choice((3, 5, 10**6))
        elif regime == "ratio-tie":  # 2^-1074 / 2 and 3 * 2^-1074 / 6: exactly 2^-1075
            epsilon, total = src.choice(((5e-324, 2), (1.5e-323, 6)))
        else:
            epsilon, total = src.choice((1e-310, 1e-320)), src.choice((1, 10, 1000))
        n_orders = max(2, n_orders)
        c = src.integer(1, 100)
        matches = [c] + [0] * (n_orders - 1)
        totals = [c] + [total] * (n_orders - 1)
        return {"matches": matches, "totals": totals, "candidate_length": c,
                "reference_length": src.integer(0, c), "smoothing": "method1", "epsilon": epsilon}
    if regime == "bp-c-zero":
        c, r = 0, src.integer(0, 1000)
    elif regime == "bp-c-above-r":
        r = src.integer(0, 1000)
        c = r + src.integer(1, 1000)
    else:
        c, r = _rc_pair(src, regime, 10**6, MAX_COUNT_VALUE)
    top = max(1, c)
    totals = [max(1, top - k) for k in range(n_orders)]
    matches = [src.choice((t, src.integer(1, t))) for t in totals]
    return {"matches": matches, "totals": totals, "candidate_length": c, "reference_length": r,
            "smoothing": src.choice(("none", "method1", "method2", "method3"))}


def exact_regime_requests(seed: int, per_regime: int) -> list[tuple[str, str, Request]]:
    """``(tool, case id, request)``: ``per_regime`` seeded requests of each tool in each
    :data:`EXACT_REGIMES` range it can reach (case ids ``"<tool>~exact:<regime>#<k>"``;
    request k from ``random.Random(f"{seed}:<tool>:exact:<regime>:<k>")``)."""
    out = []
    for regime, (_, tools) in EXACT_REGIMES.items():
        for tool in tools:
            for k in range(per_regime):
                src = RandomSource(random.Random(f"{seed}:{tool}:exact:{regime}:{k}"))
                out.append((tool, f"{tool}~exact:{regime}#{k}", gen_exact_regime(src, tool, regime)))
    return out


#: words of the raw-text corpora (:func:`gen_raw_corpus`): case variants, punctuation
#: attached (what 13a, intl and split tokenize differently), digits, an apostrophe
RAW_WORDS = ("the", "The", "THE", "cat", "Cat", "sat", "on", "mat", "mat.", "world!", "Hello,",
             "U.S.", "3.5", "don't", "(a)", "x-y", "\"quoted\"", "caf\u00e9", "Stra\u00dfe", "a",
             "of", "to", "and", "in", "is", "it", "was", "for", "--", "...", "50%", "$5")


def gen_raw_corpus(src: Source) -> tuple[list[str], list[list[str]]]:
    """A small raw-text corpus for ``score --compare`` (issue 25, item 3): (hypothesis lines,
    reference files' lines), 2–10 segments, 1–3 references; each reference a variant of the
    hypothesis (words dropped, changed, case flipped) or unrelated, short hypotheses (below
    4 tokens: NLTK's denominator floor), references of several lengths (closest-length ties)."""
    n = src.integer(2, 10)
    n_refs = src.choice((1, 1, 2, 3))
    hyps: list[str] = []
    refs: list[list[str]] = [[] for _ in range(n_refs)]
    for _ in range(n):
        length = src.choice((1, 2, 3, src.integer(4, 12), src.integer(4, 25)))
        hyp = [src.choice(RAW_WORDS) for _ in range(length)]
        hyps.append(" ".join(hyp))
        for k in range(n_refs):
            kind = src.choice(("variant", "variant", "variant", "same", "other"))
            if kind == "same":
                ref = list(hyp)
            elif kind == "other":
                ref = [src.choice(RAW_WORDS) for _ in range(src.integer(1, 15))]
            else:
                ref = [w.swapcase() if src.boolean(0.1) else w for w in hyp if not src.boolean(0.2)]
                ref = [src.choice(RAW_WORDS) if src.boolean(0.2) else w for w in ref]
                ref += [src.choice(RAW_WORDS) for _ in range(src.integer(0, 4))]
            refs[k].append(" ".join(ref) or src.choice(RAW_WORDS))
    return hyps, refs


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
        "decimals_tie", "twin_strip", "twin_case", "twin_nfc", "c_r_zero",
        "max_segments", "max_total_tokens", "max_total_token_bytes", "max_token_bytes",
        "max_token_bytes_multibyte",
    ),
    "bleu-smoothing-compute": (
        "zero_matches", "zero_totals", "huge_counts", "c_zero", "r_zero", "c_gt_r",
        "c_lt_r", "none", "method1", "method2", "method3", "epsilon_0", "effective_order",
        *(f"orders_{n}" for n in range(1, 9)), "decimals_0", "decimals_15", "decimals_tie",
        "epsilon_subnormal", "epsilon_tiny", "epsilon_quotient_underflow",
        "epsilon_quotient_subnormal", "count_at_max", "count_just_under_max", "c_r_zero",
    ),
    "bleu-brevity-penalty": (
        "c_zero", "r_zero", "closest_ref_tie", "refs_1", "refs_8", "max_length_value",
        "max_segments", "c_gt_r", "c_lt_r", "c_eq_r", "decimals_0", "decimals_15", "c_r_zero",
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
    from .truth import truth  # the independent card-order doubles, before decimals

    unrounded = truth(tool_id, request).unrounded
    if any(_is_tie(v, decimals) for v in unrounded.values()):
        out.add("decimals_tie")


def _has_tie(length: int, ref_lengths: Sequence[int]) -> bool:
    """Two reference lengths equally far from ``length``, one shorter, one longer."""
    values = set(ref_lengths)
    return any(v < length and 2 * length - v in values for v in values)


#: How a mutant might compare tokens (the twin regimes): name -> the token transform.
TWIN_TRANSFORMS: dict[str, Callable[[str], str]] = {
    "twin_strip": str.strip,
    "twin_case": str.lower,
    "twin_nfc": lambda t: unicodedata.normalize("NFC", t),
}


def _twin_regimes(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]], out: set[str]) -> None:
    """A hypothesis token and a reference token of the same segment that differ but are equal
    after a transform: a counter comparing transformed tokens gets other matches."""
    for name, f in TWIN_TRANSFORMS.items():
        for h, rs in zip(hyps, refs):
            ref_tokens = {t for r in rs for t in r}
            if not h or not ref_tokens:
                continue
            transformed = {f(t) for t in ref_tokens}
            if any(t not in ref_tokens and f(t) in transformed for t in set(h)):
                out.add(name)
                break


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
        _twin_regimes(hyps, refs, out)
        if not any(hyps) and not any(r for rs in refs for r in rs):
            out.add("c_r_zero")
        if len(hyps) == CORPUS_MAX_SEGMENTS:
            out.add("max_segments")
        if len(tokens) == CORPUS_MAX_TOTAL_TOKENS:
            out.add("max_total_tokens")
        sizes = [len(t.encode("utf-8")) for t in tokens]
        if sum(sizes) == CORPUS_MAX_TOTAL_TOKEN_BYTES:
            out.add("max_total_token_bytes")
        for t in vocab:
            if len(t.encode("utf-8")) == CORPUS_MAX_TOKEN_BYTES:
                out.add("max_token_bytes" if t.isascii() else "max_token_bytes_multibyte")
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
        epsilon = request.get("epsilon")
        if request["smoothing"] == "method1" and epsilon:
            if epsilon < 2.2250738585072014e-308:  # below the smallest normal double
                out.add("epsilon_subnormal")
            if epsilon <= 1e-9:
                out.add("epsilon_tiny")
            for mn, tn in zip(m, t):
                if mn == 0 and tn > 0:
                    q = epsilon / tn  # IEEE division, as the card's formula evaluates it
                    if q == 0.0:
                        out.add("epsilon_quotient_underflow")
                    elif q < 2.2250738585072014e-308:
                        out.add("epsilon_quotient_subnormal")
        values = m + t + [c, r]
        if MAX_COUNT_VALUE in values:
            out.add("count_at_max")
        if MAX_COUNT_VALUE - 1 in values:
            out.add("count_just_under_max")
        if c == 0 and r == 0:
            out.add("c_r_zero")
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
        if c == 0 and r == 0:
            out.add("c_r_zero")
        out.add("c_gt_r" if c > r else "c_lt_r" if c < r else "c_eq_r")
    _tie_regimes(tool_id, request, out)
    return out
