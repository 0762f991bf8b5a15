"""bleuscore's catalog entries: what it does differently from the cards.

Each entry's model is the branch of :mod:`bleu_compat.libraries.bleuscore.model` behind its
id; an entry explains an output only when the dialect with its model switched on reproduces
it bit for bit (SPEC.md §7). ``library_code`` prints bleuscore's own value on the reproducer.
"""

from __future__ import annotations

from bleu_compat.harness.dialect import CatalogEntry

__all__ = ["ENTRIES", "VERIFIED"]

#: every bleuscore release whose dialect was measured (0.2.0 is the first with ref_len_method)
VERIFIED = ("0.2.0",)
CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"

_B = "import bleuscore\n"


def _retokenized(request: dict) -> str | None:
    from bleu_compat.libraries.hf_bleu.model import tokenize_13a_copy

    changed = sum(1 for h in request["hypotheses"] if tokenize_13a_copy(" ".join(h), "rust") != list(h))
    changed += sum(1 for seg in request["references"] for r in seg
                   if tokenize_13a_copy(" ".join(r), "rust") != list(r))
    return f"{changed} token list(s) are tokenized differently by 13a" if changed else None


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="BLEUSCORE-13A-RETOKENIZES",
        library="bleuscore", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty", "candidate_length", "reference_length", "matches", "totals"),
        modes=("as_called",),
        title="bleuscore always tokenizes with its 13a, splitting on Rust's whitespace",
        explanation=(
            "bleuscore.compute takes strings and runs its Rust copy of evaluate's 13a on each "
            "(it has no other tokenizer): punctuation is split off, the four entities unescaped, "
            "'<skipped>' and '-\\n' removed, and the result split with Rust's split_whitespace, "
            "which does not split on U+001C..U+001F (Python's str.split, and so evaluate, does). "
            "Model: every segment is its tokens joined by spaces, tokenized by the copy with "
            "Rust's whitespace. The mapped adapter gives whitespace-free surrogate tokens, which "
            "13a keeps whole."
        ),
        reproducer={"hypotheses": [["Hello,", "world!"]], "references": [[["Hello,", "world!"]]]},
        reproducer_field="totals", card_value=[2, 1, 0, 0], library_value=[4, 3, 2, 1],
        library_code=_B + "r = bleuscore.compute([['Hello, world!']], ['Hello, world!'])\n"
                          "print(r['translation_length'], r['bleu'])",
        library_prints="4 1.0",
        facts=_retokenized, tags=("tokens",),
    ),
    CatalogEntry(
        id="BLEUSCORE-SHORTEST-REFERENCE",
        library="bleuscore", verified=VERIFIED, tool_id=CORPUS,
        fields=("reference_length", "brevity_penalty", "bleu"), modes=("as_called",),
        title="bleuscore takes the shortest reference's length by default",
        explanation=(
            "compute's default ref_len_method='shortest' (compatible with evaluate and "
            "tensorflow/nmt) adds each segment's shortest reference length, where the card takes "
            "the reference closest in length to the hypothesis. Model: the shortest. The mapped "
            "adapter passes ref_len_method='closest' (the card's rule, ties to the shorter)."
        ),
        reproducer={"hypotheses": [["a", "b", "c"]],
                    "references": [[["a", "b", "c"], ["a", "b"]]], "max_order": 1},
        reproducer_field="reference_length", card_value=3, library_value=2,
        library_code=_B + "print(bleuscore.compute([['a b c', 'a b']], ['a b c'], max_order=1)"
                          "['reference_length'])",
        library_prints="2",
        tags=("references",),
    ),
    CatalogEntry(
        id="BLEUSCORE-BP-RATIO",
        library="bleuscore", verified=VERIFIED, tool_id=CORPUS,
        fields=("brevity_penalty", "bleu"), modes=("as_called", "mapped"),
        title="Brevity penalty exp(1 - 1 / ratio) with ratio = c / r: last-bit differences",
        explanation=(
            "bleuscore computes length_ratio = c / r and then exp(1.0 - 1.0 / length_ratio), two "
            "roundings where the card has exp(1 - r / c). Model: exactly those operations."
        ),
        reproducer={"hypotheses": [["a", "b", "c"]],
                    "references": [[["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]]],
                    "max_order": 1},
        reproducer_field="brevity_penalty", card_value=0.06948345122280154,
        library_value=0.06948345122280151,
        library_code=_B + "print(bleuscore.compute([['a b c d e f g h i j k']], ['a b c'], "
                          "max_order=1)['brevity_penalty'])",
        library_prints="0.06948345122280151",
        tags=("float",),
    ),
    CatalogEntry(
        id="BLEUSCORE-BP-ZERO-LENGTHS",
        library="bleuscore", verified=VERIFIED, tool_id=CORPUS,
        fields=("brevity_penalty",), modes=("as_called", "mapped"),
        title="bleuscore's brevity penalty is 1 when c = 0 and r = 0 (card: 0)",
        explanation=(
            "With no hypothesis and no reference token, length_ratio = 0.0 / 0.0 is NaN, the test "
            "length_ratio <= 1.0 is false, and the penalty stays 1.0; the card defines it as 0 "
            "whenever c = 0. The score is 0 either way. (HF evaluate's bleu raises "
            "ZeroDivisionError there.) Model: bp = 1.0 when c = r = 0."
        ),
        reproducer={"hypotheses": [[]], "references": [[[]]]},
        reproducer_field="brevity_penalty", card_value=0, library_value=1.0,
        library_code=_B + "print(bleuscore.compute([['']], [''])['brevity_penalty'])",
        library_prints="1.0",
        tags=("brevity",),
    ),
    # --- bleu-smoothing-compute (the adapter runs compute on a corpus with these statistics)
    CatalogEntry(
        id="BLEUSCORE-BP-RATIO-SMOOTHING",
        library="bleuscore", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("brevity_penalty", "bleu"), modes=("as_called", "mapped"),
        title="bleuscore's brevity penalty on given statistics: exp(1 - 1 / (c / r)), 1 for c = r = 0",
        explanation=(
            "As in BLEUSCORE-BP-RATIO and BLEUSCORE-BP-ZERO-LENGTHS: length_ratio = c / r in IEEE "
            "arithmetic, exp(1.0 - 1.0 / length_ratio) when it is <= 1.0, else 1.0. Model: "
            "exactly that."
        ),
        reproducer={"matches": [3], "totals": [3], "candidate_length": 3, "reference_length": 11,
                    "smoothing": "none"},
        reproducer_field="brevity_penalty", card_value=0.06948345122280154,
        library_value=0.06948345122280151,
        library_code=_B + "print(bleuscore.compute([['a b c d e f g h i j k']], ['a b c'], "
                          "max_order=1)['brevity_penalty'])",
        library_prints="0.06948345122280151",
        tags=("float",),
    ),
    CatalogEntry(
        id="BLEUSCORE-FLOAT-ORDER-SMOOTHING",
        library="bleuscore", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="exp((1/N) * sum(ln p_n)) where the smoothing card divides the sum by N",
        explanation=(
            "bleuscore multiplies the sum of the log precisions by 1.0 / N (the corpus card's "
            "order); the smoothing card divides the sum by the orders used. For N = 3 the two "
            "can differ in the last bits. Model: exactly bleuscore's operations."
        ),
        reproducer={"matches": [6, 4, 3], "totals": [10, 8, 6], "candidate_length": 10,
                    "reference_length": 10, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.5313292845913055, library_value=0.5313292845913056,
        library_code=_B + "print(bleuscore.compute([['a b c d e w x y z'], ['h']], "
                          "['a b c d e f g', 'h i j'], max_order=3)['bleu'])",
        library_prints="0.5313292845913056",
        tags=("float",),
        unreached=(
            "bleuscore takes statistics only as counts of a token corpus, and the generator draws "
            "each order's counts independently: of the default run's 700 bleu-smoothing-compute "
            "cases bleuscore can express 42 (as called and mapped), and those whose every match and "
            "total is positive all have one order, where (1/N) * sum and sum / N are the same "
            "double; with more orders some match is 0 and both give 0 (measured on seed 0, "
            "bleuscore 0.2.0). Its own reproducer (N = 3) is checked by the catalog tests"),
    ),
    CatalogEntry(
        id="BLEUSCORE-ADD-ONE-ON-UNIGRAMS-SMOOTHING",
        library="bleuscore", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("smoothed_matches", "smoothed_totals", "bleu"), modes=("as_called",),
        title="smooth=True adds one to every order's match and total, the unigrams included",
        explanation=(
            "As evaluate's bleu: (m_n + 1.0) / (l_n + 1.0) for every order, where the card's "
            "method2 adds one from order 2. Model: +1 on every order's match and total. As "
            "mapped the card's method2 is not representable."
        ),
        reproducer={"matches": [2, 1], "totals": [3, 2], "candidate_length": 3, "reference_length": 3,
                    "smoothing": "method2"},
        reproducer_field="smoothed_matches", card_value=[2, 2], library_value=[3, 2],
        library_code=_B + "print(bleuscore.compute([['a b c']], ['a b x'], max_order=2, "
                          "smooth=True)['precisions'])",
        library_prints="[0.75, 0.6666666666666666]",
        tags=("smoothing",),
    ),
)
