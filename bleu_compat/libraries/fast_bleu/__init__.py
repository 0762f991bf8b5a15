"""fast-bleu: its adapter (calling the real library), its dialect model and its catalog entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without loading fast-bleu's C++.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_N = "fast_bleu/cpp_sources/sources/nltk.cpp"

LIBRARY = Library(
    name="fast-bleu",
    display_name="fast-bleu",
    distribution="fast-bleu",
    import_modules=("fast_bleu",),
    adapter="bleu_compat.libraries.fast_bleu.adapter",
    model="bleu_compat.libraries.fast_bleu.model",
    entries="bleu_compat.libraries.fast_bleu.entries",
    native=NativeValue(keys=("score",), scale="0-1", label="mean score",
                       describe="fast-bleu's mean of `BLEU(pool).get_score(hyps)` scores"),
    smoothing={"method0": "none", "method1": "method1"},
    no_effective_order="fast-bleu has no effective order",
    configurations=(
        BuiltinConfiguration("fast-bleu", "split", smoothing="method1", aggregation="pooled-mean",
                             call="BLEU(pooled references).get_score", options=("smooth", "order")),
    ),
    factors={
        "tokenizer": Factor("none: it takes token lists (users split with str.split()); n-grams "
                            "are the tokens joined by one space",
                            f"fast_bleu/__python_wrapper__.py BLEU; {_N} get_ngrams (0.0.90)"),
        "case": Factor("as given", f"{_N} (0.0.90)"),
        "smoothing": Factor("smoothing_func=1: NLTK's method1, a zero match is 1 / (10 t) exactly; "
                            "0: log(LDBL_MIN)", f"{_N} smooth_0, smooth_1 (0.0.90)"),
        "effective order": Factor("none (auto_reweight=False)", f"{_N} corpus_bleu (0.0.90)"),
        "max order": Factor("weights {4: (1/4,) * 4} as float32 (1/3 is 0.33333334); at least 2",
                            f"fast_bleu/__python_wrapper__.py BLEU.__init__; bleu.h vector<float> "
                            "(0.0.90); FAST-BLEU-MAX-ORDER-1"),
        "reference length": Factor("the closest of ALL reference lengths; ties to the shorter",
                                   f"{_N} closest_ref_length (0.0.90); FAST-BLEU-POOLED-MEAN"),
        "clipping": Factor("by the largest count in any reference of the pooled set",
                           "fast_bleu/cpp_sources/sources/bleu.cpp get_max_counts (0.0.90)"),
        "count type": Factor("C++ int; each order's total floored at 1",
                             f"{_N} modified_precision: max(1, denominator) (0.0.90)"),
        "aggregation": Factor("one score per hypothesis against the pooled references; the "
                              "number users report is their mean",
                              "fast_bleu/cpp_sources/sources/bleu.cpp BLEU_CPP::get_score (0.0.90); "
                              "FAST-BLEU-POOLED-MEAN"),
        "arithmetic": Factor("bp * exp(s), s += (double)w_f32 * logl(m / t) in x87 long double",
                             f"FAST-BLEU-LONG-DOUBLE; {_N} corpus_bleu (0.0.90)"),
    },
    decomposition=DecompositionSpec(
        float_entry="FAST-BLEU-LONG-DOUBLE",
        statistics=(("NLTK-DENOMINATOR-FLOOR", "denominator-floor"),),
    ),
    colour="#845b53",
    install="pip install 'bleu-compat[fast-bleu]' (fast-bleu 0.0.90; builds with g++)",
)
