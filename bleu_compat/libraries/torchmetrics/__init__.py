"""torchmetrics: its adapter (calling the real library), its dialect model and its catalog entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without importing torch.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_F = "torchmetrics/functional/text/bleu.py"
_S = "torchmetrics/functional/text/sacre_bleu.py"

LIBRARY = Library(
    name="torchmetrics",
    display_name="torchmetrics",
    distribution="torchmetrics",
    import_modules=("torch", "torchmetrics.functional.text", "torchmetrics.text"),
    adapter="bleu_compat.libraries.torchmetrics.adapter",
    model="bleu_compat.libraries.torchmetrics.model",
    entries="bleu_compat.libraries.torchmetrics.entries",
    native=NativeValue(keys=("score",), scale="0-1", label="score",
                       describe="torchmetrics' `BLEUScore().compute().item()`"),
    smoothing={"none": "none", "add-one": "method2"},
    no_effective_order="torchmetrics' BLEUScore has no effective order",
    configurations=(
        BuiltinConfiguration("torchmetrics", "split", call="BLEUScore",
                             options=("smooth", "order")),
        BuiltinConfiguration("torchmetrics-sacrebleu", "13a", call="SacreBLEUScore",
                             options=("tok", "lc", "smooth", "order")),
    ),
    factors={
        "tokenizer": Factor("BLEUScore: str.split(); SacreBLEUScore: its own copy of sacreBLEU's "
                            "13a/intl/zh/char (no rstrip), default 13a",
                            f"{_F} _tokenize_fn; {_S} _SacreBLEUTokenizer (1.9.0)"),
        "case": Factor("as given; SacreBLEUScore(lowercase=True) lowercases after tokenizing",
                       f"{_S} _SacreBLEUTokenizer.__call__ (1.9.0)"),
        "smoothing": Factor("none; smooth=True adds one from order 2 (Lin & Och 2004), but "
                            "only when every order has a match",
                            f"{_F} _bleu_score_compute (1.9.0); TORCHMETRICS-ZERO-MATCH-SKIPS-SMOOTHING"),
        "effective order": Factor("none", f"{_F} _bleu_score_compute (1.9.0)"),
        "max order": Factor("n_gram=4, weights [1/N] * N as a float32 tensor",
                            "torchmetrics/text/bleu.py BLEUScore.__init__ (1.9.0)"),
        "reference length": Factor("closest to the hypothesis length; ties to the first listed",
                                   f"{_F} _bleu_score_update: target_len_diff.index(min(...)) "
                                   "(1.9.0); TORCHMETRICS-FIRST-REFERENCE-TIES"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one of the "
                           "segment's references (Counter | and &)",
                           f"{_F} _bleu_score_update (1.9.0)"),
        "count type": Factor("float32 tensors, one addition per distinct n-gram (2^24 + 1 is 2^24)",
                             "torchmetrics/text/bleu.py add_state(torch.zeros(n_gram)) (1.9.0); "
                             "TORCHMETRICS-FLOAT32-SMOOTHING"),
        "aggregation": Factor("corpus: the states summed over update() calls, one BLEU",
                              "torchmetrics/text/bleu.py BLEUScore.update/compute (1.9.0)"),
        "arithmetic": Factor("float32: exp(sum(w * log(num / den))) * bp, bp = exp(1 - r / c)",
                             f"TORCHMETRICS-FLOAT32; {_F} _bleu_score_compute (1.9.0)"),
    },
    decomposition=DecompositionSpec(
        float_entry="TORCHMETRICS-FLOAT32-SMOOTHING",
        corpus_ids={"TORCHMETRICS-FLOAT32-SMOOTHING": "TORCHMETRICS-FLOAT32"},
        switches=("TORCHMETRICS-ZERO-MATCH-SKIPS-SMOOTHING",),
        statistics=(("first-reference ties", "first-reference-ties"),
                    ("float32 counts", "float32-counts")),
    ),
    colour="#3a923a",
    install="pip install 'bleu-compat[torch]' (torch==2.13.0 and torchmetrics 1.9)",
)
