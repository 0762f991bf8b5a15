"""torcheval adapter: a card request run through ``torcheval.metrics.functional.bleu_score``.

torcheval 0.0.7's functional ``bleu_score(input, target, n_gram)`` takes strings,
splits them with ``str.split()``, counts in tensors (lengths int64, counts
float32: ``_bleu_score_update``) and computes in float32
(``_bleu_score_compute``). (Its class ``BLEUScore`` keeps float64 states and so
computes in float64: the two differ in the last bits; users of the functional
form are the ones the issue reports name.)

Modes (SPEC.md §7):

* ``as_called`` — the corpus tool: ``bleu_score(hyps joined by ' ', [refs joined
  by ' '], n_gram=N).item()``; the statistics shown are ``_bleu_score_update``'s
  (the same call the function makes). The smoothing tool: the function's last step,
  ``_bleu_score_compute``, on the statistics as ``_bleu_score_update`` builds them
  (torcheval has no smoothing: only ``none``; no effective order; a zero total,
  which ``update`` refuses, is not representable). The brevity tool is not
  representable (the penalty is computed inside and not returned).
* ``mapped`` — the corpus tool with whitespace-free surrogate tokens (the shortest
  reference rule, float32 and the order limit cannot be mapped away); the
  smoothing tool as called.

``decimals`` is applied to the score with :func:`bleu_compat.rounding.to_fixed`.
"""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.rounding import to_fixed

__all__ = ["run", "score_lines"]

LIBRARY = "torcheval"


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run torcheval on a validated card ``request`` in ``mode``.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: torcheval (or torch) is not installed.
    """
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None or value != value else to_fixed(float(value), decimals)


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from torcheval.metrics.functional import bleu_score
    from torcheval.metrics.functional.text.bleu import _bleu_score_update

    hypotheses, references = request["hypotheses"], request["references"]
    max_order = request.get("max_order", 4)
    if mode == "mapped":
        mapping: dict[str, str] = {}

        def enc(tokens: list[str]) -> str:
            return " ".join(mapping.setdefault(t, f"t{len(mapping)}") for t in tokens)

        preds = [enc(h) for h in hypotheses]
        target = [[enc(r) for r in seg] for seg in references]
        raw["token_encoding"] = f"{len(mapping)} distinct tokens mapped to surrogates"
    else:
        preds = [" ".join(h) for h in hypotheses]
        target = [[" ".join(r) for r in seg] for seg in references]
    score = float(bleu_score(preds, target, n_gram=max_order).item())
    input_len, target_len, matches, possible = _bleu_score_update(preds, target, max_order)
    raw.update(score=score, input_len=int(input_len), target_len=int(target_len),
               matches_by_order=[float(x) for x in matches],
               possible_matches_by_order=[float(x) for x in possible])
    return {
        "bleu": _round(score, request.get("decimals")),
        "candidate_length": int(input_len),
        "reference_length": int(target_len),
        "max_order": max_order,
        "matches": [int(x) for x in matches],
        "totals": [int(x) for x in possible],
    }


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    import torch
    from torcheval.metrics.functional.text.bleu import _bleu_score_compute

    if request["smoothing"] != "none":
        raise NotRepresentable(f"torcheval's bleu_score has no smoothing: {request['smoothing']} "
                               "cannot be given to it")
    if request.get("effective_order"):
        raise NotRepresentable("torcheval's bleu_score has no effective order")
    matches, totals = request["matches"], request["totals"]
    if 0 in totals:
        raise NotRepresentable("a total of 0 cannot reach _bleu_score_compute: _bleu_score_update "
                               "raises ValueError('the input is too short ...') for it")
    if request["candidate_length"] == 0:
        raise NotRepresentable("a candidate length of 0 cannot reach _bleu_score_compute: every "
                               "total is then 0 and _bleu_score_update raises for it")
    if len(matches) > 4:
        raise NotRepresentable(f"torcheval counts at most 4 n-gram orders: {len(matches)} given")
    n = len(matches)
    # the tensors _bleu_score_update builds: lengths int64, counts float32
    score = _bleu_score_compute(
        torch.tensor(request["candidate_length"]), torch.tensor(request["reference_length"]),
        torch.tensor(matches, dtype=torch.float32), torch.tensor(totals, dtype=torch.float32), n)
    raw.update(score=float(score.item()), function="_bleu_score_compute (bleu_score's last step)")
    return {"bleu": _round(raw["score"], request.get("decimals"))}


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("torcheval computes the brevity penalty inside bleu_score and returns "
                           "only the score")


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """torcheval's own BLEU (0–1, the float32 tensor's ``.item()``) for a ``score --compare``
    configuration: ``bleu_score(hyps, refs, n_gram=N)`` on the lines as they are."""
    from torcheval.metrics.functional import bleu_score

    target = [list(refs) for refs in zip(*ref_lines)]
    return float(bleu_score(list(hyp_lines), target, n_gram=cfg.max_order).item())
