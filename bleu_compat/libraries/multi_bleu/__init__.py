"""Moses' multi-bleu.perl, run from the user's own copy: declaration of the plug-in.

The script is not a Python package: its "installed version" is the release of the file
given with ``multi-bleu.perl:path=FILE`` (``score --compare``) or found as
``$BLEU_COMPAT_MOSES_SCRIPTS/multi-bleu.perl``, identified by its SHA-256 against every
public version (``entries.RELEASES``). Data only: imports nothing but plugin.py.
"""

from bleu_compat.libraries.plugin import (
    BuiltinConfiguration, DecompositionSpec, Factor, Library, NativeValue,
)

_SRC = "mosesdecoder scripts/generic/multi-bleu.perl"

LIBRARY = Library(
    name="multi-bleu",
    display_name="multi-bleu.perl",
    distribution="multi-bleu.perl",
    import_modules=(),
    adapter="bleu_compat.libraries.multi_bleu.adapter",
    model="bleu_compat.libraries.multi_bleu.model",
    entries="bleu_compat.libraries.multi_bleu.entries",
    native=NativeValue(keys=("bleu_printed",), scale="0-100", label="BLEU",
                       describe="the BLEU multi-bleu.perl prints (2 decimals)"),
    smoothing={"none": "none"},
    no_effective_order="multi-bleu.perl has no effective order",
    configurations=(BuiltinConfiguration("multi-bleu.perl", "none"),),
    factors={
        "tokenizer": Factor("none: each line split on ASCII whitespace (Perl's split on "
                            "undecoded bytes; U+00A0 and other Unicode spaces stay in tokens); "
                            "its usual pipeline (Post 2018's basic) first runs Moses "
                            "tokenizer.perl -l LANG on both files, -a for split: "
                            "tok=moses-LANG, moses-a-LANG",
                            f"{_SRC}: split (2018-09-16); mosesdecoder "
                            "scripts/tokenizer/tokenizer.perl (75d4c672, 2021-03-13)"),
        "case": Factor("as given; -lc lowercases A-Z only (lc on bytes)",
                       f"{_SRC}: lc if $lowercase (2011-12-16 on)"),
        "smoothing": Factor("none: my_log(0) = -9999999999, so a zero precision gives 0",
                            f"{_SRC}: my_log (every release)"),
        "effective order": Factor("none (always 4 orders)", f"{_SRC}: for n = 1..4"),
        "max order": Factor("4, weights 1/4 (fixed)", f"{_SRC}: for(my $n=1;$n<=4;$n++)"),
        "reference length": Factor("closest to the hypothesis length, ties to the shorter (to "
                                   "the first before 2006-12-15); 9999 for a hypothesis line "
                                   "without a reference line",
                                   f"{_SRC}: $closest_length (2006-12-15 on)"),
        "clipping": Factor("each n-gram's count clipped by its largest count in one reference",
                           f"{_SRC}: %REF_NGRAM max over references"),
        "count type": Factor("Perl integers (exact)", f"{_SRC}: $CORRECT[$n], $TOTAL[$n]"),
        "aggregation": Factor("corpus: the segments' counts summed, one BLEU",
                              f"{_SRC}: $CORRECT, $TOTAL, $length_* sums"),
        "arithmetic": Factor("BP * exp((log p1 + log p2 + log p3 + log p4) / 4), the card's "
                             "order; printed with printf %.2f (ties to even); releases before "
                             "2018-07-03 chop the last character of a file without a final "
                             "newline", "MULTI-BLEU-PRINTS-2-DECIMALS; " + f"{_SRC} (2018-09-16)"),
    },
    decomposition=DecompositionSpec(
        corpus_ids={"MULTI-BLEU-PRINTS-2-DECIMALS-SMOOTHING": "MULTI-BLEU-PRINTS-2-DECIMALS"},
        switches=("MULTI-BLEU-PRINTS-2-DECIMALS-SMOOTHING",),
    ),
    modes=("as_called", "mapped"),
    colour="#6a9f3a",
    install=("give the script: multi-bleu.perl:path=FILE, or set BLEU_COMPAT_MOSES_SCRIPTS to "
             "the directory holding it (mosesdecoder's scripts/generic)"),
    version_source="bleu_compat.libraries.multi_bleu.adapter:installed_version",
    version_each_call=True,
    config_keys={"path": "the multi-bleu.perl file to run"},
)
