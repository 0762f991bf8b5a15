"""HF evaluate's ``bleu`` (the tensorflow/nmt formula): adapter, dialect model, catalog entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without touching the modules cache.
The implementation is the user's cached module (``evaluate.load("bleu")`` keeps it in the
Hugging Face modules cache; :mod:`bleu_compat.libraries.hf_bleu.cache`), not a distribution:
its version is the module's release, named from its files' SHA-256.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_NMT = "nmt/scripts/bleu.py compute_bleu (tensorflow/nmt afd0dfc; the module's nmt_bleu.py)"
_TOK = "metrics/bleu/tokenizer_13a.py Tokenizer13a (huggingface/evaluate 3caef63)"
_BLEU = "metrics/bleu/bleu.py Bleu._compute (huggingface/evaluate 3a62fc3)"

LIBRARY = Library(
    name="hf-bleu",
    display_name="HF evaluate bleu",
    distribution="evaluate-metric-bleu",
    version_source="bleu_compat.libraries.hf_bleu.cache:version",
    import_modules=(),
    adapter="bleu_compat.libraries.hf_bleu.adapter",
    model="bleu_compat.libraries.hf_bleu.model",
    entries="bleu_compat.libraries.hf_bleu.entries",
    native=NativeValue(keys=("bleu",), scale="0-1", label="bleu",
                       describe="HF evaluate's `bleu` (evaluate.load('bleu').compute(...)['bleu'])"),
    smoothing={"none": "none", "add-one": "method2"},
    value_doc="",
    no_effective_order="HF evaluate's bleu (nmt compute_bleu) has no effective order",
    configurations=(
        BuiltinConfiguration("hf-bleu", "13a", options=("tok", "smooth", "order")),
    ),
    factors={
        "tokenizer": Factor("its copy of 13a (tokenizer_13a.Tokenizer13a), on the string as given: "
                            "no rstrip, so a trailing '-\\n' is removed (sacreBLEU keeps the '-'); "
                            "on lines read from a file, sacreBLEU's 13a tokens",
                            f"{_TOK}; {_BLEU}"),
        "case": Factor("as given (no lowercasing)", _BLEU),
        "smoothing": Factor("none (smooth=False); smooth=True adds one to the match and total of "
                            "every order, the unigrams included (Lin & Och 2004)",
                            f"{_NMT}; HF-BLEU-ADD-ONE-ON-UNIGRAMS-SMOOTHING"),
        "effective order": Factor("none: an order without n-grams has precision 0, so the score is 0",
                                  _NMT),
        "max order": Factor("max_order=4, weights 1/N", _NMT),
        "reference length": Factor("the shortest reference of each segment",
                                   f"{_NMT}: min(len(r) for r in references); "
                                   "HF-BLEU-SHORTEST-REFERENCE"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one of the "
                           "segment's references (Counter |= and &)", _NMT),
        "count type": Factor("Python int (exact)", _NMT),
        "aggregation": Factor("corpus: matches, totals and lengths summed, one BLEU", _NMT),
        "arithmetic": Factor("exp(sum((1/N) * log(m_n / l_n))) * bp with bp = exp(1 - 1 / (c / r)); "
                             "c = 0 or r = 0 raises ZeroDivisionError",
                             f"HF-BLEU-FLOAT-ORDER; HF-BLEU-BP-RATIO; HF-BLEU-ZERO-LENGTH-RAISES; {_NMT}"),
    },
    decomposition=DecompositionSpec(
        float_entry="HF-BLEU-FLOAT-ORDER-SMOOTHING",
        corpus_ids={"HF-BLEU-FLOAT-ORDER-SMOOTHING": "HF-BLEU-FLOAT-ORDER",
                    "HF-BLEU-BP-RATIO-SMOOTHING": "HF-BLEU-BP-RATIO"},
        switches=("HF-BLEU-BP-RATIO-SMOOTHING", "HF-BLEU-ADD-ONE-ON-UNIGRAMS-SMOOTHING"),
        statistics=(("shortest reference", "shortest-reference"),),
    ),
    colour="#f2b01e",
    install="run evaluate.load('bleu') once online (pip install evaluate): bleu-compat runs the "
            "module it leaves in the Hugging Face modules cache ($HF_MODULES_CACHE, $HF_HOME)",
)
