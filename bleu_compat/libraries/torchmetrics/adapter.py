"""torchmetrics adapter: a card request run through ``torchmetrics``' BLEU.

torchmetrics 1.9 has ``BLEUScore`` / ``bleu_score`` (``str.split()`` tokens) and
``SacreBLEUScore`` / ``sacre_bleu_score`` (its own copies of sacreBLEU's
tokenizers, lowercasing after tokenizing). Both take strings and count in
float32 tensors; the class keeps the sufficient statistics as its states
(``numerator``, ``denominator``, ``preds_len``, ``target_len``) and ``compute()``
turns them into the score.

Modes (SPEC.md §7):

* ``as_called`` — the corpus tool: ``BLEUScore(n_gram=N)``, ``update(hyps joined
  by ' ', [refs joined by ' ']) ``, ``compute().item()``; the statistics shown are
  the class's states after ``update`` (float32 values, integral), and the
  functional ``bleu_score`` is called too and must give the same number. The
  smoothing tool: the statistics set as the class's states (float32 tensors, what
  ``update`` accumulates, e.g. over a distributed evaluation) and ``compute()``,
  with ``smooth=False`` for ``none`` and ``smooth=True`` for ``method2`` (add one
  from order 2, Lin & Och 2004); other methods and effective order are not
  representable. The brevity tool is not representable (torchmetrics computes the
  penalty inside ``compute()`` and returns no part of it).
* ``mapped`` — the corpus tool with every distinct token replaced by a
  whitespace-free surrogate (``t0``, ``t1``, ...) and each segment's references
  listed shortest first (torchmetrics gives a tie of closest lengths to the first
  listed reference; sorted so, the first is the shorter: the card's rule); the
  smoothing tool as called (nothing maps better).

``decimals`` is applied to the score with :func:`bleu_compat.rounding.to_fixed`.
torchmetrics returns no brevity penalty: the outputs have no ``brevity_penalty``
(the smoothing tool's only field is ``bleu``). ``raw`` keeps ``score`` (the
tensor's ``.item()``, 0–1), the states, and the functional result.
"""

from __future__ import annotations

from typing import Any, Sequence

from bleu_compat.libraries import AdapterResult, NotRepresentable, dispatch
from bleu_compat.rounding import to_fixed

__all__ = ["run", "score_lines", "configure"]

LIBRARY = "torchmetrics"


def configure(cfg: Any) -> Any:
    """A ``--compare`` configuration of torchmetrics, checked: ``SacreBLEUScore`` with one of
    sacreBLEU's MeCab or SentencePiece tokenizers is refused (ValueError). torchmetrics
    tokenizes with its own copy of them, which no model here reproduces (its SentencePiece
    tokenizers fetch their model from the network, which bleu-compat never lets happen)."""
    from bleu_compat.tokenizers.segmenters import SEGMENTERS

    if cfg.call == "SacreBLEUScore" and cfg.tokenize in SEGMENTERS:
        raise ValueError(f"{cfg.name}: tok={cfg.tokenize}: torchmetrics' SacreBLEUScore "
                         "tokenizes with its own copy of that tokenizer, which bleu-compat does "
                         "not model; compare sacrebleu:tok=" + cfg.tokenize + " instead")
    return cfg


def run(mode: str, tool_id: str, request: dict[str, Any]) -> AdapterResult:
    """Run torchmetrics on a validated card ``request`` in ``mode``.

    Raises:
        ValueError: unknown mode or tool.
        OracleUnavailableError: torchmetrics (or torch) is not installed.
    """
    handlers = {
        "bleu-corpus-compute": _corpus,
        "bleu-smoothing-compute": _smoothing,
        "bleu-brevity-penalty": _brevity,
    }
    return dispatch(LIBRARY, mode, tool_id, request, handlers)


def _round(value: float, decimals: int | None) -> float:
    return float(value) if decimals is None or value != value else to_fixed(float(value), decimals)


def _int(x: Any) -> int:
    value = float(x)
    if value != int(value):  # pragma: no cover - a state is a sum of whole counts
        raise RuntimeError(f"a torchmetrics count is not whole: {value!r}")
    return int(value)


