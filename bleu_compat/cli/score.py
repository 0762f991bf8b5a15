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
import os
import re
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
from bleu_compat.rounding import js_number_str, to_fixed_str
from bleu_compat.stream import corpus_stats_files
from bleu_compat.tokenizers import TOKENIZERS, get_tokenizer, tokenize_lines

CONFIG_SYNTAX = (
    "CONFIG is a built-in name (sacrebleu, sacrebleu-sentence-avg, nltk, nltk-method1, "
    "nltk-method2, nltk-method3, multi-bleu, card) or BASE:key=value,... with keys tok=none|13a|intl|zh|char|split, "
    "lc=yes|no, smooth=<the library's method name>, value=<float>, eff=yes|no, order=N; "
    "e.g. 'nltk:tok=13a,smooth=method1'"
)

__all__ = ["register", "summary_line", "result_json", "cmd_score"]

FORMATS = ("line", "table", "json", "markdown", "csv", "text")
_PROG = "bleu-compat score"
_LIB_NAMES = {"sacrebleu": "sacreBLEU", "nltk": "NLTK"}


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


class _WidthAction(argparse.Action):
    """``-w/--width/--decimals D``: remembers which spelling was typed, for the error message."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, "decimals_flag", option_string or "--width")


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
        help=(
            "run the real libraries as their users run them, in each configuration named "
            "(default: sacrebleu nltk card; sacrebleu = its CLI defaults 13a, exp, mixed "
            "case; nltk = corpus_bleu on str.split() tokens, no smoothing; card = "
            "bleu-compat with this command's tokenization), and decompose the gap between "
            "every pair into named causes (tokenization, case, smoothing, effective order, "
            "and one per catalog entry: NLTK-DENOMINATOR-FLOOR, NLTK-ZERO-MATCH-TINY, the "
            "libraries' floating-point orders, ...) evaluated with the dialect models, each "
            "step's score printed, exact Shapley values, and the input lines behind each "
            "cause; then sacreBLEU and NLTK on the card's tokens (tokenize='none', no "
            "smoothing) with the catalog entries explaining every difference. A number no "
            "model reproduces is UNEXPECTED (exit 1). " + CONFIG_SYNTAX
        ),
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
    row: dict[str, Any] = {"system": name, "BLEU": 100 * result.bleu}
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


def _aligned(rows: list[list[str]], left: Sequence[int] = (0,)) -> str:
    """Columns padded to one width; those in ``left`` left-justified, the others right."""
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [c.ljust(w) if k in left else c.rjust(w)
                 for k, (c, w) in enumerate(zip(row, widths))]
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


#: ULP distances above this are not arithmetic noise: shown as "-" (the
#: difference is in the statistics or the formula, a count of ULPs means nothing)
_ULP_SHOWN = 1 << 20


def _ulps_str(ulps: int | None) -> str:
    if ulps is None:
        return "-"
    return str(ulps) if ulps <= _ULP_SHOWN else "-"


def _difference_lines(lib: Any, card_score: float) -> list[str]:
    """One line per UNEXPECTED field and one per catalog entry (with every field it explains)."""
    name = _LIB_NAMES.get(lib.library, lib.library)
    lines = []
    by_entry: dict[str, list[str]] = {}
    facts: dict[str, str] = {}
    for d in lib.differences:
        if d.field == "bleu" and lib.score is not None:  # both on the 0-100 scale
            lib_s, card_s = _fmt_pair(lib.score, card_score)
            where = f"BLEU {lib_s} vs {card_s}"
        else:
            lib_s, card_s = _fmt_pair(d.library_value, d.card_value)
            where = f"{d.field} {lib_s} vs {card_s}"
        ulps = f", {d.ulps} ULP{'s' if d.ulps != 1 else ''}" if (
            d.ulps is not None and d.ulps <= _ULP_SHOWN) else ""
        if d.unexpected:
            why = f"; {d.catalog_error}" if d.catalog_error else ""
            lines.append(
                f"UNEXPECTED {name}: {where}{ulps}: no catalog entry explains it{why}"
            )
            continue
        for e in d.explanations:
            by_entry.setdefault(e.id, []).append(where + ulps)
            facts[e.id] = e.facts or e.title
    for entry_id, wheres in by_entry.items():
        lines.append(f"{name}: {facts[entry_id]} ({entry_id}): {'; '.join(wheres)}")
    return lines


def _compare_text(comparisons: Sequence[Any], versions: dict[str, str], markdown: bool) -> str:
    libs = ", ".join(f"{_LIB_NAMES[k]} {v}" for k, v in versions.items())
    out = [
        "",
        ("## " if markdown else "")
        + f"Parity on the same tokens, libraries as users call them ({libs}); "
        "card = bleu-compat; BLEU and points on the 0-100 scale, ULPs on the card's 0-1 scale "
        "(shown only when the difference is one of arithmetic)",
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
                    _ulps_str(ulps), verdict,
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


def _decomposition_json(res: Any) -> list[dict[str, Any]]:
    """Each pair's decomposition in points (0-100), the shape html.compare_to_html draws."""
    points = {run.config.name: run.points for run in res.runs}
    out = []
    for d in res.decompositions:
        out.append({
            "from": d.frm, "to": d.to,
            "start": points[d.frm], "end": points[d.to],
            "start_bleu": d.start, "end_bleu": d.end,
            "unexpected": d.unexpected,
            "causes": [
                {
                    "cause": c.cause, "change": c.change,
                    "bleu_before": c.start, "bleu_after": c.end,
                    "contribution": float(100 * c.contribution),
                    "shapley": None if c.shapley is None else float(100 * c.shapley),
                    "lines": list(c.lines), "lines_note": c.lines_note,
                    "lines_other": {k: list(v) for k, v in c.lines_other.items()},
                }
                for c in d.causes
            ],
            "inert": list(d.inert),
            "not_decomposable": d.not_decomposable,
            "shapley_note": d.shapley_note,
        })
    return out


