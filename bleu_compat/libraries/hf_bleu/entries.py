"""HF evaluate ``bleu``'s catalog entries: what the tensorflow/nmt formula does differently.

Each entry's model is the branch of :mod:`bleu_compat.libraries.hf_bleu.model` behind the
entry's id; an entry explains an output only when the dialect with its model switched on
reproduces it bit for bit (SPEC.md §7). ``library_code`` prints the cached module's own
value on the reproducer: ``evaluate.load("bleu").compute(...)`` needs the ``evaluate``
library, so the code calls the same module through bleu-compat's loader
(:func:`bleu_compat.libraries.hf_bleu.cache.compute`: the module's own ``compute_bleu`` and
``Tokenizer13a`` behind ``Bleu._compute``'s glue).
"""

from __future__ import annotations

from typing import Any

from bleu_compat.harness.dialect import CatalogEntry

__all__ = ["ENTRIES", "VERIFIED"]

#: evaluate-metric/bleu as evaluate 0.2.0-0.4.6 download it (bleu.py of 2022-07-05, its
#: tokenizer_13a.py of 2022-05-02, tensorflow/nmt's bleu.py of 2017), run from a modules cache
#: laid out as evaluate lays it out
VERIFIED = ("2022.7.5",)
CORPUS, SMOOTHING = "bleu-corpus-compute", "bleu-smoothing-compute"
Request = dict[str, Any]

_LOAD = ("from bleu_compat.libraries.hf_bleu.cache import compute  "
         "# = evaluate.load('bleu').compute, from the modules cache\n")


def _retokenized(request: Request) -> str | None:
    from bleu_compat.libraries.hf_bleu.model import tokenize_13a_copy

    changed = sum(1 for h in request["hypotheses"] if tokenize_13a_copy(" ".join(h)) != list(h))
    changed += sum(1 for seg in request["references"] for r in seg
                   if tokenize_13a_copy(" ".join(r)) != list(r))
    if not changed:
        return None
    return f"{changed} hypothesis or reference token list(s) are tokenized differently by 13a"


