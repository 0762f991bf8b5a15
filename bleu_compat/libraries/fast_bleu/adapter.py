"""fast-bleu adapter: a card request run through ``fast_bleu.BLEU``.

fast-bleu 0.0.90 (a C++ port of NLTK's ``sentence_bleu``, built from its sdist
with g++) takes one *reference set* — a list of token lists — and scores each
hypothesis against that whole set: ``BLEU(references, {key: weights},
smoothing_func=1).get_score(hypotheses)[key]`` is one score per hypothesis.
Users who compare it with a corpus BLEU pool every reference of the test set
into that set and average the scores; that average is what this adapter calls
fast-bleu's number.

Modes (SPEC.md §7):

* ``as_called`` — the corpus tool: ``BLEU(every reference of every segment,
  {N: (1/N,) * N})`` with its default ``smoothing_func=1``, ``get_score(
  hypotheses)[N]``, and ``sum(scores) / len(scores)``.
* ``mapped`` — whitespace-free surrogate tokens, and a request of one segment only:
  ``BLEU(that segment's references,
  {N: (1/N,) * N}, smoothing_func=0).get_score([hypothesis])``, a corpus BLEU of
  one segment (``smooth_0`` scores an order without a match 0, as the card);
  several segments are not representable (no call scores a corpus).

The smoothing and brevity tools are not representable: fast-bleu computes only
from tokens. ``decimals`` is applied with :func:`bleu_compat.rounding.to_fixed`.
"""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.rounding import to_fixed

__all__ = ["run", "score_lines"]

LIBRARY = "fast-bleu"


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run fast-bleu on a validated card ``request`` in ``mode``.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: fast-bleu is not installed.
    """
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _statistics_only,
        "bleu-brevity-penalty": _statistics_only,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None else to_fixed(float(value), decimals)


def scores(references: list[list[str]], hypotheses: list[list[str]], n: int,
           smoothing_func: int = 1) -> list[float]:
    """``BLEU(references, {n: (1/n,) * n}, smoothing_func).get_score(hypotheses)[n]``.

    fast-bleu's wrapper calls ``faulthandler.enable()``, which needs ``sys.stderr`` to be
    a real file; where it is not (a test's capture, a server), the process' own standard
    error stands in for the call.
    """
    import sys

    from fast_bleu import BLEU

    stderr = sys.stderr
    try:
        stderr.fileno()
    except Exception:  # io.UnsupportedOperation, ValueError: not a real file
        sys.stderr = sys.__stderr__
    try:
        metric = BLEU(references, {n: (1 / n,) * n}, smoothing_func=smoothing_func)
        return [float(x) for x in metric.get_score(hypotheses)[n]]
    finally:
        sys.stderr = stderr


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    hypotheses, references = request["hypotheses"], request["references"]
    n = request.get("max_order", 4)
    if mode == "mapped":  # whitespace-free surrogates: n-gram strings cannot collide
        mapping: dict[str, str] = {}

        def enc(tokens: list[str]) -> list[str]:
            return [mapping.setdefault(t, f"t{len(mapping)}") for t in tokens]

        hypotheses = [enc(h) for h in hypotheses]
        references = [[enc(r) for r in refs] for refs in references]
        if len(hypotheses) != 1:
            raise NotRepresentable(
                "fast-bleu scores each hypothesis against one reference set; a corpus BLEU of "
                f"{len(hypotheses)} segments (statistics summed before dividing) cannot be asked of it")
        per = scores([list(r) for r in references[0]], [list(hypotheses[0])], n, smoothing_func=0)
        raw.update(scores=per, smoothing_func=0)
        return {"bleu": _round(per[0], request.get("decimals"))}
    pool = [list(r) for refs in references for r in refs]
    per = scores(pool, [list(h) for h in hypotheses], n)
    value = sum(per) / len(per)
    raw.update(score=value, scores=per[:1000], smoothing_func=1, pooled_references=len(pool))
    return {"bleu": _round(value, request.get("decimals"))}


def _statistics_only(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("fast-bleu computes only from tokens (a reference set and hypotheses); "
                           "it has no function of statistics or lengths")


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """fast-bleu's number (0–1) for a ``score --compare`` configuration: every reference line of
    every file pooled into one reference set, each hypothesis scored against it, the mean
    ``sum(scores) / len(scores)``; tokens ``str.split()`` (or the configuration's tokenizer)."""
    from bleu_compat.decompose import config_tokens

    pool = [config_tokens(line, cfg.tokenize, cfg.lowercase) for lines in ref_lines for line in lines]
    hyps = [config_tokens(line, cfg.tokenize, cfg.lowercase) for line in hyp_lines]
    smoothing_func = 0 if cfg.smoothing == "method0" else 1
    per = scores(pool, hyps, cfg.max_order, smoothing_func)
    return sum(per) / len(per)
