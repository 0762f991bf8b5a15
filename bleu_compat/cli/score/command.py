"""The ``score`` command: check the request, read the inputs, score, compare, print."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Sequence

from bleu_compat.bleu import BleuResult, bleu_from_stats
from bleu_compat.cli.score.arguments import PROG, fail
from bleu_compat.cli.score.compare_render import compare_text, configurations_text
from bleu_compat.cli.score.csv_output import csv_text
from bleu_compat.cli.score.html_output import write_compare_html
from bleu_compat.cli.score.inputs import (
    TUNE_MALLOC_BYTES,
    InputError,
    keep_freed_memory,
    lowered,
    readable_twice,
    size_of,
)
from bleu_compat.cli.score.json_output import compare_json, result_json, system_json
from bleu_compat.cli.score.markdown_output import markdown_table
from bleu_compat.cli.score.output_files import output_problem
from bleu_compat.cli.score.progress import progress_on_stderr
from bleu_compat.cli.score.segments import stats_and_segments
from bleu_compat.cli.score.settings import MAX_ORDER, SMOOTH_CARD, signature
from bleu_compat.cli.score.text_output import aligned, rounded_row, summary_line_at, table_header
from bleu_compat.corpus_io import CorpusReadError, check_line_counts, read_lines, scan_file
from bleu_compat.errors import BleuCompatError
from bleu_compat.rounding import to_fixed_str
from bleu_compat.tokenizers import get_tokenizer, tokenize_lines

__all__ = ["cmd_score"]


def cmd_score(args: argparse.Namespace) -> int:
    """Run ``score``; return the exit status (0, 1 on UNEXPECTED with --compare, 2 on bad input)."""
    if getattr(args, "cluster", None) is not None:  # issue 16
        from bleu_compat.cli.crosscheck import cluster_problem
        from bleu_compat.cli.score.cluster import cmd_score_cluster

        problem = cluster_problem(args.cluster)  # the same refusals as crosscheck, before any work
        if problem:
            return fail(problem)

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


def _score(args: argparse.Namespace, spool: list[str]) -> int:
    if args.test_set is not None:
        return fail(
            f"-t/--test-set {args.test_set}: bleu-compat downloads nothing (there is no "
            "network access for test sets here); pass the files instead: "
            "`bleu-compat score REF [REF ...] -i SYS [SYS ...]` (e.g. a test set's reference "
            "and a system's output as plain text, as `sacrebleu -t NAME -l PAIR --echo ref` "
            "prints them on a machine that has it; the WMT17 en-de reference and "
            "uedin-nmt's output are bundled in fixtures/real/wmt17-en-de-uedin-nmt/)"
        )
    if not 1 <= args.max_order <= MAX_ORDER:
        return fail(f"--max-order={args.max_order} must be between 1 and {MAX_ORDER} "
                     "(the cards' largest n-gram order)")
    if not args.files:
        swallowed = [c for c in (args.compare or ()) if os.path.exists(c)]
        hint = (f"; --compare [CONFIG ...] took {swallowed[0]!r} as a configuration: put --compare "
                "after the files") if swallowed else ""
        return fail("the following arguments are required: FILE (HYP REF [REF ...], or "
                     f"REF [REF ...] -i SYS [SYS ...]){hint}")
    if not 0 <= args.decimals <= 15:
        flag = getattr(args, "decimals_flag", "--width")
        return fail(f"{flag} {args.decimals}: must be between 0 and 15 (-w, --width and "
                     "--decimals are one option)")
    if args.smooth_method == "add-k" and args.smooth_value not in (None, 1.0):
        return fail(f"--smooth-value={args.smooth_value:g}: add-k has a card equivalent "
                     "(method2) only with k = 1")
    if args.smooth_method == "floor" and args.smooth_value is not None \
            and not 0 <= args.smooth_value <= 1:
        return fail(f"--smooth-value={args.smooth_value:g}: floor's epsilon must be in [0, 1]")
    legacy = args.systems is None
    if legacy:
        if len(args.files) < 2:
            return fail("give HYP and at least one REF, or REF ... -i SYS ...")
        system_paths, ref_paths = args.files[:1], args.files[1:]
    else:
        system_paths, ref_paths = args.systems, args.files
    if [*system_paths, *ref_paths].count("-") > 1:
        return fail("standard input (-) can be given only once")
    # SPEC.md section 8: sacreBLEU's form tokenizes raw text with 13a; multi-bleu's splits
    tokenize = args.tokenize or ("none" if legacy else "13a")
    configs: list[str] | None = None
    if args.compare is not None or args.config:
        from bleu_compat.decompose import DEFAULT_COMPARE, parse_config

        configs = list(args.compare or DEFAULT_COMPARE) + list(args.config or ())

        for spec in configs:
            try:
                parse_config(spec, card_tokenize=tokenize)
            except ValueError as exc:
                # a file name taken as a configuration: --compare [CONFIG ...] swallowed it
                hint = " (put --compare after the files)" if os.path.exists(spec) else ""
                flag = "--config" if spec in (args.config or ()) else "--compare"
                return fail(f"{flag}: {exc}{hint}")
    compare = configs is not None
    if getattr(args, "html", None) and not compare:
        return fail("--html writes the --compare report: give --compare too")
    # the outputs are checked before anything runs: a comparison is not run only to be lost
    outputs = [(flag, target) for flag, target in
               (("--segments", args.segments), ("--html", getattr(args, "html", None)))
               if target is not None]
    for flag, target in outputs:
        problem = output_problem(target, [*system_paths, *ref_paths],
                                  [t for f, t in outputs if f != flag])
        if problem:
            return fail(f"{flag}: {problem}")
    fmt = args.format or ("json" if args.json else "line" if len(system_paths) == 1 else "table")
    if fmt == "text":
        fmt = "line" if len(system_paths) == 1 else "table"
    # what to read for each file as given (the name users see stays the one given)
    try:
        sources = {
            (kind, k): readable_twice(path, spool, n)
            for n, (kind, k, path) in enumerate(
                [("ref", k, p) for k, p in enumerate(ref_paths)]
                + [("sys", k, p) for k, p in enumerate(system_paths)]
            )
        }
    except InputError as exc:
        return fail(str(exc))
    ref_sources = [sources["ref", k] for k in range(len(ref_paths))]
    sys_sources = [sources["sys", k] for k in range(len(system_paths))]
    try:
        refs = [scan_file(src, name=path) for src, path in zip(ref_sources, ref_paths)]
        systems = [scan_file(src, name=path) for src, path in zip(sys_sources, system_paths)]
        check_line_counts(refs)
        for s in systems:
            check_line_counts([s, refs[0]])
    except CorpusReadError as exc:
        return fail(str(exc))
    seen: set[str] = set()
    for f in [*refs, *systems]:
        for warning in f.warnings:
            if warning not in seen:
                seen.add(warning)
                print(f"{PROG}: warning: {warning}", file=sys.stderr)
    try:
        get_tokenizer(tokenize)
    except (BleuCompatError, ImportError) as exc:
        return fail(str(exc))
    raw_ref_sources, raw_sys_sources = list(ref_sources), list(sys_sources)
    if args.lowercase:
        try:
            ref_sources = [lowered(src, spool, k) for k, src in enumerate(ref_sources)]
            sys_sources = [lowered(src, spool, len(ref_sources) + k)
                           for k, src in enumerate(sys_sources)]
        except (CorpusReadError, OSError) as exc:
            return fail(str(exc))
    sig = signature(len(refs), lowercase=args.lowercase, tokenize=tokenize,
                    smooth=args.smooth_method, smooth_value=args.smooth_value)
    n_segments = refs[0].n_lines
    if sum(size_of(src) for src in [*ref_sources, *sys_sources]) >= TUNE_MALLOC_BYTES:
        keep_freed_memory()
    results = []
    # with --compare the segments are written after the comparison (they carry its causes)
    segments_now = args.segments if not compare else None
    try:
        with progress_on_stderr() as progress:
            for k, (s, source) in enumerate(zip(systems, sys_sources), 1):
                progress(f"scoring {s.path}"
                         + (f" (system {k} of {len(systems)})" if len(systems) > 1 else ""))
                total = stats_and_segments(
                    segments_now, k > 1, s.path, source, ref_sources, tokenize, args, None)
                results.append(smoothed(bleu_from_stats(total), args))
    except CorpusReadError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"--segments {args.segments}: cannot write: {exc.strerror or exc}")

    comparisons: list[Any] = []
    decompositions: list[Any] = []
    versions: dict[str, str] = {}
    if compare:
        from bleu_compat.decompose import compare as compare_configs
        from bleu_compat.libraries import library_version
        from bleu_compat.parity import compare_system

        parity = parity_libraries(configs or ())
        try:
            with progress_on_stderr() as progress:
                versions = {lib: library_version(lib) for lib in parity}
                for s, src in zip(systems, raw_sys_sources):
                    decompositions.append(compare_configs(
                        src, raw_ref_sources, configs or (),
                        card_tokenize=tokenize, progress=progress,
                        card_lowercase=args.lowercase,
                    ))
                progress(f"{_names_of(parity)} on the card's tokens")
                # the libraries take every token at once: read the files whole
                ref_tokens = [tokenize_lines(read_lines(src).lines, tokenize) for src in ref_sources]
                references = [list(seg) for seg in zip(*ref_tokens)]
                comparisons = [
                    compare_system(
                        s.path, tokenize_lines(read_lines(src).lines, tokenize), references,
                        max_order=args.max_order, libraries=parity,
                    )
                    for s, src in zip(systems, sys_sources)
                ]
        except CorpusReadError as exc:
            return fail(str(exc))
        except ValueError as exc:
            return fail(f"--compare: {exc}")
        except (BleuCompatError, ImportError) as exc:
            return fail(f"--compare: {exc}")
        if args.segments:
            try:
                with progress_on_stderr() as progress:
                    for k, (s, source, dec) in enumerate(zip(systems, sys_sources, decompositions), 1):
                        progress(f"writing {args.segments}: {s.path}")
                        stats_and_segments(args.segments, k > 1, s.path, source, ref_sources,
                                            tokenize, args, dec.segment_causes())
            except CorpusReadError as exc:
                return fail(str(exc))
            except OSError as exc:
                return fail(f"--segments {args.segments}: cannot write: {exc.strerror or exc}")

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
            "systems": [system_json(n, r) for n, r in zip(names, results)],
            "warnings": sorted(seen),
        }
        if compare:
            doc["versions"] = versions
            for row, c, d in zip(doc["systems"], comparisons, decompositions):
                row["compare"] = compare_json(c, d)
        from bleu_compat.jsonio import dumps_js

        print(dumps_js(doc, indent=2))
    elif fmt == "csv":
        print(csv_text(names, results, comparisons, args.max_order, sig), end="")
    else:
        if fmt == "line":
            for n, r in zip(names, results):
                line = summary_line_at(r, args.decimals)
                print(line if len(names) == 1 else f"{n}: {line}")
        else:
            rows = [table_header(args.max_order)] + [
                rounded_row(n, r, args.decimals) for n, r in zip(names, results)
            ]
            print(markdown_table(rows) if fmt == "markdown" else aligned(rows))
        print(f"signature: {sig}")
        if compare:
            print(configurations_text(names, decompositions, versions, fmt == "markdown"))
            print(compare_text(comparisons, versions, fmt == "markdown"))
    if getattr(args, "html", None):
        status = write_compare_html(args.html, names, comparisons, versions, decompositions)
        if status:
            return status
    unexpected = any(c.unexpected for c in comparisons) or any(d.unexpected for d in decompositions)
    return 1 if unexpected else 0


def smoothed(result: BleuResult, args: argparse.Namespace) -> BleuResult:
    """The card's score with ``-s``: bleu-smoothing-compute on the corpus statistics."""
    if args.smooth_method == "none":
        return result
    import dataclasses

    from bleu_compat.bleu import smoothed_bleu

    s = result.stats
    method = SMOOTH_CARD[args.smooth_method]
    eps = args.smooth_value if method == "method1" else None
    sm = smoothed_bleu(s.matches, s.totals, s.hyp_len, s.ref_len, smoothing=method, epsilon=eps)
    return dataclasses.replace(result, bleu=sm.bleu)


def parity_libraries(configs: Sequence[str]) -> list[str]:
    """The implementations ``--compare`` runs on the card's tokens, in registry order: those
    declared ``in_default_compare`` and those of the configurations compared."""
    from bleu_compat.decompose import parse_config
    from bleu_compat.libraries.registry import libraries

    wanted = {parse_config(spec).implementation for spec in configs}
    return [lib.name for lib in libraries() if lib.in_default_compare or lib.name in wanted]


def _names_of(names: Sequence[str]) -> str:
    from bleu_compat.libraries.registry import display_name, join_names

    return join_names([display_name(n) for n in names]) or "no library"
