"""torcheval's catalog entries: what its ``bleu_score`` does differently from the cards.

Each entry's model is the branch of :mod:`bleu_compat.libraries.torcheval.model`
behind the entry's id; an entry explains a torcheval output only when the
dialect with its model switched on reproduces that output bit for bit (SPEC.md
§7). ``library_code`` prints torcheval's own value on the reproducer.
"""

from __future__ import annotations

from typing import Any

from bleu_compat.harness.dialect import CatalogEntry
from bleu_compat.harness.truth import closest_length

__all__ = ["ENTRIES", "VERIFIED"]

#: torcheval releases whose dialect was measured (torch 2.13.0 CPU, Python 3.11)
VERIFIED = ("0.0.7",)
CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"
Request = dict[str, Any]

_TE = "from torcheval.metrics.functional import bleu_score\n"


def _facts_shortest(request: Request) -> str | None:
    n = sum(1 for hyp, refs in zip(request["hypotheses"], request["references"])
            if min(len(r) for r in refs) != closest_length(len(hyp), [len(r) for r in refs]))
    if not n:
        return None
    return f"{n} segment{'s' if n != 1 else ''} whose shortest reference is not the closest"


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="TORCHEVAL-WHITESPACE-IN-TOKEN",
        library="torcheval", verified=VERIFIED, tool_id=CORPUS,
        fields=("matches", "totals", "candidate_length", "reference_length", "bleu"),
        modes=("as_called",),
        title="torcheval takes strings and splits them: a token holding whitespace becomes several",
        explanation=(
            "bleu_score splits every hypothesis and reference with str.split(), so tokens a user "
            "joins with spaces are split again where they hold whitespace. Model: every segment "
            "is ' '.join(tokens).split(). The mapped adapter gives whitespace-free surrogates."
        ),
        reproducer={"hypotheses": [["a b", "c"]], "references": [[["a b", "c", "d"]]],
                    "max_order": 2},
        reproducer_field="bleu", card_value=0.6065306597126334, library_value=0.7165312767028809,
        library_code=_TE + "print(bleu_score(['a b c'], [['a b c d']], n_gram=2).item())",
        library_prints='0.7165312767028809',
        tags=("tokens",),
    ),
    CatalogEntry(
        id="TORCHEVAL-SHORTEST-REFERENCE",
        library="torcheval", verified=VERIFIED, tool_id=CORPUS,
        fields=("reference_length", "bleu"), modes=("as_called", "mapped"),
        title="torcheval takes the shortest reference's length, not the closest",
        explanation=(
            "_bleu_score_update adds min([len(ref) for ref in references_tokenized]) to the "
            "reference length: the shortest reference, whatever the hypothesis length (the "
            "card, after Papineni 2002, takes the closest; torcheval PR #195 discusses it). A "
            "short reference makes the brevity penalty milder. Model: each segment's shortest "
            "reference. No mapping can change it."
        ),
        reproducer={"hypotheses": [["a", "b", "c"]], "references": [[["a", "b", "c", "d"], ["a"]]],
                    "max_order": 1},
        reproducer_field="reference_length", card_value=4, library_value=1,
        library_code=("from torcheval.metrics.functional.text.bleu import _bleu_score_update\n"
                      "print(int(_bleu_score_update(['a b c'], [['a b c d', 'a']], 1)[1]))"),
        library_prints='1',
        facts=_facts_shortest, tags=("references",),
    ),
    CatalogEntry(
        id="TORCHEVAL-FLOAT32",
        library="torcheval", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="torcheval's bleu_score computes in float32: the score is a float32",
        explanation=(
            "_bleu_score_update counts matches in float32 tensors and lengths in int64; "
            "_bleu_score_compute takes m / t, log, the weights torch.tensor([1 / N] * N), "
            "exp(sum(...)) and bp = exp(1 - r / c) (an int64 division giving float32), all in "
            "float32. Model: those operations (torch's own log and exp)."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "d", "e"]]]},
        reproducer_field="bleu", card_value=0.7788007830714049, library_value=0.7788007855415344,
        library_code=_TE + "print(bleu_score(['a b c d'], [['a b c d e']], n_gram=4).item())",
        library_prints='0.7788007855415344',
        tags=("float",),
    ),
    CatalogEntry(
        id="TORCHEVAL-ZERO-TOTAL-RAISES",
        library="torcheval", verified=VERIFIED, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="torcheval raises ValueError when no hypothesis is long enough for the highest order",
        explanation=(
            "_bleu_score_update raises ValueError('the input is too short to find all n-gram "
            "matches with n_gram=N') when some order's total is 0 (every hypothesis shorter than "
            "n); the card scores such a corpus 0. Model: that error."
        ),
        reproducer={"hypotheses": [["a", "b"]], "references": [[["a", "b"]]]},
        reproducer_field="error", card_value=None,
        library_value="ValueError: the input is too short to find all n-gram matches with n_gram=4",
        library_code=_TE + "try:\n    bleu_score(['a b'], [['a b']], n_gram=4)\n"
                           "except ValueError as exc:\n    print(type(exc).__name__ + ': ' + str(exc))",
        library_prints='ValueError: the input is too short to find all n-gram matches with n_gram=4',
        tags=("orders",),
    ),
    CatalogEntry(
        id="TORCHEVAL-MAX-ORDER-4",
        library="torcheval", verified=VERIFIED, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="torcheval counts at most 4 n-gram orders",
        explanation=(
            "_get_ngrams raises ValueError('n_gram should be 1, 2, 3, or 4, got N.') for N > 4; "
            "the cards take up to 8. Model: that error."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d", "e"]], "references": [[["a", "b", "c", "d", "e"]]],
                    "max_order": 5},
        reproducer_field="error", card_value=None,
        library_value="ValueError: n_gram should be 1, 2, 3, or 4, got 5.",
        library_code=_TE + "try:\n    bleu_score(['a b c d e'], [['a b c d e']], n_gram=5)\n"
                           "except ValueError as exc:\n    print(type(exc).__name__ + ': ' + str(exc))",
        library_prints='ValueError: n_gram should be 1, 2, 3, or 4, got 5.',
        tags=("orders",),
    ),
    CatalogEntry(
        id="TORCHEVAL-FLOAT32-SMOOTHING",
        library="torcheval", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="bleu_score's last step from statistics: float32",
        explanation=(
            "As in TORCHEVAL-FLOAT32, on the statistics as _bleu_score_update builds them "
            "(counts float32, lengths int64): _bleu_score_compute gives a float32. Model: those "
            "operations."
        ),
        reproducer={"matches": [5, 2], "totals": [6, 7], "candidate_length": 6,
                    "reference_length": 6, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.48795003647426655, library_value=0.48795005679130554,
        library_code=("import torch\nfrom torcheval.metrics.functional.text.bleu import "
                      "_bleu_score_compute\nprint(_bleu_score_compute(torch.tensor(6), torch.tensor(6), "
                      "torch.tensor([5, 2], dtype=torch.float32), torch.tensor([6, 7], "
                      "dtype=torch.float32), 2).item())"),
        library_prints='0.48795005679130554',
        tags=("float",),
    ),
)
