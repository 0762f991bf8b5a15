"""Commands ``tools``, ``run``, ``bigram`` and ``score``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bleu_compat.bigram import BigramInputError, run_bigram_protocol
from bleu_compat.bleu import BleuResult, corpus_bleu
from bleu_compat.corpus_io import CorpusReadError, check_same_length, read_lines
from bleu_compat.errors import ToolError
from bleu_compat.jsonio import dumps_js
from bleu_compat.rounding import to_fixed_str
from bleu_compat.tools import MAX_REQUEST_BYTES, TOOL_IDS, cards, execute

__all__ = ["register", "summary_line", "result_json"]


def register(subparsers: Any) -> None:
    """Add the ``tools``, ``run``, ``bigram`` and ``score`` commands."""
    p = subparsers.add_parser(
        "tools", help="list the tools (id, version, description)",
        description="List the tools of the cards: id, version, description, execute_url.",
    )
    p.add_argument("--json", action="store_true", help="write the list as JSON")
    p.set_defaults(func=cmd_tools)

    p = subparsers.add_parser(
        "run", help="run a tool on a JSON request",
        description=(
            "Run TOOL on one JSON request read from FILE (or standard input) and write "
            "the result JSON on standard output (exit 0). A refused request writes "
            '{"error": {"code", "message", "path"}} on standard output and exits 2. '
            f"Requests larger than {MAX_REQUEST_BYTES} bytes are refused unread "
            "(limit_exceeded)."
        ),
    )
    p.add_argument("tool", metavar="TOOL", help="one of: " + ", ".join(TOOL_IDS))
    p.add_argument("file", metavar="FILE", nargs="?", help="request JSON (default: standard input)")
    p.set_defaults(func=cmd_run)

    p = subparsers.add_parser(
        "bigram", help="BLEU up to bigrams, text protocol on standard input",
        description=(
            "Read the candidate (line 1), the number of references R (line 2) and R "
            "reference lines from standard input; print BLEU with max_order 2 rounded to "
            "4 places (e.g. 0.7071). Bad input: a message on standard error, exit 2."
        ),
    )
    p.set_defaults(func=cmd_bigram)

    p = subparsers.add_parser(
        "score", help="corpus BLEU of a hypothesis file against reference files",
        description=(
            "Corpus BLEU of HYP against one or more REF files: one segment per line, "
            "tokens separated by whitespace (Python str.split: Unicode whitespace, NBSP "
            "included; U+200B is not whitespace). Files must be UTF-8; an empty line is "
            "an empty segment; a missing final newline changes nothing; CR before LF is "
            "dropped; a leading BOM is kept in the first token and reported as a warning; "
            "files with different line counts are an error (exit 2)."
        ),
    )
    p.add_argument("hyp", metavar="HYP", help="hypothesis file")
    p.add_argument("refs", metavar="REF", nargs="+", help="reference file(s)")
    p.add_argument("--max-order", type=int, default=4, metavar="N", help="largest n-gram order (default 4)")
    p.add_argument("--json", action="store_true", help="write the full result object as JSON")
    p.set_defaults(func=cmd_score)


def cmd_tools(args: argparse.Namespace) -> int:
    rows = [
        {"id": c.id, "version": c.version, "description": c.description, "execute_url": c.execute_url}
        for c in cards().values()
    ]
    if args.json:
        print(dumps_js(rows, indent=2))
        return 0
    for row in rows:
        print(f"{row['id']}\t{row['version']}\t{row['description']}")
    return 0


def _error(exc: ToolError) -> int:
    print(dumps_js(exc.to_dict()))
    return 2


def cmd_run(args: argparse.Namespace) -> int:
    if args.tool not in TOOL_IDS:
        print(
            f"bleu-compat run: unknown tool {args.tool!r}; known tools: {', '.join(TOOL_IDS)}",
            file=sys.stderr,
        )
        return 2
    try:
        if args.file is None or args.file == "-":
            data = sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1)
        else:
            with open(args.file, "rb") as handle:
                data = handle.read(MAX_REQUEST_BYTES + 1)
    except OSError as exc:
        print(f"bleu-compat run: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if len(data) > MAX_REQUEST_BYTES:
        return _error(ToolError(
            "limit_exceeded",
            f"request is larger than {MAX_REQUEST_BYTES} bytes, more than any valid request",
        ))
    try:
        result = execute(args.tool, data)
    except ToolError as exc:
        return _error(exc)
    print(dumps_js(result))
    return 0


def cmd_bigram(args: argparse.Namespace) -> int:
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        print(f"bleu-compat bigram: input is not UTF-8 (byte offset {exc.start})", file=sys.stderr)
        return 2
    try:
        print(run_bigram_protocol(text))
    except BigramInputError as exc:
        print(f"bleu-compat bigram: {exc}", file=sys.stderr)
        return 2
    return 0


def summary_line(result: BleuResult) -> str:
    """The familiar one-line summary (multi-bleu.perl's form), BLEU on the 0–100 scale.

    ``BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)``;
    numbers are rounded like JavaScript ``toFixed``.
    """
    s = result.stats
    precisions = "/".join(to_fixed_str(100 * p, 1) for p in result.precisions)
    ratio = to_fixed_str(s.hyp_len / s.ref_len, 3) if s.ref_len else "inf"
    return (
        f"BLEU = {to_fixed_str(100 * result.bleu, 2)}, {precisions} "
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


def cmd_score(args: argparse.Namespace) -> int:
    if args.max_order < 1:
        print(f"bleu-compat score: --max-order={args.max_order} must be >= 1", file=sys.stderr)
        return 2
    try:
        hyp = read_lines(args.hyp)
        refs = [read_lines(path) for path in args.refs]
        check_same_length(hyp, refs)
    except CorpusReadError as exc:
        print(f"bleu-compat score: {exc}", file=sys.stderr)
        return 2
    for f in [hyp, *refs]:
        for warning in f.warnings:
            print(f"bleu-compat score: warning: {warning}", file=sys.stderr)
    hypotheses = [line.split() for line in hyp.lines]
    references = [[ref.lines[i].split() for ref in refs] for i in range(len(hyp.lines))]
    result = corpus_bleu(hypotheses, references, max_order=args.max_order)
    print(dumps_js(result_json(result), indent=2) if args.json else summary_line(result))
    return 0
