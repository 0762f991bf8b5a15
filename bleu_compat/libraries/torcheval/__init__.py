"""torcheval: its adapter (calling the real library), its dialect model and its catalog entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without importing torch.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_F = "torcheval/metrics/functional/text/bleu.py"

LIBRARY = Library(
    name="torcheval",
    display_name="torcheval",
    distribution="torcheval",
    import_modules=("torch", "torcheval.metrics.functional", "torcheval.metrics.functional.text.bleu"),
    adapter="bleu_compat.libraries.torcheval.adapter",
    model="bleu_compat.libraries.torcheval.model",
    entries="bleu_compat.libraries.torcheval.entries",
    native=NativeValue(keys=("score",), scale="0-1", label="score",
                       describe="torcheval's `bleu_score(...).item()`"),
    smoothing={"none": "none"},
    no_effective_order="torcheval's bleu_score has no effective order",
    configurations=(
        BuiltinConfiguration("torcheval", "split", call="bleu_score", options=("order",)),
    ),
    factors={
        "tokenizer": Factor("str.split() of each string", f"{_F} _bleu_score_update (0.0.7)"),
        "case": Factor("as given", f"{_F} _bleu_score_update (0.0.7)"),
        "smoothing": Factor("none (an order without a match: log 0, score 0)",
                            f"{_F} _bleu_score_compute (0.0.7)"),
        "effective order": Factor("none; an order without any n-gram raises ValueError",
                                  f"{_F} _bleu_score_update (0.0.7); TORCHEVAL-ZERO-TOTAL-RAISES"),
        "max order": Factor("n_gram=4, 1 to 4 only; weights torch.tensor([1 / N] * N) (float32)",
                            f"{_F} _get_ngrams, _bleu_score_compute (0.0.7); TORCHEVAL-MAX-ORDER-4"),
        "reference length": Factor("the shortest reference of each segment",
                                   f"{_F} _bleu_score_update: min([len(ref) ...]) (0.0.7); "
                                   "TORCHEVAL-SHORTEST-REFERENCE"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one of the "
                           "segment's references (Counter | and &)", f"{_F} _bleu_score_update (0.0.7)"),
        "count type": Factor("matches and totals float32 tensors, lengths int64 (the class "
                             "BLEUScore: float64 states)",
                             f"{_F} _bleu_score_update; torcheval/metrics/text/bleu.py (0.0.7)"),
        "aggregation": Factor("corpus: statistics summed, one BLEU", f"{_F} bleu_score (0.0.7)"),
        "arithmetic": Factor("float32: exp(sum(w * log(m / t))) * bp, bp = exp(1 - r / c)",
                             f"TORCHEVAL-FLOAT32; {_F} _bleu_score_compute (0.0.7)"),
    },
    decomposition=DecompositionSpec(
        float_entry="TORCHEVAL-FLOAT32-SMOOTHING",
        corpus_ids={"TORCHEVAL-FLOAT32-SMOOTHING": "TORCHEVAL-FLOAT32"},
        statistics=(("shortest reference", "shortest-reference"),
                    ("float32 counts", "float32-counts")),
    ),
    colour="#c03d3e",
    install="pip install 'bleu-compat[torch]' (torch==2.13.0 and torcheval 0.0.7)",
)
