"""Command ``identify``: which configurations produce a given BLEU number (issues 23 and 33).

``bleu-compat identify SCORE REF... -i SYS...`` lists every configuration (implementation,
releases, tokenizer, case, smoothing, effective order, max order, and with several
references the subset of them) whose number on the files is SCORE, most common first, each
with its own number, its signature and the ``--compare`` spec that runs it; "none" is an
answer (exit 0), with the nearest numbers. How SCORE was read (rounded at its decimals, or
a double matched exactly: ``--exact``) is the first line. Bad input (not a number, outside
[0, 100], a file that cannot be read): one line, exit 2. The search is
:func:`bleu_compat.identify.search`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bleu_compat.cli.usage import report_usage_errors

__all__ = ["register", "cmd_identify", "match_json", "refusal_line", "unscored_lines"]

#: rows the text output shows before "... and N more" (``--all`` shows every row)
SHOWN = 25


def register(subparsers: Any) -> None:
    """Add the ``identify`` command."""
    p = subparsers.add_parser(
        "identify", help="which configurations produce a given BLEU number",
        description=(
            "Which configurations produce SCORE on these files? Every registered implementation "
            "(its dialect model: installed or not) x its releases where they differ x tokenizer "
            "x case x smoothing x effective order x max order 1-4, against the references and "
            "each non-empty subset of them, is computed from statistics counted once per "
            "tokenizer and case; each configuration whose own number (on the scale it prints, "
            "as score --compare prints it) is SCORE is listed, most common first. SCORE with d "
            "decimals matches what rounds to it at d decimals (half to even on the binary "
            "value, as Python and printf print); a SCORE that is a whole double (15 or more "
            "significant digits, its shortest repr) matches that double exactly; --exact reads "
            "any SCORE so. A SCORE of at most 1 is read on the 0-1 scale, above 1 as BLEU "
            "points (0-100), unless --scale says."),
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
    reading = p.add_mutually_exclusive_group()
    reading.add_argument("--exact", dest="exact", action="store_const", const=True, default=None,
                         help="SCORE is a double: match it exactly (0.0 is zero, not 'one decimal')")
    reading.add_argument("--rounded", dest="exact", action="store_const", const=False,
                         help="SCORE is rounded at its decimals, however many it has")
    p.add_argument("--no-subsets", action="store_true",
                   help="with several references, search all of them only (not each subset)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument("--all", action="store_true", help=f"list every match (text shows {SHOWN})")
    p.set_defaults(func=cmd_identify)
    report_usage_errors(p)


from bleu_compat.identify import MAX_DECIMALS  # noqa: E402  (the most decimals a SCORE is read with)


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
    from bleu_compat.identify import Searcher, parse_score

    try:
        reading = parse_score(args.score, args.scale, exact=args.exact)
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
        raise SystemExit(128 + signum)  # a clean exit status, as the shell reports a signal

    try:
        signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread (an API caller): its own handling stands
        pass
    searcher = Searcher()
    results = []
    for system in args.input:
        try:
            results.append(searcher.search(system, args.refs, subsets=not args.no_subsets,
                                           language=language).matching(reading))
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


def match_json(m: Any, all_refs: tuple[str, ...]) -> dict[str, Any]:
    """One match as JSON (``identify --format json``, ``audit``)."""
    return {
        "implementation": m.implementation, "releases": list(m.releases),
        "spec": m.config.name, "signature": m.signature(), "native": m.native,
        "native_scale": m.native_scale, "bleu": m.bleu, "points": m.points,
        "references": list(m.references), "all_references": m.references == all_refs,
        "settings_changed_from_default": m.differences,
    }


def refusal_line(f: Any, all_refs: tuple[str, ...]) -> str:
    """``hf-bleu (HF evaluate bleu 2022.7.5, 12 configurations, e.g. hf-bleu): raises ...``"""
    from bleu_compat.identify import _span

    where = "" if f.references == all_refs else f" against {', '.join(f.references)} only"
    releases = f" {_span(f.releases)}" if f.releases else ""
    return (f"{f.implementation}{releases} ({f.configurations} configuration"
            f"{'s' if f.configurations != 1 else ''}, e.g. {f.example}){where}: {f.what}")


def unscored_lines(r: Any) -> list[str]:
    """One line per implementation and what its library does, for the configurations whose
    arithmetic would give the score but whose library does not score these files."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for m, what in r.unscored:
        groups.setdefault((m.implementation, what), []).append(m)
    out = []
    for (impl, what), ms in groups.items():
        n = len(ms)
        numbers = sorted({_value(m, r.scale) for m in ms})
        shown = ", ".join(numbers[:3]) + (", ..." if len(numbers) > 3 else "")
        out.append(f"not an answer: {n} configuration{'s' if n != 1 else ''} of {impl} (e.g. "
                   f"{ms[0].config.name}, {ms[0].release_label}) would give {shown} by the "
                   f"arithmetic, but on these files the library does not score: {what}")
    return out


