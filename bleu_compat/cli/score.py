"""Command ``score``: corpus BLEU of one or more systems, optionally beside sacreBLEU and NLTK.

Two calling conventions:

* ``bleu-compat score HYP REF [REF ...]`` — one system (the original form);
  by default prints multi-bleu.perl's one-line summary;
* ``bleu-compat score REF [REF ...] -i SYS [SYS ...]`` — sacreBLEU's
  convention, several systems at once; by default prints a table.

``--compare`` adds, per system, sacreBLEU's and NLTK's values on the same
tokens (as users call them) and the catalog entries that explain every
difference (:mod:`bleu_compat.parity`); an unexplained difference exits 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from bleu_compat.bleu import BleuResult, bleu_from_stats
from bleu_compat.corpus_io import (
    READING_RULES,
    CorpusReadError,
    check_line_counts,
    read_lines,
    scan_file,
)
from bleu_compat.errors import BleuCompatError
from bleu_compat.jsonio import dumps_js
from bleu_compat.rounding import js_number_str, to_fixed_str
from bleu_compat.stream import corpus_stats_files
from bleu_compat.tokenizers import TOKENIZERS, get_tokenizer, tokenize_lines

__all__ = ["register", "summary_line", "result_json", "cmd_score"]

FORMATS = ("line", "table", "json", "markdown", "csv")
_PROG = "bleu-compat score"
_LIB_NAMES = {"sacrebleu": "sacreBLEU", "nltk": "NLTK"}


def register(subparsers: Any) -> None:
    """Add the ``score`` command."""
    p = subparsers.add_parser(
        "score",
        help="corpus BLEU of one or more systems (optionally beside sacreBLEU and NLTK)",
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
    p.add_argument(
        "files", metavar="FILE", nargs="+",
        help="HYP REF [REF ...], or with -i only the REF files",
    )
    p.add_argument(
        "-i", "--input", metavar="SYS", nargs="+", dest="systems",
        help="system output file(s); then every FILE is a reference",
    )
    p.add_argument(
        "--tokenize", choices=TOKENIZERS, default="none",
        help=(
            "none (default): tokens are whitespace-separated (Python str.split: Unicode "
            "whitespace, NBSP included; U+200B and U+FEFF are not whitespace). 13a, intl, "
            "zh, char: tokenize raw text with sacreBLEU's own tokenizers first (needs "
            "sacreBLEU). A convenience of the command line, outside the tools' contract: "
            "the cards take tokens."
        ),
    )
    p.add_argument("--max-order", type=int, default=4, metavar="N", help="largest n-gram order (default 4)")
    p.add_argument(
        "--format", choices=FORMATS, default=None,
        help=(
            "line: multi-bleu.perl's one-line summary (default for one system); table: "
            "aligned text (default for several); json: full doubles; markdown; csv: full doubles"
        ),
    )
    p.add_argument(
        "--json", action="store_true",
        help="with one system and no --format: the card's output object (0-1 scale); "
        "otherwise the same as --format json",
    )
    p.add_argument(
        "--decimals", type=int, default=2, metavar="D",
        help="decimals of BLEU (0-100 scale) in line/table/markdown output (default 2; "
        "rounded like JavaScript toFixed)",
    )
    p.add_argument(
        "--compare", action="store_true",
        help=(
            "for each system, sacreBLEU's and NLTK's BLEU on the same tokens, as users call "
            "them (sacrebleu.corpus_bleu with tokenize='none'; nltk corpus_bleu), the "
            "difference in points and in ULPs (0-1 scale), and the divergence-catalog "
            "entries that explain each difference; an unexplained one is UNEXPECTED (exit 1)"
        ),
    )
    p.add_argument(
        "--html", metavar="FILE",
        help="with --compare: also write the comparison as one self-contained HTML page "
        "(charts drawn offline; needs matplotlib: pip install 'bleu-compat[html]')",
    )
    p.add_argument(
        "--segments", metavar="FILE.jsonl",
        help=(
            "write per-segment sufficient statistics, one JSON object per line: system, "
            "segment (0-based), line (1-based), matches, totals, hyp_len, ref_len (closest)"
        ),
    )
    # issue 16: sharded corpora on Dask (bleu_compat.cli.score_cluster)
    p.add_argument(
        "--cluster", metavar="ADDRESS", default=None,
        help="HYP and REF are globs of aligned shards, one Dask task per shard, statistics "
        "summed: local[:N] (a LocalCluster of N worker processes) or a scheduler address "
        "(tcp://HOST:8786); needs pip install 'bleu-compat[dask]'",
    )
    p.set_defaults(func=cmd_score)


# ---------------------------------------------------------------- formatting


def summary_line(result: BleuResult) -> str:
    """The familiar one-line summary (multi-bleu.perl's form), BLEU on the 0–100 scale.

    ``BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)``;
    numbers are rounded like JavaScript ``toFixed``.
    """
    return _summary_line(result, 2)


def _summary_line(result: BleuResult, decimals: int) -> str:
    s = result.stats
    precisions = "/".join(to_fixed_str(100 * p, 1) for p in result.precisions)
    ratio = to_fixed_str(s.hyp_len / s.ref_len, 3) if s.ref_len else ("inf" if s.hyp_len else "n/a")
    return (
        f"BLEU = {to_fixed_str(100 * result.bleu, decimals)}, {precisions} "
        f"(BP={to_fixed_str(result.brevity_penalty, 3)}, ratio={ratio}, "
        f"hyp_len={s.hyp_len}, ref_len={s.ref_len})"
    )


def result_json(result: BleuResult) -> dict[str, Any]:
    """The result in bleu-corpus-compute's output shape (full doubles)."""
    return {
        "bleu": result.bleu,
        "brevity_penalty": result.brevity_penalty,
        "candidate_length": result.stats.hyp_len,
        "reference_length": result.stats.ref_len,
        "max_order": result.max_order,
        "matches": list(result.stats.matches),
        "totals": list(result.stats.totals),
    }


