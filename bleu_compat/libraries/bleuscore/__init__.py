"""bleuscore (Rust, PyPI): HF evaluate's ``bleu`` family reimplemented; adapter, model, entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without importing bleuscore.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_RS = "crates/bleuscore/src/bleu.rs compute_score (0.2.0)"
_TOK = "crates/bleuscore/src/tokenizer.rs Tokenizer13a (0.2.0)"

LIBRARY = Library(
    name="bleuscore",
    display_name="bleuscore",
    distribution="bleuscore",
    import_modules=("bleuscore",),
    adapter="bleu_compat.libraries.bleuscore.adapter",
    model="bleu_compat.libraries.bleuscore.model",
    entries="bleu_compat.libraries.bleuscore.entries",
    native=NativeValue(keys=("bleu",), scale="0-1", label="bleu",
                       describe="bleuscore's `compute(...)['bleu']`"),
    smoothing={"none": "none", "add-one": "method2"},
    no_effective_order="bleuscore has no effective order",
    configurations=(
        BuiltinConfiguration("bleuscore", "bleuscore-13a", options=("smooth", "order")),
    ),
    tokenizers=("bleuscore-13a",),
    factors={
        "tokenizer": Factor("13a (evaluate's copy of it; no other): split with Rust's "
                            "split_whitespace, for which U+001C..U+001F are not whitespace",
                            f"{_TOK}; BLEUSCORE-13A-RETOKENIZES"),
        "case": Factor("as given (no lowercasing)", _RS),
        "smoothing": Factor("none (smooth=false); smooth=true adds one to the match and total of "
                            "every order, the unigrams included",
                            f"{_RS}; BLEUSCORE-ADD-ONE-ON-UNIGRAMS-SMOOTHING"),
        "effective order": Factor("none: an order without n-grams has precision 0, so the score is 0",
                                  _RS),
        "max order": Factor("max_order=4, weight 1/N", _RS),
        "reference length": Factor("the shortest reference of each segment "
                                   "(ref_len_method='shortest'; 'closest' is the card's)",
                                   f"{_RS}; BLEUSCORE-SHORTEST-REFERENCE"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one of the "
                           "segment's references", _RS),
        "count type": Factor("usize (exact)", _RS),
        "aggregation": Factor("corpus: the segments' statistics summed (rayon reduce), one BLEU", _RS),
        "arithmetic": Factor("exp((1/N) * sum(ln p_n)) * bp, bp = exp(1 - 1 / (c / r)) in IEEE "
                             "arithmetic (c = r = 0: 1.0)",
                             f"BLEUSCORE-BP-RATIO; BLEUSCORE-BP-ZERO-LENGTHS; {_RS}"),
    },
    decomposition=DecompositionSpec(
        float_entry="BLEUSCORE-FLOAT-ORDER-SMOOTHING",
        corpus_ids={"BLEUSCORE-BP-RATIO-SMOOTHING": "BLEUSCORE-BP-RATIO"},
        switches=("BLEUSCORE-BP-RATIO-SMOOTHING", "BLEUSCORE-ADD-ONE-ON-UNIGRAMS-SMOOTHING"),
        statistics=(("shortest reference", "shortest-reference"),),
    ),
    colour="#8c564b",
    install="pip install 'bleu-compat[bleuscore]' (bleuscore==0.2.0)",
)