def _as_json(r: Any) -> dict[str, Any]:
    return {
        "score": r.score, "read": {"exact": r.reading.exact, "value": r.reading.value,
                                   "decimals": r.decimals, "how": r.reading.how},
        "decimals": r.decimals, "scale": r.scale, "scale_note": r.scale_note,
        "system": r.system, "references": list(r.references), "searched": r.searched,
        "tokenizations": r.tokenizations, "not_searched": list(r.not_searched),
        "matches": [match_json(m, r.references) for m in r.matches],
        "closest": [match_json(m, r.references) for m in r.closest],
        "refused": [{"implementation": f.implementation, "releases": list(f.releases),
                     "does": f.what, "configurations": f.configurations,
                     "references": list(f.references), "example": f.example}
                    for f in r.refused],
        "unscored": [dict(match_json(m, r.references), does=what) for m, what in r.unscored],
    }


def _value(m: Any, scale: str) -> str:
    from bleu_compat.jsonio import js_number_str

    return js_number_str(m.on(scale))


def _as_text(r: Any, show_all: bool) -> str:
    lines = [f"identify {r.score} ({r.scale_note}; {r.reading.how}) on {r.system} against "
             f"{', '.join(r.references)}",
             f"searched {r.searched} configurations on {r.tokenizations} tokenizations "
             "(implementations x releases x tokenizer x case x smoothing x effective order x "
             "max order 1-4" + (" x reference subsets" if len(r.references) > 1 else "") +
             "; dialect models on statistics counted once per tokenizer and case)"]
    if not r.matches:
        lines.append(f"none: no configuration searched gives {r.score}")
        if r.closest:
            lines.append("closest:")
            lines += _rows(r, r.closest)
    else:
        lines.append(f"{len(r.matches)} configuration{'s' if len(r.matches) != 1 else ''} give "
                     f"{r.score} (most common first: fewest settings changed from the "
                     "implementation's defaults; each its own number):")
        rows = r.matches if show_all else r.matches[:SHOWN]
        lines += _rows(r, rows)
        if len(rows) < len(r.matches):
            lines.append(f"  ... and {len(r.matches) - len(rows)} more (--all lists them)")
    lines += unscored_lines(r)
    if r.refused:
        n = sum(f.configurations for f in r.refused)
        impls = sorted({f.implementation for f in r.refused})
        lines.append(f"{n} configuration{'s' if n != 1 else ''} of {', '.join(impls)} not scored "
                     "on these files (the library raises or refuses; --format json lists them)")
    for note in r.not_searched:
        lines.append(f"not searched: {note}")
    return "\n".join(lines)


def _rows(r: Any, rows: Any) -> list[str]:
    width = max(len(m.config.name) for m in rows)
    numbers = [_value(m, r.scale) for m in rows]
    nwidth = max(map(len, numbers))
    out = []
    for m, number in zip(rows, numbers):
        refs = "" if m.references == r.references else f"  [references: {', '.join(m.references)}]"
        out.append(f"  {number:<{nwidth}}  {m.config.name:<{width}}  {m.implementation} "
                   f"{m.release_label}  {m.signature()}{refs}")
    return out