def _ratio(result: BleuResult) -> float | None:
    s = result.stats
    return s.hyp_len / s.ref_len if s.ref_len else None


def _system_json(name: str, result: BleuResult) -> dict[str, Any]:
    row: dict[str, Any] = {"system": name, "score": 100 * result.bleu}
    row.update(result_json(result))
    row["precisions"] = [100 * p for p in result.precisions]
    row["ratio"] = _ratio(result)
    return row


def _header(max_order: int) -> list[str]:
    return ["System", "BLEU", *[f"P{n}" for n in range(1, max_order + 1)],
            "BP", "ratio", "hyp_len", "ref_len"]


def _rounded_row(name: str, result: BleuResult, decimals: int) -> list[str]:
    ratio = _ratio(result)
    return [
        name,
        to_fixed_str(100 * result.bleu, decimals),
        *[to_fixed_str(100 * p, 1) for p in result.precisions],
        to_fixed_str(result.brevity_penalty, 3),
        to_fixed_str(ratio, 3) if ratio is not None else "inf",
        str(result.stats.hyp_len),
        str(result.stats.ref_len),
    ]


def _aligned(rows: list[list[str]]) -> str:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _markdown(rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(rows[0]) + " |", "|---" + "|---:" * (len(rows[0]) - 1) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows[1:]]
    return "\n".join(out)


def _fmt_pair(a: Any, b: Any) -> tuple[str, str]:
    """Two values of one field: floats to 6 decimals unless that hides the difference."""
    if isinstance(a, float) and isinstance(b, float):
        sa, sb = to_fixed_str(a, 6), to_fixed_str(b, 6)
        return (sa, sb) if sa != sb else (js_number_str(a), js_number_str(b))
    return _fmt_plain(a), _fmt_plain(b)


def _fmt_plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt_plain(v) for v in value) + "]"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return js_number_str(value)
    return str(value)


def _fmt_points(d: float) -> str:
    if d == 0:
        return "+0"
    return f"{d:+.6f}" if abs(d) >= 1e-6 else f"{d:+.1e}"


