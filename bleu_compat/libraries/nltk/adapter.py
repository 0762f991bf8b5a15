"""NLTK adapter: a card request run through ``nltk.translate.bleu_score``.

Two modes (SPEC.md §7):

* ``as_called`` — what a user gets calling NLTK the usual way:
  ``corpus_bleu(references, hypotheses, weights=(1/N,)*N)`` for the corpus
  tool (the statistics shown beside the score are the ones ``corpus_bleu``
  sums internally, from the public helpers ``modified_precision``,
  ``closest_ref_length`` and ``brevity_penalty``, so NLTK's floor of every
  segment's denominator at 1 is visible); ``closest_ref_length`` and
  ``brevity_penalty`` for the brevity tool; ``SmoothingFunction().methodK``
  (``method0`` for ``none``) on the card's statistics as NLTK's precisions,
  ``Fraction(m_n, l_n, _normalize=False)``, for the smoothing tool.
* ``mapped`` — everything the adapter can honestly do to make NLTK compute
  the card's semantics: the corpus tool leaves out, for order n, the
  segments whose hypothesis is shorter than n (``modified_precision``
  returns 0/1 for them, where the card counts 0/0) and feeds the corrected
  precisions to ``corpus_bleu`` through its ``smoothing_function`` hook
  (still ``method0``: NLTK has no way to return exactly 0 for an order
  without matches). The smoothing tool is ``not_representable`` when a
  total is 0 (an NLTK precision is a ``Fraction``; 0/0 raises) or when
  ``effective_order`` would drop orders (NLTK has no effective order).

NLTK has no function from statistics to score, so for the smoothing tool
the adapter applies the last step of ``corpus_bleu``
(nltk/translate/bleu_score.py: ``bp * exp(fsum(w_i * log(p_i) for w_i, p_i
in zip(weights, p_n) if p_i > 0))`` with ``w_i = 1/N``, and ``0`` when the
unigram numerator is 0) to NLTK's own ``brevity_penalty`` and
``SmoothingFunction`` outputs; oracle_tests/test_adapters_nltk.py checks
that this step equals ``corpus_bleu`` bit for bit. ``decimals`` is applied
with :func:`bleu_compat.rounding.to_fixed`; ``raw`` keeps NLTK's values.
The request is never mutated.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.rounding import to_fixed

__all__ = ["run", "score_lines", "nltk_final_score", "skips_zero_precisions", "configure",
           "tokenize_lines", "tokenize_block", "lowercase_commutes", "TOKENIZERS"]

#: NLTK's own tokenizers a configuration may name (``tok=``), run by NLTK itself:
#: ``treebank`` is ``TreebankWordTokenizer().tokenize`` (rules only, no data);
#: ``word_tokenize`` is ``nltk.word_tokenize`` (Punkt sentence splitting, then the
#: Treebank rules), which needs the ``punkt_tab`` data package
TOKENIZERS = ("treebank", "word_tokenize")
#: the data package ``word_tokenize`` loads (NLTK 3.9+; 3.8 and older load ``punkt``)
PUNKT = "punkt_tab"

LIBRARY = "nltk"


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run NLTK on a validated card ``request`` in ``mode``.

    Args:
        mode: ``"as_called"`` or ``"mapped"``.
        tool_id: one of the three card ids.
        request: a request the card's validation accepted; never mutated.

    Returns:
        An :class:`AdapterResult`; ``error`` is set when NLTK raised,
        ``not_representable`` when NLTK cannot express the request.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: NLTK is not installed.
    """
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers, count_warnings=True)


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """NLTK's own BLEU (0–1) for a ``score --compare`` configuration, on raw lines.

    ``corpus_bleu`` on ``str.split()`` (or tokenizer-) tokens with weights 1/N and
    ``SmoothingFunction().methodK`` (method1 with ``epsilon``); method0's warning
    ("0 counts of n-gram overlaps", once per call) is silenced.

    Args:
        cfg: a :class:`bleu_compat.decompose.Configuration` of NLTK.
        hyp_lines: one line per segment; ref_lines: ``ref_lines[k]`` is reference file k.
    """
    import warnings

    from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu

    from bleu_compat.decompose import config_tokens

    if cfg.tokenize in TOKENIZERS:  # NLTK's own tokenizer, lowercasing first as config_tokens
        def lines(texts: Sequence[str]) -> list[list[str]]:
            return tokenize_lines(cfg.tokenize, [t.lower() if cfg.lowercase else t for t in texts])

        hyps = lines(hyp_lines)
        refs = [list(seg) for seg in zip(*(lines(r) for r in ref_lines))]
    else:
        hyps = [config_tokens(h, cfg.tokenize, cfg.lowercase) for h in hyp_lines]
        refs = [[config_tokens(r, cfg.tokenize, cfg.lowercase) for r in seg]
                for seg in zip(*ref_lines)]
    # value= is method1's epsilon, method4/method7's k, method6's alpha
    key = {"method1": "epsilon", "method4": "k", "method7": "k", "method6": "alpha"}
    sf = SmoothingFunction(**{key[cfg.smoothing]: cfg.smooth_value}) \
        if cfg.smooth_value is not None else SmoothingFunction()
    fn = None if cfg.smoothing == "none" else getattr(sf, cfg.smoothing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(corpus_bleu(refs, hyps, weights=(1 / cfg.max_order,) * cfg.max_order,
                                 smoothing_function=fn))


def _nltk_data_dirs() -> list[str]:
    """NLTK's default data folders (``nltk.data.path`` in a fresh process, NLTK 3.x: the
    ``NLTK_DATA`` folders, ``~/nltk_data``, ``nltk_data`` under ``sys.prefix``, ``share`` and
    ``lib``, then ``/usr/share``, ``/usr/local/share``, ``/usr/lib``, ``/usr/local/lib``;
    ``%APPDATA%\\nltk_data`` and the drive roots on Windows)."""
    import os
    import sys

    dirs = [d for d in os.environ.get("NLTK_DATA", "").split(os.pathsep) if d]
    dirs.append(os.path.expanduser("~/nltk_data"))
    dirs += [os.path.join(sys.prefix, *p) for p in (("nltk_data",), ("share", "nltk_data"),
                                                    ("lib", "nltk_data"))]
    if sys.platform.startswith("win"):
        dirs += [os.path.join(os.environ.get("APPDATA", "C:\\"), "nltk_data"),
                 r"C:\nltk_data", r"D:\nltk_data", r"E:\nltk_data"]
    else:
        dirs += ["/usr/share/nltk_data", "/usr/local/share/nltk_data", "/usr/lib/nltk_data",
                 "/usr/local/lib/nltk_data"]
    return dirs


def _punkt_installed() -> bool:
    """Whether NLTK finds its Punkt data. A look in NLTK's default data folders first
    (without importing NLTK, which takes a fifth of a second): only where one of them holds
    ``tokenizers/punkt_tab`` (or its ``.zip``) is NLTK asked."""
    import os

    if not any(os.path.exists(os.path.join(d, "tokenizers", name))
               for d in _nltk_data_dirs() for name in (PUNKT, f"{PUNKT}.zip")):
        return False
    import nltk

    try:
        nltk.data.find(f"tokenizers/{PUNKT}/english/")
    except LookupError:
        return False
    return True


def configure(cfg: Any) -> Any:
    """Check an NLTK configuration's tokenizer: ``tok=word_tokenize`` needs NLTK's Punkt
    data (``punkt_tab``), which ``pip install nltk`` does not bring.

    Raises:
        ValueError: ``word_tokenize`` without the data (one line naming the package and
            the command that installs it).
    """
    if cfg.tokenize == "word_tokenize" and not _punkt_installed():
        raise ValueError(
            f"{cfg.name}: tok=word_tokenize needs NLTK's '{PUNKT}' data package, which is not "
            f"installed (python -m nltk.downloader {PUNKT}); tok=treebank needs no data")
    return cfg


def tokenize_lines(name: str, lines: Sequence[str]) -> list[list[str]]:
    """Each line's tokens from NLTK's own tokenizer ``name`` (:data:`TOKENIZERS`).

    ``treebank``: ``TreebankWordTokenizer().tokenize(line)``; ``word_tokenize``:
    ``nltk.word_tokenize(line)`` (English Punkt, then the Treebank rules).

    Raises:
        ValueError: an unknown name, or ``word_tokenize`` without the Punkt data.
    """
    if name == "treebank":
        from nltk.tokenize import TreebankWordTokenizer

        tokenize = TreebankWordTokenizer().tokenize
    elif name == "word_tokenize":
        if not _punkt_installed():
            raise ValueError(f"NLTK's word_tokenize needs the '{PUNKT}' data package "
                             f"(python -m nltk.downloader {PUNKT})")
        from nltk.tokenize import word_tokenize as tokenize
    else:
        raise ValueError(f"NLTK has no tokenizer {name!r}: {', '.join(TOKENIZERS)}")
    return [list(tokenize(line)) for line in lines]


#: NLTK 3.10.4's ``TreebankWordTokenizer`` rules (``nltk/tokenize/treebank.py``, read, not
#: imported), in its order, written for a block of lines: every class that could reach across
#: a line end leaves LF out, ``^``/``$`` are per line (MULTILINE), so each line of the block
#: gets the tokens the per-line rules give it. Each rule: (pattern, replacement, engine,
#: literals). NLTK 3.10 compiles the rules with ``regex`` (its ``redos`` module) and the
#: contractions with ``re``; a rule whose pattern holds no class that the two engines read
#: differently (``\\d``, ``\\s``, ``\\b``, case folding) is run by the faster one. A rule is
#: run only when the text holds one of its literals (every match holds one).
_TREEBANK_BEFORE_PADDING = (
    (r"(?m)^\"", r"``", "re", ('"',)),                   # a starting double quote: ``
    (r"(``)", r" \1 ", "re", ("``",)),
    (r"([ \(\[{<])(\"|\'{2})", r"\1 `` ", "re", ('"', "''")),  # an opening quote
    (r"([:,])([^\d\n])", r" \1 \2", "regex", (":", ",")),   # colon or comma before a non-digit
    (r"(?m)([:,])$", r" \1 ", "re", (":", ",")),          # ... or at the line's end
    (r"\.\.\.", r" ... ", "re", ("...",)),
    (r"[;@#$%&]", r" \g<0> ", "regex", tuple(";@#$%&")),
    (r'(?m)([^\.\n])(\.)([\]\)}>"\']*)[^\S\n]*$', r"\1 \2\3 ", "regex", (".",)),  # final period
    (r"[?!]", r" \g<0> ", "regex", ("?", "!")),
    (r"([^'\n])' ", r"\1 ' ", "re", ("' ",)),
    (r"[\]\[\(\)\{\}\<\>]", r" \g<0> ", "re", tuple("[](){}<>")),  # brackets
    (r"--", r" -- ", "re", ("--",)),
)
_TREEBANK_AFTER_PADDING = (
    (r"''", " '' ", "re", ("''",)),
    (r'"', " '' ", "regex", ('"',)),
    (r"([^' ])('[sS]|'[mM]|'[dD]|') ", r"\1 \2 ", "re", ("' ",)),
    # ([^' ])('ll|...) : the character before is never part of an earlier match (that
    # ends with a space), so a lookbehind gives the same matches, faster
    (r"(?<=[^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r" \1 ", "regex", ("'",)),
)
#: the MacIntyre contractions split in two (CONTRACTIONS2, CONTRACTIONS3), which NLTK
#: compiles with ``re`` (whose ``\\b`` sees a combining mark as a non-word character); each
#: runs only where ``re`` finds its two parts together, case-insensitively (as the rule reads)
_TREEBANK_CONTRACTIONS = (
    (r"(?i)\b(can)(not)\b", "cannot"),
    (r"(?i)\b(d)('ye)\b", "d'ye"),
    (r"(?i)\b(gim)(me)\b", "gimme"),
    (r"(?i)\b(gon)(na)\b", "gonna"),
    (r"(?i)\b(got)(ta)\b", "gotta"),
    (r"(?i)\b(lem)(me)\b", "lemme"),
    (r"(?i)\b(more)('n)\b", "more'n"),
    (r"(?i)\b(wan)(na)(?=\s)", "wanna"),
    (r"(?i) ('t)(is)\b", " 'tis"),
    (r"(?i) ('t)(was)\b", " 'twas"),
)


#: the characters other than an ASCII letter's two cases that ``re`` with IGNORECASE matches
#: with a letter of the contractions (a test finds them again over every code point): folded
#: before a text is lowercased to look for the contractions
_TREEBANK_FOLDS = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"))


def _treebank_rules() -> tuple[Any, Any, Any]:
    global _TREEBANK
    if _TREEBANK is None:
        import re

        import regex

        engines = {"re": re, "regex": regex}

        def compiled(rules: Any) -> tuple[Any, ...]:
            return tuple((engines[e].compile(p), r, lits) for p, r, e, lits in rules)

        contractions = tuple((re.compile(p), word) for p, word in _TREEBANK_CONTRACTIONS)
        _TREEBANK = (compiled(_TREEBANK_BEFORE_PADDING), compiled(_TREEBANK_AFTER_PADDING),
                     contractions)
    return _TREEBANK


_TREEBANK: Any = None


#: the rules' classes that lowercasing must not move a character in or out of, per engine
_TREEBANK_CLASSES = (("regex", r"\d"), ("regex", r"\s"), ("re", r"\w"), ("re", r"\s"))
#: every apostrophe form the case-sensitive rule could meet after lowercasing
_TREEBANK_CASED = r"'(?:[lL][lL]|[rR][eE]|[vV][eE])|[nN]'[tT]"
_TREEBANK_EXACT = frozenset({"'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T"})


def lowercase_commutes(name: str, text: str) -> bool:
    """Whether ``name``'s tokens of ``text.lower()`` are the lowercased tokens of ``text``
    (so the lowercased configurations can lowercase the tokens instead of tokenizing again).

    ``treebank``: yes when lowercasing changes no match of any rule: ``text`` holds no Σ
    (whose lowercase depends on its neighbours), every character that lowercasing changes
    becomes one character in the same classes the rules test (``regex``'s ``\\d`` and
    ``\\s``, ``re``'s ``\\w`` and ``\\s``) and no ASCII punctuation, and no apostrophe form
    of the one case-sensitive rule is in mixed case (``'Ll``, ``N't``: lowercased, the rule
    would split them). The rules insert only spaces and quotes. Else (and for other
    tokenizers) False.
    """
    if name != "treebank" or "\u03a3" in text:
        return False
    import re

    import regex

    engines = {"re": re, "regex": regex}
    classes = [engines[e].compile(c) for e, c in _TREEBANK_CLASSES]
    for ch in {ch for ch in set(text) if ch.lower() != ch}:
        low = ch.lower()
        if len(low) != 1 or (low.isascii() and not low.isalnum()):
            return False
        if any(bool(c.fullmatch(ch)) != bool(c.fullmatch(low)) for c in classes):
            return False
    return all(m.group(0) in _TREEBANK_EXACT for m in re.finditer(_TREEBANK_CASED, text))


def tokenize_block(name: str, data: bytes) -> bytes:
    """:func:`tokenize_lines` on every line of a UTF-8 block at once (one line of tokens per
    line, split by whitespace). ``treebank``: NLTK 3.10.4's Treebank rules applied to the
    whole block (:data:`_TREEBANK_BEFORE_PADDING`: each line keeps to itself; the padding
    space NLTK puts around a line is put around each), five times faster than line by line
    and without importing NLTK (a test compares the tokens with the installed NLTK's).
    ``word_tokenize``: line by line (:func:`tokenize_lines`).

    Raises:
        ValueError: an unknown name, or ``word_tokenize`` without the Punkt data.
    """
    if name != "treebank":
        lines = data.decode("utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return "".join(" ".join(t) + "\n" for t in tokenize_lines(name, lines)).encode("utf-8")
    before, after, contractions = _treebank_rules()
    text = data.decode("utf-8")
    if text.endswith("\n"):
        text = text[:-1]
    for pattern, replacement, literals in before:
        if any(lit in text for lit in literals):
            text = pattern.sub(replacement, text)
    text = " " + text.replace("\n", " \n ") + " "
    for pattern, replacement, literals in after:
        if any(lit in text for lit in literals):
            text = pattern.sub(replacement, text)
    folded = text
    for character, letter in _TREEBANK_FOLDS:
        if character in folded:
            folded = folded.replace(character, letter)
    folded = folded.lower()
    for pattern, word in contractions:
        if word in folded:
            text = pattern.sub(r" \1 \2 ", text)
    return "".join(" ".join(line.split()) + "\n" for line in text.split("\n")).encode("utf-8")


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def skips_zero_precisions(version: str | None = None) -> bool:
    """True when ``corpus_bleu``'s last step skips precisions that are not > 0.

    NLTK 3.6 added ``if p_i > 0`` to the sum; 3.4–3.5 take ``math.log`` of every
    precision (so a method1 precision of 0.0 raises ``ValueError: math domain
    error``). ``version`` defaults to the installed NLTK.
    """
    from packaging.version import Version

    from bleu_compat.libraries import library_version

    return Version(version or library_version(LIBRARY)) >= Version("3.6")


def nltk_final_score(p_n: list[Any], bp: float, weights: tuple[float, ...], *,
                     skip_zero: bool = True) -> float:
    """The last step of NLTK's ``corpus_bleu`` on already smoothed precisions.

    Copied operation for operation from nltk/translate/bleu_score.py
    (``corpus_bleu``, 3.6–3.10): ``bp * exp(fsum(w_i * log(p_i)))`` over the
    orders with ``p_i > 0``; with ``skip_zero`` False, 3.4–3.5's sum over every
    order (``math.log(0.0)`` raises ``ValueError``). The caller handles NLTK's
    early ``return 0`` when the unigram numerator is 0.
    """
    if skip_zero:
        s = (w_i * math.log(p_i) for w_i, p_i in zip(weights, p_n) if p_i > 0)
    else:
        s = (w_i * math.log(p_i) for w_i, p_i in zip(weights, p_n))
    return bp * math.exp(math.fsum(s))


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from nltk.translate.bleu_score import (
        Fraction,
        SmoothingFunction,
        brevity_penalty,
        closest_ref_length,
        corpus_bleu,
        modified_precision,
    )

    hypotheses = [list(h) for h in request["hypotheses"]]
    references = [[list(r) for r in seg] for seg in request["references"]]
    max_order = request.get("max_order", 4)
    decimals = request.get("decimals")
    weights = (1 / max_order,) * max_order

    numerators = [0] * max_order
    denominators = [0] * max_order  # as corpus_bleu sums them (each floored at 1)
    card_totals = [0] * max_order  # segments with at least n hypothesis tokens only
    c = r = 0
    for refs, hyp in zip(references, hypotheses):
        for n in range(1, max_order + 1):
            p = modified_precision(refs, hyp, n)
            numerators[n - 1] += p.numerator
            denominators[n - 1] += p.denominator
            if len(hyp) >= n:
                card_totals[n - 1] += p.denominator
        c += len(hyp)
        r += closest_ref_length(refs, len(hyp))
    bp = brevity_penalty(r, c)
    raw.update(p_numerators=numerators, p_denominators=denominators, hyp_lengths=c,
               ref_lengths=r, bp=float(bp), weights=list(weights))

    if mode == "as_called":
        bleu = corpus_bleu(references, hypotheses, weights=weights)
        totals = denominators
    else:
        corrected = [
            Fraction(m, t, _normalize=False) if t > 0 else Fraction(m, d, _normalize=False)
            for m, t, d in zip(numerators, card_totals, denominators)
        ]
        raw["zero_total_orders_kept_floored"] = [
            n + 1 for n, t in enumerate(card_totals) if t == 0
        ]

        def feed_corrected(p_n: list[Any], *args: Any, **kwargs: Any) -> list[Any]:
            if [p.numerator for p in p_n] != numerators:  # pragma: no cover - library changed
                raise RuntimeError("corpus_bleu's numerators differ from modified_precision's")
            return SmoothingFunction().method0(list(corrected))

        bleu = corpus_bleu(references, hypotheses, weights=weights, smoothing_function=feed_corrected)
        totals = card_totals
    raw["corpus_bleu"] = bleu if isinstance(bleu, int) else float(bleu)
    raw["corpus_bleu_type"] = type(bleu).__name__
    return {
        "bleu": _round(bleu, decimals),
        "brevity_penalty": _round(bp, decimals),
        "candidate_length": c,
        "reference_length": r,
        "max_order": max_order,
        "matches": numerators,
        "totals": totals,
    }


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from nltk.translate.bleu_score import Fraction, SmoothingFunction, brevity_penalty

    matches, totals = list(request["matches"]), list(request["totals"])
    n_orders = len(matches)
    method = request["smoothing"]
    effective_order = bool(request.get("effective_order", False))
    decimals = request.get("decimals")
    epsilon = request.get("epsilon", 0.1)
    c, r = request["candidate_length"], request["reference_length"]

    if mode == "mapped":
        if 0 in totals:
            raise NotRepresentable(
                "a total of 0 cannot be given to NLTK: its precisions are Fraction(m_n, l_n) "
                "and Fraction(m, 0) raises ZeroDivisionError (corpus_bleu floors every "
                "segment's denominator at 1, so it never builds one)"
            )
        # all totals > 0 here, and every smoothing keeps them > 0, so effective
        # order would use every order: nothing to drop.
    nltk_method = "method0" if method == "none" else method
    smoother = SmoothingFunction(epsilon=epsilon)
    p_n = [Fraction(m, t, _normalize=False) for m, t in zip(matches, totals)]
    bp = brevity_penalty(r, c)
    weights = (1 / n_orders,) * n_orders
    if matches[0] == 0:  # corpus_bleu: "if p_numerators[1] == 0: return 0" before smoothing
        smoothed = list(p_n)
        bleu: float = 0
        raw["early_return"] = "unigram numerator 0: corpus_bleu returns 0 before smoothing"
    else:
        smoothed = getattr(smoother, nltk_method)(list(p_n))
        bleu = nltk_final_score(smoothed, bp, weights, skip_zero=skips_zero_precisions())
    raw.update(
        method=nltk_method, epsilon=smoother.epsilon, bp=float(bp), weights=list(weights),
        smoothed_precisions=[_p_repr(p) for p in smoothed], score=float(bleu),
        effective_order_ignored=effective_order,
    )
    sm, st = _recover_counts(nltk_method, smoother.epsilon, p_n, smoothed)
    return {
        "bleu": _round(bleu, decimals),
        "brevity_penalty": _round(bp, decimals),
        "orders_used": n_orders,
        "smoothed_matches": sm,
        "smoothed_totals": st,
    }


def _p_repr(p: Any) -> Any:
    if hasattr(p, "numerator") and hasattr(p, "denominator") and not isinstance(p, float):
        return [int(p.numerator), int(p.denominator)]
    return float(p)


def _recover_counts(
    method: str, epsilon: float, p_n: list[Any], smoothed: list[Any]
) -> tuple[list[Any], list[Any]]:
    """Smoothed (match, total) per order from NLTK's smoothed precisions.

    A ``Fraction`` (``_normalize=False``) keeps its numerator and
    denominator. A float is one of NLTK's formulas on an order with no
    match: ``method0``'s ``sys.float_info.min`` (NLTK's stand-in for a
    zero precision, reported as match 0), ``method1``'s
    ``(0 + epsilon) / l`` (match ``epsilon``) or ``method3``'s
    ``1 / (2**k * l)`` (match ``1/2**k``); each is checked to reproduce
    NLTK's float bit for bit.
    """
    import sys

    sm: list[Any] = []
    st: list[Any] = []
    k = 0
    for p, q in zip(p_n, smoothed):
        if not isinstance(q, float):
            sm.append(int(q.numerator))
            st.append(int(q.denominator))
            continue
        den = int(p.denominator)
        if method == "method0" and q == sys.float_info.min:
            sm.append(0)
        elif method == "method1" and (p.numerator + epsilon) / den == q:
            sm.append(p.numerator + epsilon)
        elif method == "method3":
            k += 1
            if 1 / (2**k * den) != q:  # pragma: no cover - library changed
                raise RuntimeError("cannot recover NLTK's method3 numerator")
            sm.append(1 / 2**k)
        else:  # pragma: no cover - library changed
            raise RuntimeError(f"cannot recover NLTK's {method} numerator from {q!r}")
        st.append(den)
    return sm, st


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from nltk.translate.bleu_score import brevity_penalty, closest_ref_length

    closest = []
    for seg in request["segments"]:
        # closest_ref_length only takes len() of each reference: ranges stand in for token lists
        closest.append(int(closest_ref_length([range(n) for n in seg["reference_lengths"]],
                                              seg["candidate_length"])))
    c = sum(seg["candidate_length"] for seg in request["segments"])
    r = sum(closest)
    bp = brevity_penalty(r, c)
    raw.update(closest_ref_lengths=closest, hyp_len=c, closest_ref_len=r, bp=float(bp),
               bp_type=type(bp).__name__)
    return {
        "candidate_length": c,
        "reference_length": r,
        "closest_reference_lengths": closest,
        "brevity_penalty": _round(bp, request.get("decimals")),
    }


def call_text(cfg: Any, n_refs: int = 1) -> str:
    """The NLTK call :func:`score_lines` makes for ``cfg``, as a user would write it.

    E.g. ``corpus_bleu(refs, hyps, weights=(0.25, 0.25, 0.25, 0.25),
    smoothing_function=SmoothingFunction().method3) on str.split() tokens``
    (``score --compare`` prints it in the configuration's row: issue 23).
    """
    n = cfg.max_order
    weights = "(" + ", ".join([repr(1 / n)] * n) + ("," if n == 1 else "") + ")"
    if cfg.smoothing == "none":
        smoothing = ""
    else:
        eps = f"epsilon={cfg.smooth_value!r}" if cfg.smooth_value is not None else ""
        smoothing = f", smoothing_function=SmoothingFunction({eps}).{cfg.smoothing}"
    tokens = "str.split()" if cfg.tokenize in ("split", "none") else f"{cfg.tokenize}"
    case = "lowercased, " if cfg.lowercase else ""
    return (f"call nltk.translate.bleu_score.corpus_bleu(refs, hyps, weights={weights}"
            f"{smoothing}) on {case}{tokens} tokens")
