"""NLTK: its adapter (calling the real library), its dialect model and its catalog entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without importing NLTK.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_BLEU_PY = "nltk/translate/bleu_score.py"

LIBRARY = Library(
    name="nltk",
    display_name="NLTK",
    distribution="nltk",
    import_modules=("nltk.translate.bleu_score",),
    adapter="bleu_compat.libraries.nltk.adapter",
    model="bleu_compat.libraries.nltk.model",
    entries="bleu_compat.libraries.nltk.entries",
    native=NativeValue(keys=("corpus_bleu", "score"), scale="0-1", label="bleu",
                       describe="NLTK's `corpus_bleu`"),
    smoothing={"none": "none", "method0": "none", "method1": "method1", "method2": "method2",
               "method3": "method3"},
    # SmoothingFunction's methods outside the cards (Chen & Cherry 2014 §2.4-2.7 as NLTK
    # computes them on corpus statistics): the dialect model computes them (model.own_smoothing)
    own_smoothing={
        "method4": "1/(2^i * k / ln(c)) over the total for the i-th order without a match "
                   "(k = 5); c is the corpus' hypothesis length",
        "method5": "each precision the mean of its neighbours' (the (N+1)-th: the last "
                   "segment's 5-gram precision)",
        "method6": "orders >= 3 interpolated with the prior p_(n-1)^2 / p_(n-2) (alpha = 5), "
                   "the n-gram count taken from the last segment",
        "method7": "method4, then method5",
    },
    value_methods=("method1", "method4", "method6", "method7"),
    value_doc="NLTK method1's epsilon, method4/method7's k, method6's alpha",
    tokenizers=("treebank", "word_tokenize"),
    no_effective_order="NLTK's corpus_bleu has no effective order",
    configurations=(
        BuiltinConfiguration("nltk", "split"),
        BuiltinConfiguration("nltk-method1", "split", smoothing="method1"),
        BuiltinConfiguration("nltk-method2", "split", smoothing="method2"),
        BuiltinConfiguration("nltk-method3", "split", smoothing="method3"),
    ),
    factors={
        "tokenizer": Factor("none: corpus_bleu takes token lists (users split with str.split())",
                            f"{_BLEU_PY} corpus_bleu(list_of_references, hypotheses) (3.10)"),
        "case": Factor("as given (no lowercasing)", f"{_BLEU_PY} corpus_bleu (3.10)"),
        "smoothing": Factor("none (method0: an order without a match gets the precision "
                            "sys.float_info.min, and a warning); method1's epsilon 0.1; "
                            "method4-method7 (k = 5, alpha = 5) outside the cards",
                            f"{_BLEU_PY} SmoothingFunction.__init__(epsilon=0.1, alpha=5, k=5), "
                            "method0-method7 (3.10); NLTK-ZERO-MATCH-TINY"),
        "effective order": Factor("none (the weights are fixed)",
                                  f"{_BLEU_PY} corpus_bleu(weights=...) (3.10)"),
        "max order": Factor("4, weights (0.25, 0.25, 0.25, 0.25)",
                            f"{_BLEU_PY} corpus_bleu(weights=(0.25, 0.25, 0.25, 0.25)) (3.10)"),
        "reference length": Factor("closest to the hypothesis length; ties to the shorter",
                                   f"{_BLEU_PY} closest_ref_length (3.10)"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one of the "
                           "segment's references", f"{_BLEU_PY} modified_precision (3.10)"),
        "count type": Factor("Python int; each segment's n-gram total floored at 1",
                             f"{_BLEU_PY} modified_precision: max(1, denominator) (3.10); "
                             "NLTK-DENOMINATOR-FLOOR"),
        "aggregation": Factor("corpus: numerators and denominators summed, one BLEU",
                              f"{_BLEU_PY} corpus_bleu (3.10)"),
        "arithmetic": Factor("bp * exp(fsum(w_n * log(m_n / l_n))) over the orders with p_n > 0",
                             f"NLTK-FLOAT-ORDER; {_BLEU_PY} corpus_bleu (3.10)"),
    },
    decomposition=DecompositionSpec(
        float_entry="NLTK-FLOAT-ORDER-SMOOTHING",
        corpus_ids={"NLTK-FLOAT-ORDER-SMOOTHING": "NLTK-FLOAT-ORDER",
                    "NLTK-ZERO-MATCH-TINY-SMOOTHING": "NLTK-ZERO-MATCH-TINY"},
        switches=("NLTK-ZERO-MATCH-TINY-SMOOTHING", "NLTK-METHOD1-ZERO-EPSILON",
                  "NLTK-NO-MATCH-SKIPS-SMOOTHING"),
        dominant=("NLTK-ZERO-MATCH-TINY-SMOOTHING", "NLTK-METHOD1-ZERO-EPSILON"),
        statistics=(("NLTK-DENOMINATOR-FLOOR", "denominator-floor"),),
    ),
    colour="#e08a2c",
    matrix_releases=("3.4.5", "3.5", "3.6.7", "3.7", "3.8.1", "3.9.4", "3.10.4"),
    reference_release="3.10.4",
    install="pip install nltk",
    in_default_compare=True,
)