def _difference_lines(lib: Any, card_score: float) -> list[str]:
    name = _LIB_NAMES.get(lib.library, lib.library)
    lines = []
    for d in lib.differences:
        if d.field == "bleu" and lib.score is not None:  # both on the 0-100 scale
            lib_s, card_s = _fmt_pair(lib.score, card_score)
            where = f"{lib_s} vs {card_s}"
        else:
            lib_s, card_s = _fmt_pair(d.library_value, d.card_value)
            where = f"{d.field} {lib_s} vs {card_s}"
        ulps = f", {d.ulps} ULP{'s' if d.ulps != 1 else ''}" if d.ulps is not None else ""
        if d.unexpected:
            why = f"; {d.catalog_error}" if d.catalog_error else ""
            lines.append(
                f"UNEXPECTED {name}: {where}{ulps}: no catalog entry explains it{why}"
            )
            continue
        for e in d.explanations:
            lines.append(f"{name}: {e.facts or e.title} ({e.id}): {where}{ulps}")
    return lines


def _compare_text(comparisons: Sequence[Any], versions: dict[str, str], markdown: bool) -> str:
    libs = ", ".join(f"{_LIB_NAMES[k]} {v}" for k, v in versions.items())
    out = [
        "",
        ("## " if markdown else "")
        + f"Parity on the same tokens, libraries as users call them ({libs}); "
        "card = bleu-compat; points on the 0-100 scale, ULPs on the card's 0-1 scale",
    ]
    for c in comparisons:
        out.append("")
        out.append(f"### {c.system}" if markdown else c.system)
        rows = [["", "BLEU", "diff (points)", "ULPs", "verdict"],
                ["bleu-compat (card)", js_number_str(c.card_score), "", "", ""]]
        notes: list[str] = []
        for lib in c.libraries:
            label = f"{_LIB_NAMES.get(lib.library, lib.library)} {lib.version}"
            if lib.score is None:
                rows.append([label, "-", "", "", "UNEXPECTED" if lib.unexpected else "explained"])
            else:
                bleu_diff = next((d for d in lib.differences if d.field == "bleu"), None)
                ulps = bleu_diff.ulps if bleu_diff is not None else 0
                verdict = (
                    "identical" if not lib.differences
                    else "UNEXPECTED" if lib.unexpected else "explained"
                )
                rows.append([
                    label, js_number_str(lib.score), _fmt_points(lib.score - c.card_score),
                    str(ulps) if ulps is not None else "-", verdict,
                ])
                if bleu_diff is None and lib.score != c.card_score:
                    notes.append(
                        f"{_LIB_NAMES.get(lib.library, lib.library)}: the same double as the "
                        "card on the 0-1 scale; the 0-100 values differ only by the rounding "
                        "of the card's x 100 against the library's own percentage"
                    )
            notes += _difference_lines(lib, c.card_score)
        if markdown:
            out.append(_markdown(rows))
            out += [f"- {n}" for n in notes]
        else:
            out.append("\n".join("  " + line for line in _aligned(rows).splitlines()))
            out += [f"    {n}" for n in notes]
    return "\n".join(out)


def _compare_json(c: Any) -> dict[str, Any]:
    return {
        "card": c.card,
        "unexpected": c.unexpected,
        "libraries": [
            {
                "library": lib.library,
                "version": lib.version,
                "mode": "as_called",
                "score": lib.score,
                "output": lib.output,
                "error": lib.error,
                "not_representable": lib.not_representable,
                "differences": [
                    {
                        "field": d.field,
                        "card_value": d.card_value,
                        "library_value": d.library_value,
                        "ulps": d.ulps,
                        "unexpected": d.unexpected,
                        "explanations": [
                            {"id": e.id, "title": e.title, "facts": e.facts}
                            for e in d.explanations
                        ],
                    }
                    for d in lib.differences
                ],
            }
            for lib in c.libraries
        ],
    }


# ---------------------------------------------------------------- the command


def _fail(message: str) -> int:
    print(f"{_PROG}: {message}", file=sys.stderr)
    return 2


def cmd_score(args: argparse.Namespace) -> int:
    """Run ``score``; return the exit status (0, 1 on UNEXPECTED with --compare, 2 on bad input)."""
    if getattr(args, "cluster", None) is not None:  # issue 16
        from bleu_compat.cli.score_cluster import cmd_score_cluster

        return cmd_score_cluster(args)
    # Files are read twice (checked, then streamed): a pipe or a process
    # substitution (/dev/stdin, <(...)) is first copied to a file of our own,
    # in a directory made only then.
    spool: list[str] = []
    try:
        return _score(args, spool)
    finally:
        if spool:
            import shutil

            shutil.rmtree(spool[0], ignore_errors=True)


