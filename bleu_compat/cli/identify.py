"""Command ``identify``: which configurations produce a given BLEU number (issue 23 item 7).

``bleu-compat identify SCORE REF... -i SYS...`` lists every configuration (implementation,
releases, tokenizer, case, smoothing, effective order, max order) whose number on the
files rounds to SCORE at the decimals SCORE was given with, most common first, each with
its signature and the ``--compare`` spec that runs it; "none" is an answer (exit 0).
Bad input (not a number, outside [0, 100], a file that cannot be read): one line, exit 2.
The search is :func:`bleu_compat.identify.identify`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bleu_compat.cli.usage import report_usage_errors

__all__ = ["register", "cmd_identify"]

#: rows the text output shows before "... and N more" (``--all`` shows every row)
SHOWN = 25


def register(subparsers: Any) -> None:
    """Add the ``identify`` command."""
    p = subparsers.add_parser(
        "identify", help="which configurations produce a given BLEU number",
        description=(
            "Which configurations produce SCORE on these files? Every registered implementation "
            "(its dialect model: installed or not) x its releases where they differ x tokenizer "
            "x case x smoothing x effective order x max order 1-4 is computed from statistics "
            "counted once per tokenizer and case; each configuration whose number rounds to "
            "SCORE at the decimals given is listed, most common first. A SCORE of at most 1 is "
            "read on the 0-1 scale, above 1 as BLEU points (0-100), unless --scale says."),
    )
    p.add_argument("score", metavar="SCORE", type=_score_text,
                   help="the published score, as printed (e.g. 23.38)")
    p.add_argument("refs", metavar="REF", nargs="+", help="reference file(s), one segment per line")
    p.add_argument("-i", "--input", metavar="SYS", nargs="+", required=True, action="extend",
                   help="system output file(s), line-aligned with the references")
    p.add_argument("-l", "--language-pair", metavar="SRC-TRG", default=None, dest="langpair",
                   help="the language pair (as score's -l): its target language is Moses "
                   "tokenizer.perl's -l, so the Moses tokenizations (moses-TRG, moses-a-TRG) "
                   "are searched too; without it they are listed under 'not searched'")
    p.add_argument("--scale", choices=("0-1", "0-100"), default=None,
                   help="the scale SCORE is on (default: decided by its value)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument("--all", action="store_true", help=f"list every match (text shows {SHOWN})")
    p.set_defaults(func=cmd_identify)
    report_usage_errors(p)


#: the most decimals a SCORE is matched at (the rounding is JavaScript's toFixed, 0 to 100 digits)
MAX_DECIMALS = 100


def _score_text(text: str) -> str:
    """SCORE as given, refused at once (before any file is read) when it has more decimals
    than a score can be rounded to; the rest of its reading is
    :func:`bleu_compat.identify.parse_score`'s."""
    mantissa = text.strip().lower().split("e", 1)[0]
    decimals = len(mantissa.partition(".")[2])
    if decimals > MAX_DECIMALS:
        shown = text.strip() if len(text.strip()) <= 24 else text.strip()[:20] + "..."
        raise argparse.ArgumentTypeError(
            f"{shown} has {decimals} decimals: a score is matched at {MAX_DECIMALS} decimals at "
            "most (give it as it was printed, e.g. 23.38)")
    return text


def _error(message: str) -> int:
    print(f"bleu-compat identify: {message}", file=sys.stderr)
    return 2


def cmd_identify(args: argparse.Namespace) -> int:
    from bleu_compat.corpus_io import CorpusReadError
    from bleu_compat.identify import parse_score, search

    try:
        parse_score(args.score, args.scale)
    except ValueError as exc:
        return _error(str(exc))
    language = None
    if args.langpair is not None:
        from bleu_compat.identify import moses_tokenizers

        parts = args.langpair.split("-")
        if len(parts) != 2 or not all(parts):
            return _error(f"-l/--language-pair {args.langpair!r}: give SRC-TRG, e.g. en-de")
        language = parts[1]
        try:
            moses_tokenizers(language)
        except ValueError as exc:
            return _error(f"-l {args.langpair}: {exc}")
    import signal

    def terminate(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)  # so that the search's temporary copies are removed

    try:
        signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread (an API caller): its own handling stands
        pass
    results = []
    for system in args.input:
        try:
            results.append(search(system, args.refs, language=language).matching(
                args.score, args.scale))
        except ValueError as exc:
            return _error(str(exc))
        except CorpusReadError as exc:
            return _error(str(exc))
        except OSError as exc:
            return _error(f"{getattr(exc, 'filename', None) or system}: {exc.strerror or exc}")
    if args.format == "json":
        from bleu_compat.jsonio import dumps_js

        print(dumps_js({"results": [_as_json(r) for r in results]}, indent=2))
        return 0
    for k, r in enumerate(results):
        if k:
            print()
        print(_as_text(r, args.all))
    return 0


def _as_json(r: Any) -> dict[str, Any]:
    return {
        "score": r.score, "decimals": r.decimals, "scale": r.scale, "scale_note": r.scale_note,
        "system": r.system, "references": list(r.references), "searched": r.searched,
        "tokenizations": r.tokenizations, "not_searched": list(r.not_searched),
        "matches": [{
            "implementation": m.implementation, "releases": list(m.releases),
            "spec": m.config.name, "signature": m.signature(), "bleu": m.bleu, "points": m.points,
            "settings_changed_from_default": m.differences,
        } for m in r.matches],
    }


def _as_text(r: Any, show_all: bool) -> str:
    lines = [f"identify {r.score} ({r.scale_note}; {r.decimals} decimal"
             f"{'s' if r.decimals != 1 else ''}) on {r.system} against {', '.join(r.references)}",
             f"searched {r.searched} configurations on {r.tokenizations} tokenizations "
             "(implementations x releases x tokenizer x case x smoothing x effective order x "
             "max order 1-4; dialect models on statistics counted once per tokenizer and case)"]
    if not r.matches:
        lines.append(f"none: no configuration searched gives {r.score}")
    else:
        lines.append(f"{len(r.matches)} configuration{'s' if len(r.matches) != 1 else ''} give "
                     f"{r.score} (most common first: fewest settings changed from the "
                     "implementation's defaults):")
        rows = r.matches if show_all else r.matches[:SHOWN]
        width = max(len(m.config.name) for m in rows)
        for m in rows:
            value = m.points if r.scale == "0-100" else m.bleu
            lines.append(f"  {value:.6f}  {m.config.name:<{width}}  {m.implementation} "
                         f"{m.release_label}  {m.signature()}")
        if len(rows) < len(r.matches):
            lines.append(f"  ... and {len(r.matches) - len(rows)} more (--all lists them)")
    for note in r.not_searched:
        lines.append(f"not searched: {note}")
    return "\n".join(lines)
