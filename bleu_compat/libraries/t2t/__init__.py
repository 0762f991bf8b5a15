"""tensor2tensor's ``bleu_hook`` (``t2t-bleu``): adapter, dialect model and catalog entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without loading tensor2tensor.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_HOOK = "tensor2tensor/utils/bleu_hook.py"

LIBRARY = Library(
    name="t2t",
    display_name="tensor2tensor",
    distribution="tensor2tensor",
    import_modules=(),
    adapter="bleu_compat.libraries.t2t.adapter",
    model="bleu_compat.libraries.t2t.model",
    entries="bleu_compat.libraries.t2t.entries",
    modes=("as_called",),
    native=NativeValue(keys=("score",), scale="0-1", label="bleu",
                       describe="tensor2tensor's `bleu_hook.compute_bleu` (np.float32; t2t-bleu "
                                "prints 100 times it)"),
    smoothing={"exp": "method3"},
    no_effective_order="tensor2tensor's compute_bleu has no effective order (an order without "
                       "n-grams counts as precision 1)",
    configurations=(
        BuiltinConfiguration("t2t-bleu", "t2t", lowercase=True, smoothing="exp",
                             call="bleu_wrapper", options=("lc", "order")),
    ),
    tokenizers=("t2t",),
    factors={
        "tokenizer": Factor("bleu_tokenize: mteval-v14's international rules with classes built "
                            "from Python's unicodedata (punctuation P*, symbols S*, \\d for digits)",
                            f"{_HOOK} UnicodeRegex, bleu_tokenize (1.15.7)"),
        "case": Factor("lowercased (t2t-bleu's uncased BLEU; case_sensitive=False is "
                       "bleu_wrapper's default)", f"{_HOOK} bleu_wrapper (1.15.7)"),
        "smoothing": Factor("always on: the k-th order with n-grams but no match gets "
                            "1 / (2^k * l_n) (the unigrams too)",
                            f"{_HOOK} compute_bleu (1.15.7); T2T-ALWAYS-SMOOTHED"),
        "effective order": Factor("none; an order without n-grams counts as precision 1 and the "
                                  "mean still divides by N (an all-short corpus scores 100)",
                                  f"{_HOOK} compute_bleu: 'if p' (1.15.7); "
                                  "T2T-EMPTY-ORDER-PRECISION-ONE"),
        "max order": Factor("4, weights 1/N", f"{_HOOK} compute_bleu(max_order=4) (1.15.7)"),
        "reference length": Factor("one reference per hypothesis: its length",
                                   f"{_HOOK} compute_bleu, bleu_wrapper (1.15.7)"),
        "clipping": Factor("each n-gram's count clipped by its count in the one reference",
                           f"{_HOOK} compute_bleu (1.15.7)"),
        "count type": Factor("Python int (exact)", f"{_HOOK} compute_bleu (1.15.7)"),
        "aggregation": Factor("corpus: statistics summed, one BLEU", f"{_HOOK} compute_bleu (1.15.7)"),
        "arithmetic": Factor("exp(sum(log p_n) / N) * bp, bp = exp(1 - 1 / (c / r)), rounded to "
                             "np.float32", f"T2T-FLOAT32-RESULT; {_HOOK} compute_bleu (1.15.7)"),
    },
    decomposition=DecompositionSpec(
        float_entry="T2T-FLOAT32-RESULT-SMOOTHING",
        corpus_ids={"T2T-FLOAT32-RESULT-SMOOTHING": "T2T-FLOAT32-RESULT",
                    "T2T-EMPTY-ORDER-PRECISION-ONE-SMOOTHING": "T2T-EMPTY-ORDER-PRECISION-ONE"},
        switches=("T2T-EMPTY-ORDER-PRECISION-ONE-SMOOTHING", "T2T-NO-MATCH-STILL-SMOOTHED-SMOOTHING"),
        dominant=("T2T-EMPTY-ORDER-PRECISION-ONE-SMOOTHING",),
    ),
    colour="#17becf",
    install="pip install --no-deps tensor2tensor==1.15.7 six (its dependencies pull TensorFlow; "
            "its BLEU code needs none)",
)