def _readable_twice(path: str, spool: list[str], index: int) -> str:
    """``path`` itself if it is a regular file (or cannot be opened), else a copy of its bytes."""
    import os
    import stat

    try:
        if stat.S_ISREG(os.stat(path).st_mode):
            return path
        import shutil
        import tempfile

        if not spool:
            spool.append(tempfile.mkdtemp(prefix="bleu-compat-"))
        copy = os.path.join(spool[0], f"{index}.txt")
        with open(path, "rb") as source, open(copy, "wb") as target:
            shutil.copyfileobj(source, target)
    except OSError:
        return path  # scan_file reports it, naming the file
    return copy


def _score(args: argparse.Namespace, spool: list[str]) -> int:
    if args.max_order < 1:
        return _fail(f"--max-order={args.max_order} must be >= 1")
    if not 0 <= args.decimals <= 15:
        return _fail(f"--decimals={args.decimals} must be between 0 and 15")
    legacy = args.systems is None
    if legacy:
        if len(args.files) < 2:
            return _fail("give HYP and at least one REF, or REF ... -i SYS ...")
        system_paths, ref_paths = args.files[:1], args.files[1:]
    else:
        system_paths, ref_paths = args.systems, args.files
    fmt = args.format or ("json" if args.json else "line" if len(system_paths) == 1 else "table")
    # what to read for each file as given (the name users see stays the one given)
    sources = {
        (kind, k): _readable_twice(path, spool, n)
        for n, (kind, k, path) in enumerate(
            [("ref", k, p) for k, p in enumerate(ref_paths)]
            + [("sys", k, p) for k, p in enumerate(system_paths)]
        )
    }
    ref_sources = [sources["ref", k] for k in range(len(ref_paths))]
    sys_sources = [sources["sys", k] for k in range(len(system_paths))]
    try:
        refs = [scan_file(src, name=path) for src, path in zip(ref_sources, ref_paths)]
        systems = [scan_file(src, name=path) for src, path in zip(sys_sources, system_paths)]
        check_line_counts(refs)
        for s in systems:
            check_line_counts([s, refs[0]])
    except CorpusReadError as exc:
        return _fail(str(exc))
    seen: set[str] = set()
    for f in [*refs, *systems]:
        for warning in f.warnings:
            if warning not in seen:
                seen.add(warning)
                print(f"{_PROG}: warning: {warning}", file=sys.stderr)
    try:
        get_tokenizer(args.tokenize)
    except (BleuCompatError, ImportError) as exc:
        return _fail(str(exc))
    n_segments = refs[0].n_lines
    results = []
    try:
        segments_file = (
            open(args.segments, "w", encoding="utf-8", newline="\n") if args.segments else None
        )
    except OSError as exc:
        return _fail(f"cannot write {args.segments}: {exc.strerror or exc}")
    try:
        for s, source in zip(systems, sys_sources):
            write = (
                _segment_writer(segments_file, s.path, args.max_order)
                if segments_file is not None else None
            )
            total = corpus_stats_files(
                source, ref_sources, tokenize=args.tokenize,
                max_order=args.max_order, on_segments=write,
            )
            results.append(bleu_from_stats(total))
    except CorpusReadError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot write {args.segments}: {exc.strerror or exc}")
    finally:
        if segments_file is not None:
            try:
                segments_file.close()
            except OSError:
                pass

    if getattr(args, "html", None) and not args.compare:
        return _fail("--html writes the --compare report: give --compare too")
    comparisons: list[Any] = []
    versions: dict[str, str] = {}
    if args.compare:
        from bleu_compat.libraries import library_version
        from bleu_compat.parity import compare_system

        try:
            # the libraries take every token at once: read the files whole
            ref_tokens = [tokenize_lines(read_lines(src).lines, args.tokenize) for src in ref_sources]
            references = [list(seg) for seg in zip(*ref_tokens)]
            versions = {lib: library_version(lib) for lib in ("sacrebleu", "nltk")}
            comparisons = [
                compare_system(
                    s.path, tokenize_lines(read_lines(src).lines, args.tokenize), references,
                    max_order=args.max_order,
                )
                for s, src in zip(systems, sys_sources)
            ]
        except CorpusReadError as exc:
            return _fail(str(exc))
        except (BleuCompatError, ImportError) as exc:
            return _fail(f"--compare: {exc}")

    names = [s.path for s in systems]
    if fmt == "json" and legacy and args.json and not args.format and not args.compare:
        print(dumps_js(result_json(results[0]), indent=2))  # the original `score --json`
    elif fmt == "json":
        doc: dict[str, Any] = {
            "tokenize": args.tokenize,
            "max_order": args.max_order,
            "references": [r.path for r in refs],
            "segments": n_segments,
            "systems": [_system_json(n, r) for n, r in zip(names, results)],
            "warnings": sorted(seen),
        }
        if args.compare:
            doc["versions"] = versions
            for row, c in zip(doc["systems"], comparisons):
                row["compare"] = _compare_json(c)
        print(dumps_js(doc, indent=2))
    elif fmt == "csv":
        print(_csv(names, results, comparisons, args.max_order), end="")
    else:
        if fmt == "line":
            for n, r in zip(names, results):
                line = _summary_line(r, args.decimals)
                print(line if len(names) == 1 else f"{n}: {line}")
        else:
            rows = [_header(args.max_order)] + [
                _rounded_row(n, r, args.decimals) for n, r in zip(names, results)
            ]
            print(_markdown(rows) if fmt == "markdown" else _aligned(rows))
        if args.compare:
            print(_compare_text(comparisons, versions, fmt == "markdown"))
    if getattr(args, "html", None):
        status = _write_compare_html(args.html, names, comparisons, versions)
        if status:
            return status
    return 1 if any(c.unexpected for c in comparisons) else 0


