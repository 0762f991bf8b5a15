"""pycocoevalcap: its adapter (calling the real library), its dialect model and its catalog entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without importing pycocoevalcap.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_S = "pycocoevalcap/bleu/bleu_scorer.py"

LIBRARY = Library(
    name="pycocoevalcap",
    display_name="pycocoevalcap",
    distribution="pycocoevalcap",
    import_modules=("pycocoevalcap.bleu.bleu", "pycocoevalcap.bleu.bleu_scorer"),
    adapter="bleu_compat.libraries.pycocoevalcap.adapter",
    model="bleu_compat.libraries.pycocoevalcap.model",
    entries="bleu_compat.libraries.pycocoevalcap.entries",
    native=NativeValue(keys=("score",), scale="0-1", label="Bleu_N",
                       describe="pycocoevalcap's `Bleu(4).compute_score(...)[0][3]` (Bleu_4)"),
    smoothing={"none": "none"},
    no_effective_order="pycocoevalcap's Bleu has no effective order",
    tokenizers=("ptb",),
    configurations=(
        BuiltinConfiguration("coco", "split", call="Bleu", options=("order",)),
        BuiltinConfiguration("coco-ptb", "ptb", call="PTBTokenizer+Bleu", options=("order",)),
    ),
    factors={
        "tokenizer": Factor("str.split() of each caption; the usual pipeline first runs "
                            "PTBTokenizer (Stanford CoreNLP 3.4.1 in Java: lowercased, "
                            "punctuation tokens dropped)",
                            f"{_S} precook; pycocoevalcap/tokenizer/ptbtokenizer.py (1.2)"),
        "case": Factor("as given; lowercased by the PTB tokenizer (-lowerCase)",
                       "pycocoevalcap/tokenizer/ptbtokenizer.py (1.2)"),
        "smoothing": Factor("none: the fudges 1e-15 (match) and 1e-9 (total) keep every ratio "
                            "positive", f"{_S} BleuScorer.compute_score (1.2); "
                            "PYCOCOEVALCAP-ZERO-MATCH-FUDGE"),
        "effective order": Factor("none", f"{_S} BleuScorer.compute_score (1.2)"),
        "max order": Factor("Bleu(4): Bleu_1..Bleu_4 from one running product",
                            "pycocoevalcap/bleu/bleu.py Bleu.__init__(n=4) (1.2)"),
        "reference length": Factor("closest to the hypothesis length; ties to the shorter",
                                   f"{_S} BleuScorer._single_reflen('closest') (1.2)"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one of the "
                           "image's references", f"{_S} cook_refs, cook_test (1.2)"),
        "count type": Factor("Python int", f"{_S} cook_test (1.2)"),
        "aggregation": Factor("corpus: the images' statistics summed, one BLEU (per-image "
                              "scores returned beside it)", f"{_S} BleuScorer.compute_score (1.2)"),
        "arithmetic": Factor("(prod_k (m_k + 1e-15) / (t_k + 1e-9)) ** (1 / N) * "
                             "exp(1 - 1 / ratio), ratio = (c + 1e-15) / (r + 1e-9)",
                             f"PYCOCOEVALCAP-FUDGE-ARITHMETIC; {_S} compute_score (1.2)"),
    },
    decomposition=DecompositionSpec(
        float_entry="PYCOCOEVALCAP-FUDGE-ARITHMETIC-SMOOTHING",
        corpus_ids={"PYCOCOEVALCAP-FUDGE-ARITHMETIC-SMOOTHING": "PYCOCOEVALCAP-FUDGE-ARITHMETIC",
                    "PYCOCOEVALCAP-ZERO-MATCH-FUDGE-SMOOTHING": "PYCOCOEVALCAP-ZERO-MATCH-FUDGE"},
        switches=("PYCOCOEVALCAP-ZERO-MATCH-FUDGE-SMOOTHING",),
        dominant=("PYCOCOEVALCAP-ZERO-MATCH-FUDGE-SMOOTHING",),
    ),
    colour="#9372b2",
    install="pip install 'bleu-compat[coco]' (pycocoevalcap 1.2; java for its PTB tokenizer)",
)