def _corpus(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    from torchmetrics.functional.text import bleu_score
    from torchmetrics.text import BLEUScore

    hypotheses, references = request["hypotheses"], request["references"]
    max_order = request.get("max_order", 4)
    if mode == "mapped":
        mapping: dict[str, str] = {}

        def enc(tokens: list[str]) -> str:
            return " ".join(mapping.setdefault(t, f"t{len(mapping)}") for t in tokens)

        preds = [enc(h) for h in hypotheses]
        target = [[enc(r) for r in sorted(seg, key=len)] for seg in references]
        raw["token_encoding"] = f"{len(mapping)} distinct tokens mapped to surrogates"
        raw["references_order"] = "shortest first"
    else:
        preds = [" ".join(h) for h in hypotheses]
        target = [[" ".join(r) for r in seg] for seg in references]
    metric = BLEUScore(n_gram=max_order)
    metric.update(preds, target)
    score = metric.compute()
    # the functional form too (the same computation; checked equal), on card-sized requests:
    # a real corpus would take it seconds more
    functional = bleu_score(preds, target, n_gram=max_order) if len(preds) <= 1000 else score
    raw.update(score=float(score.item()), functional_score=float(functional.item()),
               numerator=[float(x) for x in metric.numerator],
               denominator=[float(x) for x in metric.denominator],
               preds_len=float(metric.preds_len), target_len=float(metric.target_len))
    if raw["functional_score"] != raw["score"] and raw["score"] == raw["score"]:
        raise RuntimeError(f"BLEUScore gives {raw['score']!r}, bleu_score {raw['functional_score']!r}")
    return {
        "bleu": _round(raw["score"], request.get("decimals")),
        "candidate_length": _int(metric.preds_len),
        "reference_length": _int(metric.target_len),
        "max_order": max_order,
        "matches": [_int(x) for x in metric.numerator],
        "totals": [_int(x) for x in metric.denominator],
    }


def _smoothing(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    import torch
    from torchmetrics.text import BLEUScore

    method = request["smoothing"]
    if method not in ("none", "method2"):
        raise NotRepresentable(
            f"torchmetrics' BLEUScore has smooth=False and smooth=True (add one to every order "
            f"from 2, the card's method2) only: {method} cannot be given to it")
    if request.get("effective_order"):
        raise NotRepresentable("torchmetrics' BLEUScore has no effective order")
    matches, totals = request["matches"], request["totals"]
    if request["candidate_length"] == 0 and min(matches) > 0:
        raise NotRepresentable(
            "no sequence of update() calls gives matches in every order with a candidate "
            "length of 0 (compute() would take exp(1 - 0 / 0): NaN)")
    metric = BLEUScore(n_gram=len(matches), smooth=method == "method2")
    # the states update() accumulates (float32), set to the request's statistics
    metric.numerator = torch.tensor(matches, dtype=torch.float32)
    metric.denominator = torch.tensor(totals, dtype=torch.float32)
    metric.preds_len = torch.tensor(request["candidate_length"], dtype=torch.float32)
    metric.target_len = torch.tensor(request["reference_length"], dtype=torch.float32)
    metric._update_count = 1  # compute() warns when update() was never called
    score = metric.compute()
    raw.update(score=float(score.item()), smooth=method == "method2",
               states={"numerator": [float(x) for x in metric.numerator],
                       "denominator": [float(x) for x in metric.denominator],
                       "preds_len": float(metric.preds_len), "target_len": float(metric.target_len)})
    return {"bleu": _round(raw["score"], request.get("decimals"))}


def _brevity(mode: str, request: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    raise NotRepresentable("torchmetrics computes the brevity penalty inside compute() and "
                           "returns only the score")


def score_lines(cfg: Any, hyp_lines: Sequence[str], ref_lines: Sequence[Sequence[str]]) -> float:
    """torchmetrics' own BLEU (0–1, the float32 tensor's ``.item()``) for a ``score --compare``
    configuration on raw lines.

    ``cfg.call`` ``"SacreBLEUScore"`` (built-in ``torchmetrics-sacrebleu``):
    ``sacre_bleu_score(hyps, refs, n_gram, smooth, tokenize, lowercase)``; otherwise
    ``bleu_score(hyps, refs, n_gram, smooth)`` on the lines as they are (it splits them
    with ``str.split()``; ``tok`` other than ``split`` and ``lc`` are refused by the
    configuration). ``smooth`` is True for the configuration's ``add-one``.
    """
    from torchmetrics.functional.text import bleu_score, sacre_bleu_score

    target = [list(refs) for refs in zip(*ref_lines)]
    smooth = cfg.smoothing == "add-one"
    if cfg.call == "SacreBLEUScore":
        tokenize = "none" if cfg.tokenize == "split" else cfg.tokenize
        value = sacre_bleu_score(list(hyp_lines), target, n_gram=cfg.max_order, smooth=smooth,
                                 tokenize=tokenize, lowercase=cfg.lowercase)
    else:
        value = bleu_score(list(hyp_lines), target, n_gram=cfg.max_order, smooth=smooth)
    return float(value.item())