def _write_compare_html(path: str, names: list[str], comparisons: list[Any],
                        versions: dict[str, str]) -> int:
    """Write ``score --compare --html FILE``; 0, or 2 (message on stderr) when it cannot."""
    from bleu_compat.harness.html import HtmlUnavailable, compare_to_html

    doc = {"versions": versions,
           "systems": [{"name": n, "compare": _compare_json(c)} for n, c in zip(names, comparisons)]}
    try:
        text = compare_to_html(doc)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except HtmlUnavailable as exc:
        return _fail(f"--html: {exc}")
    except OSError as exc:
        return _fail(f"cannot write {path}: {exc.strerror or exc}")
    return 0


def _csv(names: list[str], results: list[BleuResult], comparisons: list[Any], max_order: int) -> str:
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    header = ["system", "bleu", *[f"p{n}" for n in range(1, max_order + 1)],
              "bp", "ratio", "hyp_len", "ref_len"]
    if comparisons:
        for lib in comparisons[0].libraries:
            header += [lib.library, f"{lib.library}_ulps", f"{lib.library}_unexpected"]
    writer.writerow(header)
    for k, (n, r) in enumerate(zip(names, results)):
        ratio = _ratio(r)
        row = [n, js_number_str(100 * r.bleu), *[js_number_str(100 * p) for p in r.precisions],
               js_number_str(r.brevity_penalty), js_number_str(ratio) if ratio is not None else "",
               r.stats.hyp_len, r.stats.ref_len]
        if comparisons:
            for lib in comparisons[k].libraries:
                d = next((d for d in lib.differences if d.field == "bleu"), None)
                row += [
                    js_number_str(lib.score) if lib.score is not None else "",
                    (d.ulps if d is not None and d.ulps is not None else 0),
                    str(lib.unexpected).lower(),
                ]
        writer.writerow(row)
    return buf.getvalue()


def _segment_writer(handle: Any, system: str, max_order: int) -> Any:
    """A callback for corpus_stats_files writing each segment's statistics as one JSON line.

    Each line is what ``dumps_js`` writes for ``{"system", "segment", "line",
    "matches", "totals", "hyp_len", "ref_len"}`` (all values ints below 2**53
    but the system's name), formatted from one template per block.
    """
    import json

    ints = ",".join(["%d"] * max_order)
    template = (
        '{"system":' + json.dumps(system, ensure_ascii=False).replace("%", "%%")
        + ',"segment":%d,"line":%d,"matches":[' + ints + '],"totals":[' + ints
        + '],"hyp_len":%d,"ref_len":%d}\n'
    )

    def write(first: int, rows: list[list[int]]) -> None:
        handle.write("".join([
            template % (index, index + 1, *row) for index, row in enumerate(rows, first)
        ]))

    return write