def _shortest(request: Request) -> str | None:
    from bleu_compat.harness.truth import closest_length

    segs = [i for i, (h, refs) in enumerate(zip(request["hypotheses"], request["references"]))
            if min(len(r) for r in refs) != closest_length(len(h), [len(r) for r in refs])]
    if not segs:
        return None
    return (f"{len(segs)} segment(s) whose shortest reference is not the closest in length "
            f"(first: segment {segs[0]})")


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        id="HF-BLEU-13A-RETOKENIZES",
        library="hf-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu", "brevity_penalty", "candidate_length", "reference_length", "matches", "totals"),
        modes=("as_called",),
        title="HF's bleu tokenizes every string again with its copy of 13a",
        explanation=(
            "evaluate's bleu takes strings and, unless given another tokenizer=, runs its own copy "
            "of sacreBLEU's 13a (tokenizer_13a.Tokenizer13a) on each: punctuation is split off "
            "('Hello,' becomes 'Hello' ','), &quot; &amp; &lt; &gt; are unescaped, '<skipped>' and "
            "'-\\n' removed, and the result split on whitespace. Unlike sacreBLEU's BLEU it does "
            "not rstrip the string first. Model: every segment is its tokens joined by spaces, "
            "tokenized by the copy (written from its rules). The mapped adapter gives whitespace-"
            "free surrogate tokens and tokenizer=str.split."
        ),
        reproducer={"hypotheses": [["Hello,", "world!"]], "references": [[["Hello,", "world!"]]]},
        reproducer_field="totals", card_value=[2, 1, 0, 0], library_value=[4, 3, 2, 1],
        library_code=_LOAD + "r = compute(['Hello, world!'], [['Hello, world!']])\n"
                             "print(r['translation_length'], r['bleu'])",
        library_prints="4 1.0",
        facts=_retokenized, tags=("tokens",),
    ),
    CatalogEntry(
        id="HF-BLEU-SHORTEST-REFERENCE",
        library="hf-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("reference_length", "brevity_penalty", "bleu"), modes=("as_called", "mapped"),
        title="HF's bleu takes the shortest reference's length, not the closest",
        explanation=(
            "tensorflow/nmt's compute_bleu adds min(len(r) for r in references) to the reference "
            "length of each segment, where the card (Papineni 2002, mteval, sacreBLEU, NLTK) takes "
            "the reference closest in length to the hypothesis. With several references the "
            "reference length is smaller, and the brevity penalty rarely applies. Model: each "
            "segment contributes its shortest reference's length."
        ),
        reproducer={"hypotheses": [["a", "b", "c"]],
                    "references": [[["a", "b", "c"], ["a", "b"]]], "max_order": 1},
        reproducer_field="reference_length", card_value=3, library_value=2,
        library_code=_LOAD + "print(compute(['a b c'], [['a b c', 'a b']], max_order=1)"
                             "['reference_length'])",
        library_prints="2",
        facts=_shortest, tags=("references",),
    ),
    CatalogEntry(
        id="HF-BLEU-BP-RATIO",
        library="hf-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("brevity_penalty", "bleu"), modes=("as_called", "mapped"),
        title="Brevity penalty exp(1 - 1 / ratio) with ratio = c / r: last-bit differences",
        explanation=(
            "compute_bleu divides first, ratio = float(c) / r, and then takes "
            "exp(1 - 1. / ratio): two roundings where the card computes exp(1 - r / c) with one. "
            "The penalty (and so the score) can differ in the last bits when c < r. Model: "
            "exactly those operations."
        ),
        reproducer={"hypotheses": [["a", "b", "c"]],
                    "references": [[["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]]],
                    "max_order": 1},
        reproducer_field="brevity_penalty", card_value=0.06948345122280154,
        library_value=0.06948345122280151,
        library_code=_LOAD + "print(compute(['a b c'], [['a b c d e f g h i j k']], max_order=1)"
                             "['brevity_penalty'])",
        library_prints="0.06948345122280151",
        tags=("float",),
    ),
    CatalogEntry(
        id="HF-BLEU-FLOAT-ORDER",
        library="hf-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="Pre-weighted logs, exp(sum((1/N) * log(p_n))): last-bit differences when N is not a "
              "power of two",
        explanation=(
            "compute_bleu sums (1. / max_order) * math.log(p) over the orders (Python's sum, from "
            "0) where the card multiplies the sum of the logs by 1/N. For N = 1, 2, 4 and 8, 1/N "
            "is a power of two and both are the same double; for N = 3 they can differ in the "
            "last bits. Model: exactly compute_bleu's operations."
        ),
        reproducer={"hypotheses": [["b", "e", "e", "c", "b"], ["c", "d", "e", "e", "e", "c", "b", "c"]],
                    "references": [[["c", "d", "d", "b", "b"]], [["c", "b", "c", "d", "b", "d"]]],
                    "max_order": 3},
        reproducer_field="bleu", card_value=0.2536375693438661, library_value=0.25363756934386616,
        library_code=_LOAD + "print(compute(['b e e c b', 'c d e e e c b c'], "
                             "[['c d d b b'], ['c b c d b d']], max_order=3)['bleu'])",
        library_prints="0.25363756934386616",
        tags=("float",),
    ),
    CatalogEntry(
        id="HF-BLEU-ZERO-LENGTH-RAISES",
        library="hf-bleu", verified=VERIFIED, tool_id=CORPUS,
        fields=("error",), modes=("as_called", "mapped"),
        title="An empty system output (c = 0) or empty shortest references (r = 0) raise "
              "ZeroDivisionError",
        explanation=(
            "compute_bleu computes ratio = float(translation_length) / reference_length and then "
            "1. / ratio: a reference length of 0 (every segment's shortest reference empty) or a "
            "translation length of 0 (every hypothesis empty) raises ZeroDivisionError: float "
            "division by zero, where the card gives 0 (c = 0) or a brevity penalty of 1 (r = 0). "
            "Model: that error."
        ),
        reproducer={"hypotheses": [[]], "references": [[["a"]]]},
        reproducer_field="error", card_value=None,
        library_value="ZeroDivisionError: float division by zero",
        library_code=_LOAD + "try:\n    compute([''], [['a']])\nexcept ZeroDivisionError as exc:\n"
                             "    print(type(exc).__name__ + ': ' + str(exc))",
        library_prints="ZeroDivisionError: float division by zero",
        tags=("zero",),
    ),
    # --- bleu-smoothing-compute (the adapter runs compute_bleu on a corpus with these statistics)
    CatalogEntry(
        id="HF-BLEU-BP-RATIO-SMOOTHING",
        library="hf-bleu", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("brevity_penalty", "bleu"), modes=("as_called", "mapped"),
        title="Brevity penalty exp(1 - 1 / (c / r)) on given statistics",
        explanation=(
            "As in HF-BLEU-BP-RATIO: ratio = float(c) / r, then exp(1 - 1. / ratio), where the "
            "card has exp(1 - r / c). Model: exactly those operations."
        ),
        reproducer={"matches": [3], "totals": [3], "candidate_length": 3, "reference_length": 11,
                    "smoothing": "none"},
        reproducer_field="brevity_penalty", card_value=0.06948345122280154,
        library_value=0.06948345122280151,
        library_code=_LOAD + "print(compute(['a b c'], [['a b c d e f g h i j k']], max_order=1)"
                             "['brevity_penalty'])",
        library_prints="0.06948345122280151",
        tags=("float",),
    ),
    CatalogEntry(
        id="HF-BLEU-FLOAT-ORDER-SMOOTHING",
        library="hf-bleu", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("bleu",), modes=("as_called", "mapped"),
        title="exp(sum((1/N) * log(p_n))) on given statistics: last-bit differences",
        explanation=(
            "As in HF-BLEU-FLOAT-ORDER: the weight 1/N is applied to each log before the sum, "
            "where the card divides the sum by the orders used. Model: exactly compute_bleu's "
            "operations on the (smoothed) precisions."
        ),
        reproducer={"matches": [7, 5, 3], "totals": [9, 7, 5], "candidate_length": 9,
                    "reference_length": 9, "smoothing": "none"},
        reproducer_field="bleu", card_value=0.6933612743506348, library_value=0.6933612743506347,
        library_code=_LOAD + "print(compute(['a b c d p q', 'e f g'], [['a b c d x y'], ['e f g']], "
                             "max_order=3)['bleu'])",
        library_prints="0.6933612743506347",
        tags=("float",),
    ),
    CatalogEntry(
        id="HF-BLEU-ADD-ONE-ON-UNIGRAMS-SMOOTHING",
        library="hf-bleu", verified=VERIFIED, tool_id=SMOOTHING,
        fields=("smoothed_matches", "smoothed_totals", "bleu"), modes=("as_called",),
        title="smooth=True adds one to every order's match and total, the unigrams included",
        explanation=(
            "compute_bleu(smooth=True) uses (m_n + 1.) / (l_n + 1.) for every order n (Lin & Och "
            "2004), where Chen & Cherry's method 2 (the card's method2, sacreBLEU's add-k, NLTK "
            "3.6+) adds one from order 2 and leaves the unigram precision alone. The unigram "
            "precision rises and, with no unigram match, the score is not 0. Model: +1 on the "
            "match and total of every order. As mapped the card's method2 is not representable."
        ),
        reproducer={"matches": [2, 1], "totals": [3, 2], "candidate_length": 3, "reference_length": 3,
                    "smoothing": "method2"},
        reproducer_field="smoothed_matches", card_value=[2, 2], library_value=[3, 2],
        library_code=_LOAD + "print(compute(['a b x'], [['a b c']], max_order=2, smooth=True)"
                             "['precisions'])",
        library_prints="[0.75, 0.6666666666666666]",
        tags=("smoothing",),
    ),
)
