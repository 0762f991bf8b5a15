"""``score``'s command line: its parser, its options, and how a usage error is reported.

:func:`build` adds the ``score`` parser to the top-level sub-parsers (the
package's ``register`` attaches the command); :func:`fail` reports an error
found after parsing in one line on standard error and returns exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bleu_compat.corpus_io import READING_RULES
from bleu_compat.tokenizers import TOKENIZERS

__all__ = ["FORMATS", "PROG", "build", "fail", "config_syntax"]

PROG = "bleu-compat score"


def fail(message: str) -> int:
    """Print ``bleu-compat score: MESSAGE`` on standard error; return 2 (a usage or input error)."""
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


#: --compare's help until it is shown (the configurations come from the registry, which
#: a scoring run without --help need not load): :meth:`_ScoreParser.format_help` fills it in
_COMPARE_HELP = "run the real implementations as their users run them (see bleu-compat score --help)"


def config_syntax() -> str:
    """The short form of :data:`bleu_compat.decompose.CONFIG_SYNTAX` for --compare's help (the
    built-in names from the registry; reading them imports no library)."""
    from bleu_compat.decompose import BUILTIN
    from bleu_compat.libraries.registry import SYNTAX_EXAMPLES

    example = next((e for e in SYNTAX_EXAMPLES if e.partition(":")[0] in BUILTIN), None)
    return (f"CONFIG is a built-in name ({', '.join(BUILTIN)}) or BASE:key=value,... with keys "
            "tok=none|13a|intl|zh|char|split, lc=yes|no, smooth=<the library's method name>, "
            "value=<float>, eff=yes|no, order=N" + (f"; e.g. '{example}'" if example else ""))


def _compare_help() -> str:
    from bleu_compat.decompose import BUILTIN, DEFAULT_COMPARE

    defaults = "; ".join(f"{name} = {BUILTIN[name].signature()}" for name in DEFAULT_COMPARE
                         if name != "card")
    return (
        "run the real implementations as their users run them, in each configuration named "
        f"(default: {' '.join(DEFAULT_COMPARE)}; {defaults}; card = bleu-compat with this "
        "command's tokenization), and decompose the gap between every pair into named causes "
        "(tokenization, case, smoothing, effective order, and one per change an implementation "
        "makes: its statistics changes, its catalog entries, its floating-point order) "
        "evaluated with the dialect models, each step's score printed, exact Shapley values, "
        "and the input lines behind each cause; then each library compared, and those always "
        "compared, on the card's tokens (tokenize='none', no smoothing) with the catalog "
        "entries explaining every difference. A number no model reproduces is UNEXPECTED "
        "(exit 1). " + config_syntax()
    )


FORMATS = ("line", "table", "json", "markdown", "csv", "text")


class _ScoreParser(argparse.ArgumentParser):
    """score's parser: an unknown option is reported with score's usage, not the top level's.

    argparse hands the arguments a sub-parser does not know back to the
    top-level parser, which then prints ``usage: bleu-compat [-h] ...``; here
    they are an error of ``score`` itself.
    """

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras

    def format_help(self) -> str:
        for action in self._actions:
            if action.help == _COMPARE_HELP:
                action.help = _compare_help()
        return super().format_help()


class _WidthAction(argparse.Action):
    """``-w/--width/--decimals D``: remembers which spelling was typed, for the error message."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, "decimals_flag", option_string or "--width")


