"""HF evaluate ``bleu`` adapter: a card request run through the user's cached ``bleu`` module.

The module is the one ``evaluate.load("bleu")`` left in the Hugging Face modules
cache (:mod:`bleu_compat.libraries.hf_bleu.cache`): its own ``nmt_bleu.compute_bleu``
and ``tokenizer_13a.Tokenizer13a`` run, behind ``bleu.py``'s ``_compute`` glue, in a child
process bounded in time, memory and output (:mod:`bleu_compat.libraries.hf_bleu.process`):
a call stopped at a bound is a ``ModuleRunError`` (the library's error on a card request,
exit 2 on the command line); what the module raises arrives as its own type and message.

Modes (SPEC.md §7):

* ``as_called`` — the corpus tool: ``compute(predictions=[tokens joined by ' '],
  references=[[...]], max_order=N)`` with the default tokenizer, evaluate's copy of
  13a, as users call it. The statistics shown are recovered exactly from the
  result: the totals from the tokens the module's own tokenizer gives, each match
  count ``round(p_n * l_n)``, checked to give the returned precision bit for bit.
* ``mapped`` — the corpus tool with whitespace-free surrogate tokens (``t0``,
  ``t1``, ...) and ``tokenizer=str.split``, so the card's tokens reach
  ``compute_bleu`` unchanged; the shortest reference, the brevity penalty's
  ``1 / ratio`` and the arithmetic cannot be mapped away.

The smoothing tool runs ``compute_bleu`` on a token corpus built to have exactly
the request's statistics (:mod:`bleu_compat.libraries.hf_bleu.realize`; ``none`` is
``smooth=False``; as called, the card's ``method2`` is ``smooth=True``, which adds
one to every order, the unigrams included); statistics no simple corpus has, other
methods, and c = 0 or r = 0 are not representable. The brevity tool is not
representable (lengths alone cannot be given). ``decimals`` is applied with :func:`bleu_compat.rounding.to_fixed`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.rounding import to_fixed

__all__ = ["run", "score_lines", "recover_matches", "surrogates", "smoothing_corpus", "tokenizer_for"]

LIBRARY = "hf-bleu"


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run the cached HF ``bleu`` module on a validated card ``request`` in ``mode``.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: no cached module (``UnknownCodeError``: no known release and no
            opt-in).
    """
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _no_lengths,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def surrogates(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[Sequence[str]]]
               ) -> tuple[list[str], list[list[str]], int]:
    """Every distinct token replaced by ``t0``, ``t1``, ... (first appearance), joined by spaces:
    ``(hypotheses, references, number of distinct tokens)``. 13a and ``str.split`` leave each
    surrogate whole, so the n-gram counts are the card's."""
    mapping: dict[str, str] = {}

    def enc(tokens: Sequence[str]) -> str:
        return " ".join(mapping.setdefault(t, f"t{len(mapping)}") for t in tokens)

    hyps = [enc(h) for h in hypotheses]
    refs = [[enc(r) for r in seg] for seg in references]
    return hyps, refs, len(mapping)


def recover_matches(precisions: Sequence[float], tokens: Sequence[Sequence[str]], n_orders: int,
                    smooth: bool = False) -> tuple[list[int], list[int]]:
    """(matches, totals) of a ``compute_bleu`` result, exactly.

    ``totals[n-1]`` is the number of hypothesis n-grams of ``tokens`` (the hypotheses as the
    library tokenized them); ``matches[n-1]`` the integer m with ``m / l`` (``(m + 1) / (l + 1)``
    when ``smooth``) equal to the returned precision bit for bit.

    Raises:
        RuntimeError: no integer gives the precision (the library counted otherwise).
    """
    totals = [sum(max(0, len(t) - n + 1) for t in tokens) for n in range(1, n_orders + 1)]
    matches = []
    for n, (p, total) in enumerate(zip(precisions, totals), start=1):
        if smooth:
            m = round(p * (total + 1)) - 1
            ok = 0 <= m <= total and (m + 1.0) / (total + 1.0) == p
        elif total == 0:
            m, ok = 0, p == 0.0
        else:
            m = round(p * total)
            ok = 0 <= m <= total and float(m) / total == p
        if not ok:
            raise RuntimeError(f"order {n}: no match count gives the precision {p!r} of "
                               f"{total} n-grams")
        matches.append(m)
    return matches, totals


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from bleu_compat.libraries.hf_bleu import cache

    module = cache.checked()
    max_order = request.get("max_order", 4)
    decimals = request.get("decimals")
    tokenizer: Callable[[str], list[str]] | None
    if mode == "mapped":
        preds, refs, distinct = surrogates(request["hypotheses"], request["references"])
        tokenizer = str.split
        raw["token_encoding"] = f"{distinct} distinct tokens mapped to surrogates; tokenizer=str.split"
    else:
        preds = [" ".join(h) for h in request["hypotheses"]]
        refs = [[" ".join(r) for r in seg] for seg in request["references"]]
        tokenizer = None  # the module's own Tokenizer13a, in its process
    raw["module"] = str(module.folder)
    result, tokens = cache.compute_with_tokens(preds, refs, tokenizer=tokenizer, max_order=max_order)
    raw.update({k: v for k, v in result.items() if k != "precisions"})  # finite: c, r > 0 here
    raw["precisions"] = list(result["precisions"])
    matches, totals = recover_matches(result["precisions"], tokens, max_order)
    return {
        "bleu": _round(result["bleu"], decimals),
        "brevity_penalty": _round(result["brevity_penalty"], decimals),
        "candidate_length": int(result["translation_length"]),
        "reference_length": int(result["reference_length"]),
        "max_order": max_order,
        "matches": matches,
        "totals": totals,
    }


