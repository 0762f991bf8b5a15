"""torchmetrics' catalog entries: what its BLEU does differently from the cards.

Each entry's model is the branch of :mod:`bleu_compat.libraries.torchmetrics.model`
behind the entry's id; an entry explains a torchmetrics output only when the
dialect with its model switched on reproduces that output bit for bit (SPEC.md
§7). ``library_code`` prints torchmetrics' own value on the reproducer
(``oracle_tests/test_catalog.py`` runs it when the installed release is among
``verified``).
"""

from __future__ import annotations

from typing import Any

from bleu_compat.harness.dialect import CatalogEntry
from bleu_compat.harness.truth import closest_length

__all__ = ["ENTRIES", "VERIFIED"]

#: torchmetrics releases whose dialect was measured (torch 2.13.0 CPU, Python 3.11)
VERIFIED = ("1.9.0",)
CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"
Request = dict[str, Any]

_TM = "from torchmetrics.functional.text import bleu_score\n"
_STATES = ("import torch\nfrom torchmetrics.text import BLEUScore\n"
           "def states(m, matches, totals, c, r):\n"
           "    m.numerator = torch.tensor(matches, dtype=torch.float32)\n"
           "    m.denominator = torch.tensor(totals, dtype=torch.float32)\n"
           "    m.preds_len = torch.tensor(c, dtype=torch.float32)\n"
           "    m.target_len = torch.tensor(r, dtype=torch.float32)\n"
           "    m._update_count = 1\n"
           "    return m\n")


def _facts_ties(request: Request) -> str | None:
    ties = 0
    for hyp, refs in zip(request["hypotheses"], request["references"]):
        lengths = [len(r) for r in refs]
        diffs = [abs(len(hyp) - x) for x in lengths]
        first = lengths[diffs.index(min(diffs))]
        if first != closest_length(len(hyp), lengths):
            ties += 1
    if not ties:
        return None
    return (f"{ties} segment{'s' if ties != 1 else ''} {'have' if ties != 1 else 'has'} a longer "
            "reference listed first among the closest")


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="TORCHMETRICS-WHITESPACE-IN-TOKEN",
        library="torchmetrics", verified=VERIFIED, tool_id=CORPUS,
        fields=("matches", "totals", "candidate_length", "reference_length", "bleu"),
        modes=("as_called",),
        title="torchmetrics takes strings and splits them: a token holding whitespace becomes several",
        explanation=(
            "BLEUScore and bleu_score take each hypothesis and reference as a string and "
            "tokenize it with str.split(), so the tokens a user joins with spaces are split "
            "again wherever they hold whitespace, and the counts, lengths and score change. "
            "Model: every segment is ' '.join(tokens).split(). The mapped adapter gives "
            "whitespace-free surrogates."
        ),
        reproducer={"hypotheses": [["a b", "c"]], "references": [[["a b", "c", "d"]]],
                    "max_order": 2},
        reproducer_field="bleu", card_value=0.6065306597126334, library_value=0.7165312767028809,
        library_code=_TM + "print(bleu_score(['a b c'], [['a b c d']], n_gram=2).item())",
        library_prints='0.7165312767028809',
        tags=("tokens",),
    ),
    CatalogEntry(
        id="TORCHMETRICS-FIRST-REFERENCE-TIES",
        library="torchmetrics", verified=VERIFIED, tool_id=CORPUS,
        fields=("reference_length", "bleu"), modes=("as_called",),
        title="Of two references equally close in length, torchmetrics takes the first listed",
        explanation=(
            "_bleu_score_update adds target_len_list[target_len_diff.index(min(target_len_diff))]: "
            "the first reference whose length is closest to the hypothesis length. The card "
            "(Papineni 2002, mteval, sacreBLEU, NLTK) takes the shorter of two equally close "
            "lengths. With a longer reference listed first the reference length grows and the "
            "brevity penalty can fall. Model: the first listed of the closest. The mapped "
            "adapter lists each segment's references shortest first."
        ),
        reproducer={"hypotheses": [["a", "b", "c"]], "references": [[["a", "b", "c", "d"], ["a", "b"]]],
                    "max_order": 1},
        reproducer_field="reference_length", card_value=2, library_value=4,
        library_code=("from torchmetrics.text import BLEUScore\nm = BLEUScore(n_gram=1)\n"
                      "m.update(['a b c'], [['a b c d', 'a b']])\nprint(m.target_len.item())"),
        library_prints='4.0',
        facts=_facts_ties, tags=("references",),
    ),
    CatalogEntry(
        id="TORCHMETRICS-FLOAT32",
        library="torchmetrics", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="torchmetrics counts and computes in float32: the score is a float32",
        explanation=(
            "The states (numerator, denominator, preds_len, target_len) are float32 tensors and "
            "_bleu_score_compute works on them in float32: p = num / den, w * log(p) with the "
            "weights as a float32 tensor, exp(sum(...)), and bp = exp(1 - r / c) when c <= r. "
            "The score differs from the card's double from the 8th significant digit on. Model: "
            "those float32 operations (torch's own log and exp, which on this CPU are not always "
            "the correctly rounded float32). Counts above 2^24 would be rounded, but the "
            "cards' corpus limits stay far below."
        ),
        reproducer={"hypotheses": [["a", "b", "c", "d"]], "references": [[["a", "b", "c", "d", "e"]]]},
        reproducer_field="bleu", card_value=0.7788007830714049, library_value=0.7788007855415344,
        library_code=_TM + "print(bleu_score(['a b c d'], [['a b c d e']]).item())",
        library_prints='0.7788007855415344',
        tags=("float",),
    ),
    CatalogEntry(
        id="TORCHMETRICS-FLOAT32-SMOOTHING",
        library="torchmetrics", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="From its states, BLEUScore computes in float32; counts above 2^24 are rounded",
        explanation=(
            "As in TORCHMETRICS-FLOAT32, on the statistics held as BLEUScore's states: each is a "
            "float32 (16777217 is 16777216), and compute() evaluates the score in float32, "
            "smooth=True adding one to numerator and denominator from order 2 (the card's "
            "method2). Model: the statistics rounded to float32 and those float32 operations."
        ),
        reproducer={"matches": [5, 2], "totals": [6, 7], "candidate_length": 6,
                    "reference_length": 6, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.48795003647426655, library_value=0.48795005679130554,
        library_code=_STATES + "print(states(BLEUScore(n_gram=2), [5, 2], [6, 7], 6, 6).compute().item())",
        library_prints='0.48795005679130554',
        tags=("float",),
    ),
    CatalogEntry(
        id="TORCHMETRICS-ZERO-MATCH-SKIPS-SMOOTHING",
        library="torchmetrics", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="With smooth=True, an order without a match still gives 0: the check comes first",
        explanation=(
            "_bleu_score_compute returns 0 as soon as min(numerator) == 0, before it adds one "
            "to numerator and denominator, so smooth=True smooths only statistics that need no "
            "smoothing. The card's method2 gives an order without a match the precision "
            "1 / (l_n + 1) and a positive score. Model: 0 whenever some order has no match."
        ),
        reproducer={"matches": [3, 0, 0], "totals": [3, 2, 1], "candidate_length": 3,
                    "reference_length": 3, "smoothing": "method2"},
        reproducer_field="bleu", card_value=0.5503212081491045, library_value=0,
        library_code=_STATES + "print(states(BLEUScore(n_gram=3, smooth=True), [3, 0, 0], [3, 2, 1], "
                               "3, 3).compute().item())",
        library_prints='0.0',
        tags=("smoothing",),
    ),
)
