"""NIST's mteval-v14.pl (as mosesdecoder ships it), run from the user's own copy.

Its "installed version" is the release of the file given with ``mteval-v14:path=FILE``
or found as ``$BLEU_COMPAT_MOSES_SCRIPTS/mteval-v14.pl``, identified by SHA-256
(``entries.RELEASES``). It needs Perl's XML::Twig and Sort::Naturally (Debian:
libxml-twig-perl, libsort-naturally-perl). Data only: imports nothing but plugin.py.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_SRC = "mosesdecoder scripts/generic/mteval-v14.pl"

LIBRARY = Library(
    name="mteval-v14",
    display_name="mteval-v14.pl",
    distribution="mteval-v14.pl",
    import_modules=(),
    adapter="bleu_compat.libraries.mteval_v14.adapter",
    model="bleu_compat.libraries.mteval_v14.model",
    entries="bleu_compat.libraries.mteval_v14.entries",
    native=NativeValue(keys=("bleu_printed",), scale="0-1", label="BLEU score",
                       describe="the 'BLEU score' mteval-v14 prints (4 decimals, 0-1)"),
    smoothing={"exp": "method3"},
    no_effective_order="mteval has no effective order",
    configurations=(BuiltinConfiguration("mteval-v14", "13a", lowercase=True, smoothing="exp"),),
    factors={
        "tokenizer": Factor("its default: v13a's (the one sacreBLEU's 13a copies), then Perl's "
                            "Unicode \\s; --international-tokenization (tok=intl): \\p{P} split "
                            "unless between numbers, \\p{S} split, &apos; unescaped too "
                            "(sacreBLEU's intl copies it)",
                            f"{_SRC}: tokenization, tokenization_international (2017-04-27)"),
        "case": Factor("lowercased unless -c: A-Z only (tr) by default, every character (Perl's "
                       "lc) with --international-tokenization",
                       f"{_SRC}: tokenization, tokenization_international"),
        "smoothing": Factor("1/(2^k total) for the k-th order without a match (= method3)",
                            f"{_SRC}: bleu_score"),
        "effective order": Factor("none; an order with no n-gram adds log 1",
                                  f"{_SRC}: bleu_score ($tst_ngrams->[$j] == 0)"),
        "max order": Factor("counts 9 orders, BLEU is order 4's cumulative score",
                            f"{_SRC}: $max_Ngram = 9"),
        "reference length": Factor("closest to the hypothesis length, ties to the shorter",
                                   f"{_SRC}: brevity_penalty_closest"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one reference",
                           f"{_SRC}: score_segment"),
        "count type": Factor("Perl integers (exact)", f"{_SRC}: score_segment"),
        "aggregation": Factor("corpus: segment counts summed over documents, one BLEU",
                              f"{_SRC}: score_system"),
        "arithmetic": Factor("exp(sum of logs / 4) * exp(min(0, 1 - r/c)), the card's order; "
                             "printed %.4f (ties to even); no length line, so an empty side "
                             "scores where v13a dies",
                             "MTEVAL-V14-PRINTS-4-DECIMALS; " + f"{_SRC}: bleu_score"),
    },
    decomposition=DecompositionSpec(
        corpus_ids={"MTEVAL-V14-PRINTS-4-DECIMALS-SMOOTHING": "MTEVAL-V14-PRINTS-4-DECIMALS",
                    "MTEVAL-V14-NO-MATCH-SMOOTHED-SMOOTHING": "MTEVAL-V14-NO-MATCH-SMOOTHED",
                    "MTEVAL-V14-EMPTY-ORDER-LOG-1-SMOOTHING": "MTEVAL-V14-EMPTY-ORDER-LOG-1"},
        switches=("MTEVAL-V14-PRINTS-4-DECIMALS-SMOOTHING", "MTEVAL-V14-NO-MATCH-SMOOTHED-SMOOTHING",
                  "MTEVAL-V14-EMPTY-ORDER-LOG-1-SMOOTHING"),
        dominant=("MTEVAL-V14-NO-MATCH-SMOOTHED-SMOOTHING", "MTEVAL-V14-EMPTY-ORDER-LOG-1-SMOOTHING"),
    ),
    modes=("as_called", "mapped"),
    colour="#c0392b",
    install=("give the script: mteval-v14:path=FILE, or set BLEU_COMPAT_MOSES_SCRIPTS to the "
             "directory holding mteval-v14.pl; it needs XML::Twig and Sort::Naturally (Debian: "
             "libxml-twig-perl, libsort-naturally-perl)"),
    version_source="bleu_compat.libraries.mteval_v14.adapter:installed_version",
    version_each_call=True,
    config_keys={"path": "the mteval-v14.pl file to run"},
)
