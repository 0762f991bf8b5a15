"""Moses' multi-bleu-detok.perl, run from the user's own copy: declaration of the plug-in.

multi-bleu.perl's counting on detokenized text: every line goes through mteval-v13a's
tokenizer (without its lowercasing) before the n-grams are counted. Its "installed
version" is the release of the file given with ``multi-bleu-detok.perl:path=FILE``
(``score --compare``) or found as ``$BLEU_COMPAT_MOSES_SCRIPTS/multi-bleu-detok.perl``,
identified by its SHA-256 against both public versions (``entries.RELEASES``). Data
only: imports nothing but plugin.py.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_SRC = "mosesdecoder scripts/generic/multi-bleu-detok.perl"

LIBRARY = Library(
    name="multi-bleu-detok",
    display_name="multi-bleu-detok.perl",
    distribution="multi-bleu-detok.perl",
    import_modules=(),
    adapter="bleu_compat.libraries.multi_bleu_detok.adapter",
    model="bleu_compat.libraries.multi_bleu_detok.model",
    entries="bleu_compat.libraries.multi_bleu_detok.entries",
    native=NativeValue(keys=("bleu_printed",), scale="0-100", label="BLEU",
                       describe="the BLEU multi-bleu-detok.perl prints (2 decimals)"),
    smoothing={"none": "none"},
    no_effective_order="multi-bleu-detok.perl has no effective order",
    configurations=(BuiltinConfiguration("multi-bleu-detok.perl", "13a"),),
    factors={
        "tokenizer": Factor("mteval-v13a's tokenizer (13a) without its lowercasing, then split "
                            "on Perl's Unicode \\s (2019-02-27, text decoded) or ASCII whitespace "
                            "(2017-10-20, bytes)", f"{_SRC}: tokenization (2019-02-27)"),
        "case": Factor("as given; -lc lowercases every character with Perl's lc (2019-02-27) "
                       "or A-Z only (2017-10-20)", f"{_SRC}: lc if $lowercase"),
        "smoothing": Factor("none: my_log(0) = -9999999999, so a zero precision gives 0",
                            f"{_SRC}: my_log"),
        "effective order": Factor("none (always 4 orders)", f"{_SRC}: for n = 1..4"),
        "max order": Factor("4, weights 1/4 (fixed)", f"{_SRC}: for(my $n=1;$n<=4;$n++)"),
        "reference length": Factor("closest to the hypothesis length, ties to the shorter; 9999 "
                                   "for a hypothesis line without a reference line",
                                   f"{_SRC}: $closest_length"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one reference",
                           f"{_SRC}: %REF_NGRAM max over references"),
        "count type": Factor("Perl integers (exact)", f"{_SRC}: $CORRECT[$n], $TOTAL[$n]"),
        "aggregation": Factor("corpus: the segments' counts summed, one BLEU",
                              f"{_SRC}: $CORRECT, $TOTAL, $length_* sums"),
        "arithmetic": Factor("BP * exp((log p1 + log p2 + log p3 + log p4) / 4), the card's "
                             "order; printed with printf %.2f (ties to even); every release "
                             "chops the last character (2019-02-27) or byte (2017-10-20) of a "
                             "file without a final newline",
                             "MULTI-BLEU-DETOK-PRINTS-2-DECIMALS; " + f"{_SRC}: chop (2019-02-27)"),
    },
    decomposition=DecompositionSpec(
        corpus_ids={"MULTI-BLEU-DETOK-PRINTS-2-DECIMALS-SMOOTHING":
                    "MULTI-BLEU-DETOK-PRINTS-2-DECIMALS"},
        switches=("MULTI-BLEU-DETOK-PRINTS-2-DECIMALS-SMOOTHING",),
    ),
    modes=("as_called", "mapped"),
    colour="#3a9f8a",
    install=("give the script: multi-bleu-detok.perl:path=FILE, or set BLEU_COMPAT_MOSES_SCRIPTS "
             "to the directory holding it (mosesdecoder's scripts/generic)"),
    version_source="bleu_compat.libraries.multi_bleu_detok.adapter:installed_version",
    version_each_call=True,
    config_keys={"path": "the multi-bleu-detok.perl file to run"},
)
