"""tensor2tensor's catalog entries: what ``bleu_hook.compute_bleu`` does differently.

Each entry's model is the branch of :mod:`bleu_compat.libraries.t2t.model` behind its id;
an entry explains an output only when the dialect with its model switched on reproduces it
bit for bit (SPEC.md §7). ``library_code`` prints tensor2tensor's own value: ``from
tensor2tensor.utils import bleu_hook`` needs TensorFlow, so the code loads the installed
wheel's ``bleu_hook.py`` through bleu-compat's loader, which runs that file without it.
"""

from __future__ import annotations

from bleu_compat.harness.dialect import CatalogEntry

__all__ = ["ENTRIES", "VERIFIED"]

#: every tensor2tensor release whose dialect was measured
VERIFIED = ("1.15.7",)
CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"

_T = ("from bleu_compat.libraries.t2t.adapter import load_bleu_hook\n"
      "bleu_hook = load_bleu_hook()  # the wheel's tensor2tensor/utils/bleu_hook.py, without TensorFlow\n")


def _empty_orders(request: dict) -> str | None:
    n_max = request.get("max_order", 4)
    longest = max(len(h) for h in request["hypotheses"])
    if longest >= n_max:
        return None
    return (f"no hypothesis has {n_max} tokens: orders {longest + 1}..{n_max} have no n-gram and "
            "count as precision 1 in tensor2tensor")


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="T2T-ALWAYS-SMOOTHED",
        library="t2t", verified=VERIFIED, tool_id=CORPUS, fields=("bleu",), modes=("as_called",),
        title="tensor2tensor always smooths: an order without a match does not give 0",
        explanation=(
            "compute_bleu has no unsmoothed mode: the k-th order that has n-grams but no match "
            "gets the precision 1.0 / (2^k * l_n) (Chen & Cherry's method 3, sacreBLEU's exp; "
            "the unigrams included), where the card's corpus BLEU is 0. Model: those precisions."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "x"]]]},
        reproducer_field="bleu", card_value=0, library_value=0.5946035385131836,
        library_code=_T + "print(bleu_hook.compute_bleu([['a', 'b', 'c', 'x']], [['a', 'b', 'c', 'd']]))",
        library_prints="0.59460354",
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="T2T-EMPTY-ORDER-PRECISION-ONE",
        library="t2t", verified=VERIFIED, tool_id=CORPUS, fields=("bleu",), modes=("as_called",),
        title="An order without n-grams counts as precision 1: an all-short corpus scores 100",
        explanation=(
            "When no hypothesis is long enough for order n, compute_bleu sets its precision to "
            "0.0 and the sum of logs skips it ('if p'), while the mean still divides by "
            "max_order: the order counts as precision 1. A corpus of one-token hypotheses equal "
            "to their references scores 1.0 (t2t-bleu prints 100.00) where the card (and "
            "sacreBLEU) gives 0. Model: such orders left out of the sum."
        ),
        reproducer={"hypotheses": [["a"]], "references": [[["a"]]]},
        reproducer_field="bleu", card_value=0, library_value=1.0,
        library_code=_T + "print(bleu_hook.compute_bleu([['a']], [['a']]))",
        library_prints="1.0",
        facts=_empty_orders, tags=("zero",),
    ),
    CatalogEntry(
        id="T2T-FLOAT32-RESULT",
        library="t2t", verified=VERIFIED, tool_id=CORPUS, fields=("bleu",), modes=("as_called",),
        title="The score is returned as np.float32 (about 7 significant digits)",
        explanation=(
            "compute_bleu returns np.float32(geo_mean * bp): the double, computed as "
            "exp(sum(log p_n) / N) * bp with bp = exp(1 - 1. / (c / r)), is rounded to single "
            "precision, so it differs from the card's in the 8th significant digit. Model: "
            "t2t's operations, then the rounding to float32 (round to nearest, ties to even)."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d", "e"]],
                    "references": [[["a", "b", "c", "d", "x", "y"]]]},
        reproducer_field="bleu", card_value=0.5475182535069453, library_value=0.547518253326416,
        library_code=_T + "print(float(bleu_hook.compute_bleu([['a', 'b', 'c', 'd', 'x', 'y']], "
                          "[['a', 'b', 'c', 'd', 'e']])))",
        library_prints="0.547518253326416",
        tags=("float",),
    ),
    # --- bleu-smoothing-compute (the adapter runs compute_bleu on a corpus with these statistics)
    CatalogEntry(
        id="T2T-EMPTY-ORDER-PRECISION-ONE-SMOOTHING",
        library="t2t", verified=VERIFIED, tool_id=SMOOTHING, fields=("bleu",), modes=("as_called",),
        title="An order with a total of 0 counts as precision 1 (card method3: 0)",
        explanation=(
            "As in T2T-EMPTY-ORDER-PRECISION-ONE: an order without n-grams is left out of the "
            "sum of logs and the mean divides by N; its zero match is not numbered among the "
            "k of 1 / (2^k * l_n). The card's method3 gives 0 for a used order whose total is "
            "0. Model: such orders left out, the k counting only orders with n-grams."
        ),
        reproducer={"matches": [1, 0, 0, 0], "totals": [1, 0, 0, 0], "candidate_length": 1,
                    "reference_length": 1, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0, library_value=1.0,
        library_code=_T + "print(bleu_hook.compute_bleu([['a']], [['a']]))",
        library_prints="1.0",
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="T2T-NO-MATCH-STILL-SMOOTHED-SMOOTHING",
        library="t2t", verified=VERIFIED, tool_id=SMOOTHING, fields=("bleu",), modes=("as_called",),
        title="No unigram match still scores: t2t smooths the unigrams too",
        explanation=(
            "The card's smoothed score is 0 when no unigram matches (sacreBLEU and NLTK return 0 "
            "before smoothing); compute_bleu smooths every order with n-grams, the unigrams "
            "included, so a hypothesis sharing no token with its reference scores "
            "1 / 2^((N+1)/2)-ish instead of 0. Model: method3's precisions for every order."
        ),
        reproducer={"matches": [0, 0], "totals": [2, 1], "candidate_length": 2,
                    "reference_length": 2, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0, library_value=0.25,
        library_code=_T + "print(bleu_hook.compute_bleu([['x', 'y']], [['a', 'b']], max_order=2))",
        library_prints="0.25",
        tags=("smoothing",),
    ),
    CatalogEntry(
        id="T2T-FLOAT32-RESULT-SMOOTHING",
        library="t2t", verified=VERIFIED, tool_id=SMOOTHING, fields=("bleu",), modes=("as_called",),
        title="The smoothed score in t2t's arithmetic, rounded to np.float32",
        explanation=(
            "As in T2T-FLOAT32-RESULT: exp(sum(log p_n) / N) * bp, bp = exp(1 - 1. / (c / r)) "
            "(1 when r = 0), then np.float32. Model: those operations and the rounding."
        ),
        reproducer={"matches": [7, 5, 3], "totals": [9, 7, 5], "candidate_length": 9,
                    "reference_length": 9, "smoothing": "method3"},
        reproducer_field="bleu", card_value=0.6933612743506348, library_value=0.6933612823486328,
        library_code=_T + "print(float(bleu_hook.compute_bleu([['a', 'b', 'c', 'd', 'x', 'y'], "
                          "['e', 'f', 'g']], [['a', 'b', 'c', 'd', 'p', 'q'], ['e', 'f', 'g']], "
                          "max_order=3)))",
        library_prints="0.6933612823486328",
        tags=("float",),
    ),
)