def _configurations_json(res: Any) -> list[dict[str, Any]]:
    return [
        {"name": run.config.name, "implementation": run.config.implementation,
         "tokenize": run.config.tokenize, "lowercase": run.config.lowercase,
         "smoothing": run.config.smoothing, "smooth_value": run.config.smooth_value,
         "effective_order": run.config.effective_order, "max_order": run.config.max_order,
         "aggregation": run.config.aggregation,
         "settings": run.config.signature(), "BLEU": run.points, "bleu": run.bleu}
        for run in res.runs
    ]


def _compare_json(c: Any, res: Any = None) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if res is not None:
        extra = {"configurations": _configurations_json(res),
                 "decomposition": _decomposition_json(res),
                 "token_mismatches": [m.to_json() for m in getattr(res, "token_mismatches", ())]}
    return {
        **extra,
        "card": c.card,
        "unexpected": c.unexpected or bool(res is not None and res.unexpected),
        "libraries": [
            {
                "library": lib.library,
                "version": lib.version,
                "mode": "as_called",
                "BLEU": lib.score,
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
        from bleu_compat.cli.crosscheck import cluster_problem
        from bleu_compat.cli.score_cluster import cmd_score_cluster

        problem = cluster_problem(args.cluster)  # the same refusals as crosscheck, before any work
        if problem:
            return _fail(problem)

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


#: From this many bytes of input, score tunes glibc's allocator (below).
_TUNE_MALLOC_BYTES = 1 << 20


def _keep_freed_memory() -> None:
    """Ask glibc's malloc to keep freed memory for reuse (no-op elsewhere).

    Streaming allocates and frees the same few numpy arrays (hundreds of KiB)
    for every block; by default glibc returns such memory to the system and
    the next block faults it in again. Raising the mmap and trim thresholds
    (mallopt M_MMAP_THRESHOLD = 32 MiB, its maximum on 64-bit, and
    M_TRIM_THRESHOLD = 256 MiB) keeps it: measured on 100,000 x 1 segments,
    system time 0.146 s -> 0.028 s and CPU time -12%, peak RSS unchanged
    (45 MiB). A process-wide setting, so the command line makes it, not the
    library.
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, ImportError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 32 << 20)
    mallopt(m_trim_threshold, 256 << 20)


def _size(path: str) -> int:
    import os

    try:
        return os.stat(path).st_size
    except OSError:
        return 0


_COMPRESSED = {".gz": "gzip", ".xz": "lzma", ".bz2": "bz2"}


class _InputError(Exception):
    """A file given on the command line cannot be used (the message names it)."""


def _spool_dir(spool: list[str]) -> str:
    import tempfile

    if not spool:
        spool.append(tempfile.mkdtemp(prefix="bleu-compat-"))
    return spool[0]


def _readable_twice(path: str, spool: list[str], index: int) -> str:
    """A regular file to read (twice) for ``path`` as given.

    ``path`` itself if it is a regular uncompressed file (or cannot be opened:
    scan_file reports it, naming the file); ``-`` is standard input; a pipe or
    process substitution is copied; ``.gz``/``.xz``/``.bz2`` files are
    decompressed into a private directory (sacreBLEU reads them transparently).

    Raises:
        _InputError: a compressed file is corrupt or truncated (named in the message).
    """
    import importlib
    import os
    import stat

    suffix = os.path.splitext(path)[1].lower()
    try:
        if path == "-":
            import shutil

            copy = os.path.join(_spool_dir(spool), f"{index}.txt")
            with open(copy, "wb") as target:
                shutil.copyfileobj(sys.stdin.buffer, target)
            return copy
        if suffix in _COMPRESSED:
            import shutil

            module = importlib.import_module(_COMPRESSED[suffix])
            copy = os.path.join(_spool_dir(spool), f"{index}.txt")
            try:
                with module.open(path, "rb") as source, open(copy, "wb") as target:
                    shutil.copyfileobj(source, target)
            except FileNotFoundError:
                return path
            except (OSError, EOFError, ValueError) as exc:
                if isinstance(exc, OSError) and exc.filename == copy:
                    raise
                raise _InputError(
                    f"{path}: cannot decompress ({suffix[1:]}): the file is corrupt or "
                    f"truncated ({type(exc).__name__}: {exc})"
                ) from None
            return copy
        if stat.S_ISREG(os.stat(path).st_mode):
            return path
        import shutil

        copy = os.path.join(_spool_dir(spool), f"{index}.txt")
        with open(path, "rb") as source, open(copy, "wb") as target:
            shutil.copyfileobj(source, target)
    except OSError:
        return path  # scan_file reports it, naming the file
    return copy


def _lowered(source: str, spool: list[str], index: int) -> str:
    """A lowercased copy (``str.lower`` of each line, as sacreBLEU's ``-lc``) of a checked file."""
    import os

    copy = os.path.join(_spool_dir(spool), f"{index}.lc.txt")
    lines = read_lines(source).lines
    with open(copy, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("".join(line.lower() + "\n" for line in lines))
    return copy


_SMOOTH_CARD = {"none": "none", "floor": "method1", "add-k": "method2", "exp": "method3"}


#: The largest --max-order: the cards' schema maximum (bleu-corpus-compute max_order <= 8).
MAX_ORDER = 8


def signature(n_refs: int, *, lowercase: bool, tokenize: str, smooth: str,
              smooth_value: float | None = None) -> str:
    """sacreBLEU's signature style (SPEC.md §8), ``...|bleu-compat:VERSION`` last.

    E.g. ``nrefs:4|case:mixed|eff:no|tok:13a|smooth:none|bleu-compat:0.1.0``.
    """
    from bleu_compat import __version__

    if smooth_value is not None and smooth in ("floor", "add-k"):
        smooth = f"{smooth}[{smooth_value:g}]"
    return (f"nrefs:{n_refs}|case:{'lc' if lowercase else 'mixed'}|eff:no|tok:{tokenize}"
            f"|smooth:{smooth}|bleu-compat:{__version__}")


#: seconds a step runs before its spinner appears (quick runs stay silent)
PROGRESS_DELAY = 1.0


class _DelayedStatus:
    """A rich spinner that appears only once the run has lasted ``delay`` seconds.

    Used as ``with _DelayedStatus(console) as progress: progress("message")``;
    the message can change at any time, before or after the spinner shows. A
    timer thread starts the spinner; the lock keeps it from starting after exit.
    """

    def __init__(self, console: Any, delay: float = PROGRESS_DELAY) -> None:
        import threading

        self._console, self._delay = console, delay
        self._lock = threading.Lock()
        self._message = "scoring ..."
        self._status: Any = None
        self._done = False
        self._timer = threading.Timer(delay, self._start)
        self._timer.daemon = True

    def _start(self) -> None:
        with self._lock:
            if not self._done:
                self._status = self._console.status(self._message)
                self._status.start()

    def update(self, message: str) -> None:
        """Show ``message`` (now if the spinner is up, else when it appears)."""
        with self._lock:
            self._message = message
            if self._status is not None:
                self._status.update(message)

    def __enter__(self) -> Any:
        self._timer.start()
        return self.update

    def __exit__(self, *exc: Any) -> None:
        with self._lock:
            self._done = True
            self._timer.cancel()
            if self._status is not None:
                self._status.stop()


def _progress(console: Any = None, delay: float = PROGRESS_DELAY) -> Any:
    """Progress on stderr: a rich spinner after ``delay`` seconds, only on a terminal.

    When stderr is not a terminal (a pipe, a file, a test's capture) this is a
    no-op context, so nothing but messages and warnings ever reaches stderr;
    standard output is never touched. ``console`` (a ``rich.console.Console``)
    is for tests.
    """
    import contextlib

    if console is None:
        if not sys.stderr.isatty():
            return contextlib.nullcontext(lambda message: None)
        from rich.console import Console

        console = Console(stderr=True)
    return _DelayedStatus(console, delay)


def _score(args: argparse.Namespace, spool: list[str]) -> int:
    if args.test_set is not None:
        return _fail(
            f"-t/--test-set {args.test_set}: bleu-compat downloads nothing (there is no "
            "network access for test sets here); pass the files instead: "
            "`bleu-compat score REF [REF ...] -i SYS [SYS ...]` (e.g. a test set's reference "
            "and a system's output as plain text, as `sacrebleu -t NAME -l PAIR --echo ref` "
            "prints them on a machine that has it; the WMT17 en-de reference and "
            "uedin-nmt's output are bundled in fixtures/real/wmt17-en-de-uedin-nmt/)"
        )
    if not 1 <= args.max_order <= MAX_ORDER:
        return _fail(f"--max-order={args.max_order} must be between 1 and {MAX_ORDER} "
                     "(the cards' largest n-gram order)")
    if not args.files:
        swallowed = [c for c in (args.compare or ()) if os.path.exists(c)]
        hint = (f"; --compare [CONFIG ...] took {swallowed[0]!r} as a configuration: put --compare "
                "after the files") if swallowed else ""
        return _fail("the following arguments are required: FILE (HYP REF [REF ...], or "
                     f"REF [REF ...] -i SYS [SYS ...]){hint}")
    if not 0 <= args.decimals <= 15:
        flag = getattr(args, "decimals_flag", "--width")
        return _fail(f"{flag} {args.decimals}: must be between 0 and 15 (-w, --width and "
                     "--decimals are one option)")
    if args.smooth_method == "add-k" and args.smooth_value not in (None, 1.0):
        return _fail(f"--smooth-value={args.smooth_value:g}: add-k has a card equivalent "
                     "(method2) only with k = 1")
    if args.smooth_method == "floor" and args.smooth_value is not None \
            and not 0 <= args.smooth_value <= 1:
        return _fail(f"--smooth-value={args.smooth_value:g}: floor's epsilon must be in [0, 1]")
    legacy = args.systems is None
    if legacy:
        if len(args.files) < 2:
            return _fail("give HYP and at least one REF, or REF ... -i SYS ...")
        system_paths, ref_paths = args.files[:1], args.files[1:]
    else:
        system_paths, ref_paths = args.systems, args.files
    if [*system_paths, *ref_paths].count("-") > 1:
        return _fail("standard input (-) can be given only once")
    # SPEC.md section 8: sacreBLEU's form tokenizes raw text with 13a; multi-bleu's splits
    tokenize = args.tokenize or ("none" if legacy else "13a")
    configs: list[str] | None = None
    if args.compare is not None or args.config:
        configs = list(args.compare or ("sacrebleu", "nltk", "card")) + list(args.config or ())
        from bleu_compat.decompose import parse_config

        for spec in configs:
            try:
                parse_config(spec, card_tokenize=tokenize)
            except ValueError as exc:
                # a file name taken as a configuration: --compare [CONFIG ...] swallowed it
                hint = " (put --compare after the files)" if os.path.exists(spec) else ""
                flag = "--config" if spec in (args.config or ()) else "--compare"
                return _fail(f"{flag}: {exc}{hint}")
    compare = configs is not None
    if getattr(args, "html", None) and not compare:
        return _fail("--html writes the --compare report: give --compare too")
    # the outputs are checked before anything runs: a comparison is not run only to be lost
    outputs = [(flag, target) for flag, target in
               (("--segments", args.segments), ("--html", getattr(args, "html", None)))
               if target is not None]
    for flag, target in outputs:
        problem = _output_problem(target, [*system_paths, *ref_paths],
                                  [t for f, t in outputs if f != flag])
        if problem:
            return _fail(f"{flag}: {problem}")
    fmt = args.format or ("json" if args.json else "line" if len(system_paths) == 1 else "table")
    if fmt == "text":
        fmt = "line" if len(system_paths) == 1 else "table"
    # what to read for each file as given (the name users see stays the one given)
    try:
        sources = {
            (kind, k): _readable_twice(path, spool, n)
            for n, (kind, k, path) in enumerate(
                [("ref", k, p) for k, p in enumerate(ref_paths)]
                + [("sys", k, p) for k, p in enumerate(system_paths)]
            )
        }
    except _InputError as exc:
        return _fail(str(exc))
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
        get_tokenizer(tokenize)
    except (BleuCompatError, ImportError) as exc:
        return _fail(str(exc))
    raw_ref_sources, raw_sys_sources = list(ref_sources), list(sys_sources)
    if args.lowercase:
        try:
            ref_sources = [_lowered(src, spool, k) for k, src in enumerate(ref_sources)]
            sys_sources = [_lowered(src, spool, len(ref_sources) + k)
                           for k, src in enumerate(sys_sources)]
        except (CorpusReadError, OSError) as exc:
            return _fail(str(exc))
    sig = signature(len(refs), lowercase=args.lowercase, tokenize=tokenize,
                    smooth=args.smooth_method, smooth_value=args.smooth_value)
    n_segments = refs[0].n_lines
    if sum(_size(src) for src in [*ref_sources, *sys_sources]) >= _TUNE_MALLOC_BYTES:
        _keep_freed_memory()
    results = []
    # with --compare the segments are written after the comparison (they carry its causes)
    segments_now = args.segments if not compare else None
    try:
        with _progress() as progress:
            for k, (s, source) in enumerate(zip(systems, sys_sources), 1):
                progress(f"scoring {s.path}"
                         + (f" (system {k} of {len(systems)})" if len(systems) > 1 else ""))
                total = _stats_and_segments(
                    segments_now, k > 1, s.path, source, ref_sources, tokenize, args, None)
                results.append(_smoothed(bleu_from_stats(total), args))
    except CorpusReadError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"--segments {args.segments}: cannot write: {exc.strerror or exc}")

    comparisons: list[Any] = []
    decompositions: list[Any] = []
    versions: dict[str, str] = {}
    if compare:
        from bleu_compat.decompose import compare as compare_configs
        from bleu_compat.libraries import library_version
        from bleu_compat.parity import compare_system

        try:
            with _progress() as progress:
                versions = {lib: library_version(lib) for lib in ("sacrebleu", "nltk")}
                for s, src in zip(systems, raw_sys_sources):
                    decompositions.append(compare_configs(
                        src, raw_ref_sources, configs or (),
                        card_tokenize=tokenize, progress=progress,
                        card_lowercase=args.lowercase,
                    ))
                progress("sacreBLEU and NLTK on the card's tokens")
                # the libraries take every token at once: read the files whole
                ref_tokens = [tokenize_lines(read_lines(src).lines, tokenize) for src in ref_sources]
                references = [list(seg) for seg in zip(*ref_tokens)]
                comparisons = [
                    compare_system(
                        s.path, tokenize_lines(read_lines(src).lines, tokenize), references,
                        max_order=args.max_order,
                    )
                    for s, src in zip(systems, sys_sources)
                ]
        except CorpusReadError as exc:
            return _fail(str(exc))
        except ValueError as exc:
            return _fail(f"--compare: {exc}")
        except (BleuCompatError, ImportError) as exc:
            return _fail(f"--compare: {exc}")
        if args.segments:
            try:
                with _progress() as progress:
                    for k, (s, source, dec) in enumerate(zip(systems, sys_sources, decompositions), 1):
                        progress(f"writing {args.segments}: {s.path}")
                        _stats_and_segments(args.segments, k > 1, s.path, source, ref_sources,
                                            tokenize, args, dec.segment_causes())
            except CorpusReadError as exc:
                return _fail(str(exc))
            except OSError as exc:
                return _fail(f"--segments {args.segments}: cannot write: {exc.strerror or exc}")

    names = [s.path for s in systems]
    # Every output carries the signature (SPEC.md section 8). Where standard output is a
    # bare value scripts capture (-b, as sacreBLEU's) or the card's output object (the
    # original `score --json`), the signature goes to standard error.
    if args.score_only:
        for r in results:
            print(to_fixed_str(100 * r.bleu, args.decimals))
        print(f"signature: {sig}", file=sys.stderr)
    elif fmt == "json" and legacy and args.json and not args.format and not compare:
        from bleu_compat.jsonio import dumps_js

        print(dumps_js(result_json(results[0]), indent=2))  # the original `score --json`
        print(f"signature: {sig}", file=sys.stderr)
    elif fmt == "json":
        doc: dict[str, Any] = {
            "signature": sig,
            "scale": "BLEU: 0-100 (sacreBLEU's and multi-bleu's); bleu: 0-1 (the card's)",
            "tokenize": tokenize,
            "lowercase": args.lowercase,
            "smooth_method": args.smooth_method,
            "max_order": args.max_order,
            "references": [r.path for r in refs],
            "segments": n_segments,
            "systems": [_system_json(n, r) for n, r in zip(names, results)],
            "warnings": sorted(seen),
        }
        if compare:
            doc["versions"] = versions
            for row, c, d in zip(doc["systems"], comparisons, decompositions):
                row["compare"] = _compare_json(c, d)
        from bleu_compat.jsonio import dumps_js

        print(dumps_js(doc, indent=2))
    elif fmt == "csv":
        print(_csv(names, results, comparisons, args.max_order, sig), end="")
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
        print(f"signature: {sig}")
        if compare:
            print(_configs_text(names, decompositions, versions, fmt == "markdown"))
            print(_compare_text(comparisons, versions, fmt == "markdown"))
    if getattr(args, "html", None):
        status = _write_compare_html(args.html, names, comparisons, versions, decompositions)
        if status:
            return status
    unexpected = any(c.unexpected for c in comparisons) or any(d.unexpected for d in decompositions)
    return 1 if unexpected else 0


def _smoothed(result: BleuResult, args: argparse.Namespace) -> BleuResult:
    """The card's score with ``-s``: bleu-smoothing-compute on the corpus statistics."""
    if args.smooth_method == "none":
        return result
    import dataclasses

    from bleu_compat.bleu import smoothed_bleu

    s = result.stats
    method = _SMOOTH_CARD[args.smooth_method]
    eps = args.smooth_value if method == "method1" else None
    sm = smoothed_bleu(s.matches, s.totals, s.hyp_len, s.ref_len, smoothing=method, epsilon=eps)
    return dataclasses.replace(result, bleu=sm.bleu)


def _points(x: float) -> str:
    return to_fixed_str(x, 6)


def _configs_text(names: list[str], results: list[Any], versions: dict[str, str],
                  markdown: bool) -> str:
    from bleu_compat.decompose import first_lines

    impl = {"sacrebleu": f"sacreBLEU {versions.get('sacrebleu', '')}".strip(),
            "nltk": f"NLTK {versions.get('nltk', '')}".strip(), "card": "bleu-compat"}
    out = ["", ("## " if markdown else "")
           + "The libraries as their users run them (BLEU, 0-100 scale; each number is the "
           "library's own)"]
    for name, res in zip(names, results):
        out.append("")
        out.append(f"### {name}" if markdown else name)
        rows = [["configuration", "BLEU", "implementation", "settings"]]
        for run in res.runs:
            rows.append([run.config.name, _points(run.points), impl[run.config.implementation],
                         run.config.signature()])
        out.append(_markdown(rows) if markdown else
                   "\n".join("  " + line for line in _aligned(rows, (0, 2, 3)).splitlines()))
        for mismatch in getattr(res, "token_mismatches", ()):  # issue 20: the library's tokens
            out.append(("- " if markdown else "") + f"UNEXPECTED {mismatch.message()}")
        for d in res.decompositions:
            a = next(r for r in res.runs if r.config.name == d.frm)
            b = next(r for r in res.runs if r.config.name == d.to)
            out.append("")
            head = (f"{d.frm} -> {d.to}: {_points(a.points)} -> {_points(b.points)}, "
                    f"{_fmt_points(float(100 * d.difference))} points")
            if d.unexpected:
                out.append(f"UNEXPECTED {head}: {d.unexpected}")
                continue
            if d.not_decomposable:
                out.append(f"{head}: not decomposable: {d.not_decomposable}")
                continue
            inert = ""
            if d.inert:
                inert = (("- " if markdown else "  ") + "differ but move the score in no "
                         "combination of the factors (steps and Shapley values exactly 0): "
                         + ", ".join(d.inert))
            if not d.causes:
                out.append(f"{head}: the same number, nothing to decompose")
                if inert:
                    out.append(inert)
                continue
            out.append(head + "; one factor at a time (step), and each factor's Shapley "
                       "value (the average over every order of the steps):")
            rows = [["step", "cause", "change", "BLEU after", "step (points)", "Shapley (points)"]]
            notes = []
            for k, c in enumerate(d.causes, 1):
                rows.append([str(k), c.cause, c.change, _points(100 * c.end),
                             _fmt_points(float(100 * c.contribution)),
                             "-" if c.shapley is None else _fmt_points(float(100 * c.shapley))])
                if c.lines_note:
                    notes.append(f"{c.cause}: {c.lines_note}: lines {first_lines(c.lines)}")
                for note, lines in c.lines_other.items():
                    notes.append(f"{c.cause}: {note}: lines {first_lines(lines)}")
            out.append(_markdown(rows) if markdown else
                       "\n".join("  " + line for line in _aligned(rows, (0, 1, 2)).splitlines()))
            total = sum((c.contribution for c in d.causes), start=type(d.difference)(0))
            out.append(("- " if markdown else "  ")
                       + f"the steps add up to {_fmt_points(float(100 * total))} points exactly "
                       f"(rational sum of the steps = {d.to} - {d.frm}: "
                       f"{'yes' if total == d.difference else 'NO'})")
            if inert:
                out.append(inert)
            if d.shapley_note:
                out.append(("- " if markdown else "  ") + d.shapley_note)
            out += [("- " if markdown else "  ") + n for n in notes]
    return "\n".join(out)


def _write_compare_html(path: str, names: list[str], comparisons: list[Any],
                        versions: dict[str, str], decompositions: list[Any]) -> int:
    """Write ``score --compare --html FILE``; 0, or 2 (message on stderr) when it cannot."""
    from bleu_compat.harness.html import HtmlUnavailable, compare_to_html

    doc = {"versions": versions,
           "systems": [{"name": n, "compare": _compare_json(c, d)}
                       for n, c, d in zip(names, comparisons, decompositions)]}
    for system in doc["systems"]:  # the page draws each pair as a waterfall of its causes:
        # a pair that has none by nature (a sentence average) is not drawn as "decomposed"
        cmp = system["compare"]
        cmp["decomposition"] = [x for x in cmp.get("decomposition", ()) if not x["not_decomposable"]]
    try:
        text = compare_to_html(doc)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except HtmlUnavailable as exc:
        return _fail(f"--html: {exc}")
    except OSError as exc:
        return _fail(f"--html {path}: cannot write: {exc.strerror or exc}")
    return 0


def _csv(names: list[str], results: list[BleuResult], comparisons: list[Any], max_order: int,
         sig: str) -> str:
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    header = ["system", "BLEU", *[f"p{n}" for n in range(1, max_order + 1)],
              "bp", "ratio", "hyp_len", "ref_len", "signature"]
    if comparisons:
        for lib in comparisons[0].libraries:
            header += [f"{lib.library}_BLEU", f"{lib.library}_ulps", f"{lib.library}_unexpected"]
    writer.writerow(header)
    for k, (n, r) in enumerate(zip(names, results)):
        ratio = _ratio(r)
        row = [n, js_number_str(100 * r.bleu), *[js_number_str(100 * p) for p in r.precisions],
               js_number_str(r.brevity_penalty), js_number_str(ratio) if ratio is not None else "",
               r.stats.hyp_len, r.stats.ref_len, sig]
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


def _output_problem(path: str, inputs: Sequence[str], other_outputs: Sequence[str]) -> str | None:
    """Why ``path`` must not be written as an output of this run, or None.

    Refused before anything runs: an empty name; ``-`` (standard output carries the
    scores; a file named ``-`` would be a surprise); an input file of this run,
    also through a link or another spelling (writing it would destroy the input
    being read); the path of the other output; a path that cannot be written.
    """
    if path == "":
        return "an empty file name"
    if path == "-":
        return "- (standard output) is not an output file here; give a file name"
    for other in (*inputs, *other_outputs):
        if other == "-":
            continue
        same = other == path
        if not same:
            try:
                same = os.path.samefile(path, other)
            except OSError:  # one of them does not exist (yet): not the same file
                same = False
        if same and other in inputs:
            return (f"{path} is an input file of this run ({other}): writing it would destroy "
                    "it; give another path")
        if same:
            return f"{path} is also the other output's path: give each output its own file"
    return _unwritable(path)


def _unwritable(path: str) -> str | None:
    """Why ``path`` cannot be written, or None; checked before anything runs.

    A regular or new file is opened for appending (nothing is written; a file
    created here is removed again); a device or a pipe is left to the real write.
    """
    import os
    import stat

    try:
        existed = os.path.lexists(path)
        if existed and not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path):
            return None
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    if not existed:
        try:
            os.remove(path)
        except OSError:
            pass
    return None


def _stats_and_segments(segments: str | None, append: bool, system: str, source: str,
                        ref_sources: list[str], tokenize: str, args: argparse.Namespace,
                        causes: Any) -> Any:
    """``corpus_stats_files`` on one system, writing its ``--segments`` lines if asked.

    Raises:
        CorpusReadError: a file cannot be read; OSError: the segments file cannot be written.
    """
    if segments is None:
        return corpus_stats_files(source, ref_sources, tokenize=tokenize, max_order=args.max_order)
    with open(segments, "a" if append else "w", encoding="utf-8", newline="\n") as handle:
        writer = _SegmentWriter(handle, system, args.max_order, [source, *ref_sources],
                                 tokenize, args.smooth_method, args.smooth_value, causes)
        try:
            return corpus_stats_files(source, ref_sources, tokenize=tokenize,
                                      max_order=args.max_order, on_segments=writer)
        finally:
            writer.close()


#: a character JSON must escape, the quote aside: json.encoder's ESCAPE set (ensure_ascii=False
#: writes the rest as is); a quote is found by counting (the joined text holds the separators' quotes)
_JSON_ESCAPED = re.compile(r'[\\\x00-\x1f]')


def _json_token_lists(lists: list[list[str]], dumps: Any) -> list[str]:
    """Each token list as JSON text, exactly as ``dumps`` (ensure_ascii=False, no spaces) writes it.

    A list none of whose tokens holds a character JSON escapes (``"``, ``\\``,
    U+0000–U+001F) is written by joining, ``["a","b"]``; any other by ``dumps``.
    A test compares both with ``json.dumps`` on tokens of every kind.
    """
    search, out = _JSON_ESCAPED.search, []
    for tokens in lists:
        if not tokens:
            out.append("[]")
            continue
        joined = '","'.join(tokens)
        if search(joined) or joined.count('"') != 2 * (len(tokens) - 1):
            out.append(dumps(tokens))
        else:
            out.append(f'["{joined}"]')
    return out


class _SegmentWriter:
    """The ``on_segments`` callback of corpus_stats_files that writes ``--segments`` lines.

    Per segment, one JSON object (JSON Lines): ``system``, ``segment`` (0-based),
    ``line`` (1-based), ``matches``, ``totals``, ``hyp_len``, ``ref_len`` (the
    closest reference length), ``bleu`` (0-1 scale: the bleu-smoothing-compute
    card, :func:`bleu_compat.bleu.smoothed_bleu`, on the segment's own
    sufficient statistics with the run's smoothing), ``BLEU`` (0-100 scale,
    ``100 * bleu``), ``smoothing`` (the card's method name, ``method1`` with
    ``epsilon``), ``hyp_tokens`` and ``ref_tokens`` (one list per reference:
    the tokens as tokenized, lowercased with ``-lc``) and, with ``--compare``,
    ``causes``: ``{"A -> B": [cause, ...]}`` for each pair where the segment
    is among the lines behind a cause (:meth:`CompareResult.segment_causes`).

    Streaming: the tokens are read again from the same files, block for block
    beside the statistics (the same reading rules and tokenizer), so only one
    block is held.
    """

    def __init__(self, handle: Any, system: str, max_order: int, paths: list[str],
                 tokenize: str, smooth_method: str, smooth_value: float | None,
                 causes: Any = None) -> None:
        import json

        from bleu_compat.corpus_io import iter_line_blocks

        self._handle, self._n, self._causes = handle, max_order, causes
        get_tokenizer(tokenize)  # an unknown name is refused here, before anything is written
        self._tokenize = tokenize
        self._size = 0
        self._blocks = iter_line_blocks(paths, lambda: self._size)
        self._method = _SMOOTH_CARD[smooth_method]
        self._epsilon = (smooth_value if smooth_value is not None else 0.1) \
            if self._method == "method1" else None
        self._smoothing = f'"smoothing":"{self._method}"' + (
            f',"epsilon":{js_number_str(self._epsilon)}' if self._epsilon is not None else "")
        self._dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        self._system = self._dumps(system)
        from bleu_compat.smoothing import Smoothing, smooth

        method, epsilon = Smoothing(self._method), self._epsilon
        # the card's smoothing, resolved once (smooth() checks its arguments per call)
        self._smooth = lambda m, t: smooth(m, t, method, epsilon=epsilon)

    def __call__(self, first: int, rows: list[list[int]]) -> None:
        from bleu_compat.bleu import bleu_of_smoothed
        from bleu_compat.tokenizers.block import block_token_lists

        self._size = len(rows)
        _, chunks = next(self._blocks)
        # the tokens the statistics were counted on: the same block path (issue 20)
        tokens = [_json_token_lists(block_token_lists(chunk, self._tokenize), self._dumps)
                  for chunk in chunks]
        hyp_json, ref_json = tokens[0], tokens[1:]
        n, smooth_counts, out = self._n, self._smooth, []
        for k, row in enumerate(rows):
            index = first + k
            matches, totals, hyp_len, ref_len = row[:n], row[n:2 * n], row[2 * n], row[2 * n + 1]
            # the kernel's statistics are valid by construction: smoothed_bleu's per-call
            # checks are skipped, its arithmetic (bleu_of_smoothed) is the same code
            sm, st = smooth_counts(matches, totals)
            bleu = bleu_of_smoothed(matches[0], sm, st, hyp_len, ref_len)[0]
            text = (
                f'{{"system":{self._system},"segment":{index},"line":{index + 1},'
                f'"matches":[{",".join(map(str, matches))}],'
                f'"totals":[{",".join(map(str, totals))}],'
                f'"hyp_len":{hyp_len},"ref_len":{ref_len},'
                f'"bleu":{js_number_str(bleu)},"BLEU":{js_number_str(100 * bleu)},'
                f'{self._smoothing},"hyp_tokens":{hyp_json[k]},'
                f'"ref_tokens":[{",".join([t[k] for t in ref_json])}]'
            )
            if self._causes is not None:
                text += f',"causes":{self._dumps(self._causes(index + 1))}'
            out.append(text + "}\n")
        self._handle.write("".join(out))

    def close(self) -> None:
        """Close the files read for the tokens."""
        self._blocks.close()