def smoothing_corpus(request: dict[str, Any], methods: dict[str, str], mapped_methods: tuple[str, ...],
                     mode: str, library: str) -> tuple[list[list[str]], list[list[list[str]]], str]:
    """The corpus a statistics-only library runs a smoothing request on, and its own method.

    ``methods``: card method -> the library's (e.g. ``{"none": "smooth=False"}``); a method
    outside it, or outside ``mapped_methods`` when ``mode`` is mapped, is not representable,
    and so is an effective order that would leave out an order (none of these libraries has
    one), and statistics no prefix-segment corpus has (:func:`~bleu_compat.libraries.hf_bleu.
    realize.realize`).

    Raises:
        NotRepresentable: with the reason.
    """
    from bleu_compat.libraries.hf_bleu.realize import Unrealizable, realize

    method = request["smoothing"]
    if method not in methods or (mode == "mapped" and method not in mapped_methods):
        raise NotRepresentable(f"{library} has no smoothing that is the card's {method} "
                               f"(it has {', '.join(f'{v} ({k})' for k, v in methods.items())}"
                               + ("; as mapped, only the card's own" if mode == "mapped" else "") + ")")
    if request.get("effective_order") and 0 in request["totals"]:
        raise NotRepresentable(f"{library} has no effective order: an order with a total of 0 "
                               "stays in its mean")
    try:
        hyps, refs = realize(request["matches"], request["totals"], request["candidate_length"],
                             request["reference_length"])
    except Unrealizable as exc:
        raise NotRepresentable(f"{library} counts its statistics from token corpora and no simple "
                               f"corpus has these: {exc}") from None
    return hyps, refs, methods[method]


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from bleu_compat.libraries.hf_bleu import cache

    if request["candidate_length"] == 0 or request["reference_length"] == 0:
        raise NotRepresentable("compute_bleu raises ZeroDivisionError for c = 0 or r = 0 "
                               "(catalog HF-BLEU-ZERO-LENGTH-RAISES, on the corpus tool)")
    hyps, refs, own = smoothing_corpus(request, {"none": "smooth=False", "method2": "smooth=True"},
                                       ("none",), mode, "HF evaluate's bleu")
    n_orders = len(request["matches"])
    smooth = own == "smooth=True"
    preds = [" ".join(h) for h in hyps]
    result = cache.compute(preds, [[" ".join(r) for r in seg] for seg in refs], max_order=n_orders,
                           smooth=smooth)
    raw.update(corpus=f"{len(hyps)} segments built with these statistics", call=own,
               bleu=result["bleu"], brevity_penalty=result["brevity_penalty"],
               precisions=list(result["precisions"]))
    matches, totals = recover_matches(result["precisions"], hyps, n_orders, smooth=smooth)
    plus = 1 if smooth else 0
    decimals = request.get("decimals")
    return {
        "bleu": _round(result["bleu"], decimals),
        "brevity_penalty": _round(result["brevity_penalty"], decimals),
        "orders_used": n_orders,
        "smoothed_matches": [m + plus for m in matches],
        "smoothed_totals": [t + plus for t in totals],
    }


def _no_lengths(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("HF evaluate's bleu (tensorflow/nmt compute_bleu) takes token corpora, "
                           "not lengths, and returns only the corpus' brevity penalty")


def tokenizer_for(tok: str) -> Callable[[str], list[str]] | None:
    """The ``tokenizer=`` argument for a configuration's ``tok``: None (the module's default, its
    13a copy) for ``13a``, ``str.split`` for ``split``/``none``, else that tokenizer's function."""
    if tok == "13a":
        return None
    if tok in ("split", "none"):
        return str.split
    from bleu_compat.decompose import config_tokens

    return lambda line: config_tokens(line, tok, False)


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """HF's own ``bleu`` (0–1) for a ``score --compare`` configuration, on raw lines:
    ``compute(predictions=lines, references=[[ref lines of the segment]], tokenizer=...,
    max_order=N, smooth=(smooth=add-one))``.

    Raises:
        OracleUnavailableError: no cached module; ``ModuleRunError``: its process was stopped at
            a bound (time, memory, output) or ended.
        ValueError: the module raised (e.g. ``ZeroDivisionError`` on an empty system output).
    """
    from bleu_compat.libraries.hf_bleu import cache
    from bleu_compat.libraries.hf_bleu.process import ModuleException

    try:
        result = cache.compute(list(hyp_lines), [list(refs) for refs in zip(*ref_lines)],
                               tokenizer=tokenizer_for(cfg.tokenize), max_order=cfg.max_order,
                               smooth=cfg.smoothing == "add-one")
    except (ArithmeticError, IndexError, TypeError, ModuleException) as exc:
        raise ValueError(f"{cfg.name}: HF evaluate's bleu raised {type(exc).__name__}: {exc}") from exc
    return float(result["bleu"])
