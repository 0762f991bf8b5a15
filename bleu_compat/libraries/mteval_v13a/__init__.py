"""NIST's mteval-v13a.pl (as mosesdecoder ships it), run from the user's own copy.

Its "installed version" is the release of the file given with
``mteval-v13a:path=FILE`` or found as ``$BLEU_COMPAT_MOSES_SCRIPTS/mteval-v13a.pl``,
identified by SHA-256 (``entries.RELEASES``). It needs Perl's XML::Twig (Debian:
libxml-twig-perl). Data only: imports nothing but plugin.py.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_SRC = "mosesdecoder scripts/generic/mteval-v13a.pl"

LIBRARY = Library(
    name="mteval-v13a",
    display_name="mteval-v13a.pl",
    distribution="mteval-v13a.pl",
    import_modules=(),
    adapter="bleu_compat.libraries.mteval_v13a.adapter",
    model="bleu_compat.libraries.mteval_v13a.model",
    entries="bleu_compat.libraries.mteval_v13a.entries",
    native=NativeValue(keys=("bleu_printed",), scale="0-1", label="BLEU score",
                       describe="the 'BLEU score' mteval prints (4 decimals, 0-1)"),
    smoothing={"exp": "method3"},
    no_effective_order="mteval has no effective order",
    configurations=(BuiltinConfiguration("mteval-v13a", "13a", lowercase=True, smoothing="exp"),),
    factors={
        "tokenizer": Factor("its own (the one sacreBLEU's 13a copies), then Perl's Unicode \\s "
                            "(not U+001C-U+001F, no rstrip), on SGML it reads decoded",
                            f"{_SRC}: tokenization (2018-06-23)"),
        "case": Factor("lowercased A-Z only (tr/[A-Z]/[a-z]/) unless -c",
                       f"{_SRC}: tokenization, $preserve_case"),
        "smoothing": Factor("1/(2^k total) for the k-th order without a match (= method3); "
                            "--no-smoothing not modelled", f"{_SRC}: bleu_score"),
        "effective order": Factor("none; an order with no n-gram adds log 1",
                                  f"{_SRC}: bleu_score ($tst_ngrams->[$j] == 0)"),
        "max order": Factor("counts 9 orders, BLEU is order 4's cumulative score",
                            f"{_SRC}: $max_Ngram = 9; return $SCOREmt->{{4}}"),
        "reference length": Factor("closest to the hypothesis length, ties to the shorter",
                                   f"{_SRC}: brevity_penalty_closest"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one reference",
                           f"{_SRC}: score_segment %ref_ngrams_max"),
        "count type": Factor("Perl integers (exact)", f"{_SRC}: score_segment"),
        "aggregation": Factor("corpus: segment counts summed over documents, one BLEU",
                              f"{_SRC}: score_system"),
        "arithmetic": Factor("exp(sum of logs / 4) * exp(min(0, 1 - r/c)), the card's order; "
                             "printed %.4f (ties to even)",
                             "MTEVAL-V13A-PRINTS-4-DECIMALS; " + f"{_SRC}: bleu_score"),
    },
    decomposition=DecompositionSpec(
        corpus_ids={"MTEVAL-V13A-PRINTS-4-DECIMALS-SMOOTHING": "MTEVAL-V13A-PRINTS-4-DECIMALS",
                    "MTEVAL-V13A-NO-MATCH-SMOOTHED-SMOOTHING": "MTEVAL-V13A-NO-MATCH-SMOOTHED",
                    "MTEVAL-V13A-EMPTY-ORDER-LOG-1-SMOOTHING": "MTEVAL-V13A-EMPTY-ORDER-LOG-1"},
        switches=("MTEVAL-V13A-PRINTS-4-DECIMALS-SMOOTHING", "MTEVAL-V13A-NO-MATCH-SMOOTHED-SMOOTHING",
                  "MTEVAL-V13A-EMPTY-ORDER-LOG-1-SMOOTHING"),
        dominant=("MTEVAL-V13A-NO-MATCH-SMOOTHED-SMOOTHING", "MTEVAL-V13A-EMPTY-ORDER-LOG-1-SMOOTHING"),
    ),
    modes=("as_called", "mapped"),
    colour="#9b59b6",
    install=("give the script: mteval-v13a:path=FILE, or set BLEU_COMPAT_MOSES_SCRIPTS to the "
             "directory holding mteval-v13a.pl; it needs XML::Twig (Debian: libxml-twig-perl)"),
    version_source="bleu_compat.libraries.mteval_v13a.adapter:installed_version",
    version_each_call=True,
    config_keys={"path": "the mteval-v13a.pl file to run"},
)