def build(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``score`` parser to ``subparsers`` (the top level's); return it."""
    p = subparsers.add_parser(
        "score",
        help="corpus BLEU of one or more systems (optionally beside other BLEU implementations)",
        description=(
            "Corpus BLEU (Papineni et al. 2002, the bleu-corpus-compute card's formula) of "
            "one or more systems. Either `score HYP REF [REF ...]` (one system) or, "
            "sacreBLEU's convention, `score REF [REF ...] -i SYS [SYS ...]` (several "
            "systems; put -i after the references). Every reference file is one more "
            "reference per segment (multi-reference BLEU). Reading rules: " + READING_RULES
        ),
        epilog=(
            "Exit status: 0 success; 1 --compare found a difference that no catalog entry "
            "explains (printed as UNEXPECTED); 2 a usage or input error."
        ),
    )
    p.__class__ = _ScoreParser  # add_parser builds a plain ArgumentParser
    p.add_argument(
        # "*", not "+": `score -t wmt17` without files gets the test-set message
        "files", metavar="FILE", nargs="*",
        help="HYP REF [REF ...], or with -i only the REF files",
    )
    p.add_argument(
        "-i", "--input", metavar="SYS", nargs="+", dest="systems",
        help="system output file(s); then every FILE is a reference",
    )
    p.add_argument(
        "-tok", "--tokenize", choices=TOKENIZERS, default=None,
        help=(
            "13a (default in the `REF ... -i SYS ...` form, as sacreBLEU), intl, zh, char: "
            "tokenize raw text first, exactly as sacreBLEU's tokenizers of that name do "
            "(bleu-compat's own implementation; sacreBLEU is not needed). "
            "none (default in the `HYP REF` form, multi-bleu.perl's pre-tokenized text): tokens "
            "are whitespace-separated (Python str.split: Unicode whitespace, NBSP included; "
            "U+200B and U+FEFF are not whitespace). A convenience of the command line, "
            "outside the tools' contract: the cards take tokens."
        ),
    )
    p.add_argument("-lc", "--lowercase", action="store_true",
                   help="lowercase hypotheses and references before tokenizing (sacreBLEU's -lc)")
    p.add_argument(
        "-s", "--smooth-method", choices=("none", "floor", "add-k", "exp"), default="none",
        help="smoothing of the card's score, in sacreBLEU's names: none (default: the "
        "card's unsmoothed corpus BLEU), floor (= method1, epsilon --smooth-value, default "
        "0.1), add-k (= method2, k = 1 only), exp (= method3); --compare's sacrebleu "
        "configuration uses sacreBLEU's own default exp",
    )
    p.add_argument("--smooth-value", type=float, default=None, metavar="V",
                   help="floor's epsilon (default 0.1); add-k's k (only 1 has a card equivalent)")
    p.add_argument("-t", "--test-set", metavar="NAME", default=None,
                   help="not supported: bleu-compat downloads nothing; the message says which files to pass")
    p.add_argument("-b", "--score-only", action="store_true",
                   help="print only BLEU (0-100 scale) per system, one per line, as sacreBLEU "
                   "(the signature goes to standard error)")
    p.add_argument("--max-order", type=int, default=4, metavar="N", help="largest n-gram order (default 4)")
    p.add_argument(
        "-f", "--format", choices=FORMATS, default=None,
        help=(
            "line: multi-bleu.perl's one-line summary (default for one system); table: "
            "aligned text (default for several); text: sacreBLEU's name, the line for one "
            "system and the table for several; json: full doubles; markdown; csv: full doubles"
        ),
    )
    p.add_argument(
        "--json", action="store_true",
        help="with one system and no --format: the card's output object (0-1 scale; the "
        "signature goes to standard error); otherwise the same as --format json",
    )
    p.add_argument(
        "-w", "--width", "--decimals", dest="decimals", type=int, default=2, metavar="D",
        action=_WidthAction,
        help="decimals of BLEU (0-100 scale) in line/table/markdown output (default 2; "
        "rounded like JavaScript toFixed)",
    )
    p.add_argument(
        "--compare", nargs="*", metavar="CONFIG", default=None,
        help=_COMPARE_HELP,
    )
    p.add_argument("--config", action="append", metavar="CONFIG", default=None,
                   help="one more configuration for --compare (implies --compare); syntax as --compare's")
    p.add_argument(
        "--html", metavar="FILE",
        help="with --compare: also write the comparison as one self-contained HTML page "
        "(charts drawn offline; needs matplotlib: pip install 'bleu-compat[html]')",
    )
    p.add_argument(
        "--segments", metavar="FILE.jsonl",
        help=(
            "write one JSON object per segment and system (JSON Lines): system, segment "
            "(0-based), line (1-based), matches, totals, hyp_len, ref_len (closest), bleu "
            "(0-1: the bleu-smoothing-compute card on the segment's statistics with this "
            "run's -s smoothing, named in smoothing), BLEU (0-100, the same), hyp_tokens and "
            "ref_tokens (as tokenized), and with --compare causes: per pair, the causes of "
            "the decomposition the segment is behind"
        ),
    )
    # issue 16: sharded corpora on Dask (bleu_compat.cli.score.cluster)
    p.add_argument(
        "--cluster", metavar="ADDRESS", default=None,
        help="HYP and REF are globs of aligned shards, one Dask task per shard, statistics "
        "summed: local[:N] (a LocalCluster of N worker processes) or a scheduler address "
        "(tcp://HOST:8786); needs pip install 'bleu-compat[dask]'",
    )
    return p
