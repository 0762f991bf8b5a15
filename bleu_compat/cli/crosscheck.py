"""Command ``crosscheck``: the differential harness (``gate`` lives in :mod:`bleu_compat.cli.gate`).

``bleu-compat crosscheck`` runs generated cases for the three tools plus the
bundled real corpora through ours and every registered implementation (in each
of its modes: as called and mapped), and writes ``crosscheck.json``, ``crosscheck.md`` and
``crosscheck.junit.xml`` (deterministic for a seed and library versions)
plus ``crosscheck.timing.json`` (wall time; not deterministic). Exit 0 when
nothing is UNEXPECTED, 1 otherwise, 2 for usage errors.

``bleu-compat gate --baseline FILE`` runs a smaller deterministic
crosscheck (or reads ``--report``) and compares it with the baseline: it
fails (exit 1, with a readable diff) when a kind of divergence appears or
disappears, an UNEXPECTED difference appears, or a score on a real corpus
moves; ``--update`` rewrites the baseline.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bleu_compat.cli.usage import report_usage_errors, whole_number
from bleu_compat.jsonio import dumps_js
from bleu_compat.tools import TOOL_IDS

#: Bounds on the run's size: a campaign of millions fits, a typo of 10**20 is refused at once.
MAX_CASES = 100_000_000
#: More processes than this only thrash a machine (each holds the libraries).
MAX_WORKERS = 256

#: the command's one-line help (bleu_compat.cli.COMMANDS repeats it)
HELP = "run ours and every registered BLEU implementation side by side and explain every difference"

__all__ = ["register", "cmd_crosscheck", "run_report", "write_reports", "usage", "unwritable_dir",
           "add_impl_argument", "resolve_impls", "resolve_judging", "hung", "interrupted",
           "not_judged"]


def register(subparsers: Any) -> None:
    """Add the ``crosscheck`` command."""
    from bleu_compat.harness_defaults import DEFAULT_CASES, DEFAULT_INVALID, DEFAULT_SEED  # not the harness: cheap --help

    from bleu_compat.libraries.registry import join_names, libraries

    p = subparsers.add_parser(
        "crosscheck", help=HELP,
        description=(
            "Generate card requests for each tool (reproducible from --seed), run the bundled "
            "real WMT corpora, compare every output field of ours, "
            f"{join_names([lib.display_name for lib in libraries()])} (as "
            "called and mapped) with an independent evaluation of the cards, attribute each "
            "difference to a catalog entry or report it UNEXPECTED (shrunk to a minimal "
            "reproducer). Writes crosscheck.json, crosscheck.md, crosscheck.junit.xml to --out. "
            "Exit 0: nothing UNEXPECTED; 1: UNEXPECTED differences; 2: usage error."
        ),
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"generator seed (default {DEFAULT_SEED})")
    p.add_argument("--cases", type=whole_number(0, MAX_CASES), default=None, metavar="N",
                   help=f"generated cases per tool, 0 to {MAX_CASES:,} (default "
                        f"{DEFAULT_CASES['bleu-corpus-compute']}); 0 runs no generated case")
    p.add_argument("--tools", default=",".join(TOOL_IDS), metavar="IDS",
                   help="comma-separated tool ids (default: all three)")
    p.add_argument("--invalid", type=whole_number(0, MAX_CASES), default=None, metavar="N",
                   help="generated invalid requests per tool, sent to ours and compared with the "
                        f"truth's own SPEC.md section 2 checks (default {DEFAULT_INVALID}, or "
                        "--cases when that is smaller: --cases 0 sends none unless --invalid is "
                        "given)")
    p.add_argument("--no-real", action="store_true", help="skip the bundled real corpora")
    p.add_argument("--out", default="out/crosscheck", metavar="DIR",
                   help="report directory (default out/crosscheck)")
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), default=None, metavar="N",
                   help=f"processes, 1 to {MAX_WORKERS} (default: available cores)")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="run the chunks on Dask: local[:N] (a LocalCluster of N worker processes, "
                        "default 2) or a scheduler address (tcp://HOST:8786); the report is the "
                        "one --workers writes (needs pip install 'bleu-compat[dask]')")
    p.add_argument("--checkpoint", default=None, metavar="DIR",
                   help="keep each finished chunk in DIR as it arrives; rerunning with the same "
                        "arguments resumes there (other arguments are refused)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_impl_argument(p)
    p.add_argument("--no-html", action="store_true", help="do not write crosscheck.html")
    p.set_defaults(func=cmd_crosscheck)
    report_usage_errors(p)


def add_impl_argument(p: Any) -> None:
    """The ``--impl SPEC``, ``--impl-timeout S`` and ``--allow-unknown-code`` options shared by
    crosscheck, gate and explain."""
    from bleu_compat.cli.usage import seconds

    p.add_argument(
        "--impl", action="append", default=None, metavar="SPEC",
        help="check your own BLEU instead of ours and the libraries: MODULE:CALLABLE, "
             "FILE.py:CALLABLE or an entry point of group bleu_compat.implementations, declared "
             "with a signature (tokens->score, tokens->stats, stats->score); repeatable. It runs "
             "in a process of its own (what it prints is kept out of this command's output; an "
             "exit or crash of that process is a finding of the call)")
    p.add_argument(
        "--impl-timeout", type=seconds, default=None, metavar="S",
        help="seconds each call of an --impl implementation (and its import) may take "
             "(default 60); one that does not answer in time is stopped and the command exits 1")
    from bleu_compat.foreign import add_option

    add_option(p)
    p.add_argument(
        "--target", default=None, metavar="CONFIG",
        help="what the --impl implementations mean to compute: card (the default, unless an "
             "implementation declares another) or a configuration of score --compare "
             "(sacrebleu, nltk, torcheval, ...); every difference from it is a finding (exit 1)")
    p.add_argument(
        "--allow", action="append", default=None, metavar="ENTRY",
        help="a catalog entry whose quirk the --impl implementations have on purpose (repeatable; "
             "added to what each declares): differences it reproduces are accepted")


def resolve_impls(specs: list[str] | None, timeout: float | None = None,
                  ) -> tuple[tuple[str, ...] | None, str | None]:
    """The implementation ids of ``--impl`` specs (None without them), or a usage message.

    Each spec is loaded in a process of its own (:func:`bleu_compat.isolation.isolated`,
    ``timeout`` seconds per call, default 60) and registered under its id, so the
    harness (and the worker processes forked from this one) run it there. ``timeout`` is
    also put in the environment for processes that are not forked (Dask workers).
    """
    if not specs:
        return None, None
    import os

    from bleu_compat.implementations import ImplementationError, register
    from bleu_compat.isolation import TIMEOUT_ENV, isolated

    if timeout is not None:
        os.environ[TIMEOUT_ENV] = repr(float(timeout))
    ids = []
    for spec in specs:
        try:
            ids.append(register(isolated(spec, timeout)))
        except ImplementationError as exc:
            return None, f"--impl {spec}: {exc}"
    return tuple(dict.fromkeys(ids)), None


def resolve_judging(ids: tuple[str, ...] | None, target: str | None,
                    allow: list[str] | None) -> tuple[dict[str, Any], str | None]:
    """Each ``--impl`` implementation's :class:`~bleu_compat.harness.target.Judging`: its
    declared target and allowances, ``--target`` in place of the target and ``--allow`` added
    to the allowances; or a usage message (an unknown name, ``--target``/``--allow`` without
    ``--impl``)."""
    if not ids:
        if target is not None or allow:
            return {}, ("--target and --allow say what a user's implementation is judged "
                        "against: give --impl too")
        return {}, None
    from bleu_compat.harness.target import TargetError, make_judging
    from bleu_compat.implementations import resolve

    out = {}
    for name in ids:
        impl = resolve(name)
        declared_target = getattr(impl, "target", None)
        wanted = target if target is not None else declared_target
        try:
            out[name] = make_judging(wanted, [*getattr(impl, "allow", ()), *(allow or ())])
        except TargetError as exc:
            where = "" if target is not None or (allow and not declared_target) else (
                f" (declared by {name})")
            return {}, f"{exc}{where}"
    return out, None


def interrupted(prog: str, exc: BaseException, checkpoint: str | None = None, *,
                resumable: bool = True) -> int:
    """Report Ctrl-C in one line (what finished, where it is kept); return 130. Nothing
    was written to the report directory: reports of an earlier run there stay as they were."""
    finished, jobs = getattr(exc, "finished", None), getattr(exc, "jobs", None)
    done = f" after {finished} of {jobs} units" if finished is not None else ""
    if checkpoint is not None:
        tail = f"; the finished ones are kept in {checkpoint}: rerun the same command to resume"
    elif resumable:
        tail = "; no report written (--checkpoint DIR keeps finished units to resume)"
    else:
        tail = "; nothing written"
    print(f"{prog}: interrupted{done}{tail}", file=sys.stderr)
    return 130


def hung(prog: str, exc: Exception, *, json: bool = False) -> int:
    """Report an ``--impl`` implementation that did not answer in time (one line, or the JSON
    error object with code ``implementation_timeout``); return 1: it was not judged."""
    message = (f"{exc}: an implementation that does not answer is that implementation's "
               "failure; nothing was judged past that call")
    if json:
        from bleu_compat.jsonio import dumps_js

        print(dumps_js({"error": {"code": "implementation_timeout", "message": message, "path": ""}}))
    else:
        print(f"{prog}: {message}", file=sys.stderr)
    return 1


def usage(message: str) -> int:
    """Print a usage error of ``crosscheck`` (one line on standard error); return 2."""
    print(f"bleu-compat crosscheck: {message}", file=sys.stderr)
    return 2


#: the files a crosscheck writes into --out
REPORT_FILES = ("crosscheck.json", "crosscheck.md", "crosscheck.junit.xml", "crosscheck.timing.json",
                "crosscheck.html")


def unwritable_dir(path: Path, what: str = "reports",
                   files: tuple[str, ...] = REPORT_FILES) -> str | None:
    """Why ``what`` cannot be written into directory ``path`` as ``files`` (checked before a
    long run), or None."""
    blocker = next((p for p in (path, *path.parents) if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        return (f"cannot write {what} to {path}: {blocker} is a file, not a directory"
                if blocker != path else f"cannot write {what} to {path}: it is a file, not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot write {what} to {path}: {exc.strerror or exc}"
    from bleu_compat.atomic import output_problem

    # each report file follows every command's rule for an output file (a pipe with no
    # reader, a directory, a loop of symbolic links in its place is refused now, not after
    # the run); the first also probes that the directory can be written
    for name in files or (".bleu-compat-write-test",):  # no file named: a probe shows writability
        problem = output_problem(str(path / name))
        if problem:
            return problem
    return None


def run_report(seed: int, cases: dict[str, int], real: bool, workers: int | None,
               show_progress: bool, invalid: dict[str, int] | None = None,
               implementations: tuple[str, ...] | None = None,
               cluster: str | None = None, checkpoint: str | Path | None = None,
               sample: dict[str, list[int]] | None = None,
               judging: dict[str, Any] | None = None,
               ) -> tuple[dict[str, Any], float]:
    """Run a crosscheck and build its JSON report; returns (report, wall seconds).

    ``implementations`` default to ours and every library mode (``--impl``: users' callables).
    ``cluster`` and ``checkpoint``: as :func:`bleu_compat.harness.run.run_crosscheck`
    (its ConfigError and CheckpointMismatch propagate). ``sample``: tool -> further case
    numbers run besides the first ``cases[tool]`` (the gate's sample by kind; the report's
    ``sampled``). ``judging``: each ``--impl`` implementation's target and allowances
    (:func:`resolve_judging`).
    """
    from bleu_compat.harness.report import build_report, versions_now
    from bleu_compat.harness.classify import IMPLEMENTATIONS
    from bleu_compat.harness.run import REAL_SETS, run_crosscheck

    impls = implementations or IMPLEMENTATIONS

    from bleu_compat.libraries import check_versions, dialect_of_installed
    from bleu_compat.libraries.registry import names, quiet_loggers

    quiet_loggers()

    for notice in check_versions():  # SPEC.md section 7: an unmeasured release, announced once
        print(f"bleu-compat: {notice}", file=sys.stderr)
    real_sets = REAL_SETS if real else ()
    total = sum(cases.values()) + 100 * len(real_sets) + sum(
        sum(1 for k in ns if k >= cases.get(t, 0)) for t, ns in (sample or {}).items())
    start = time.perf_counter()
    if show_progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("crosscheck"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      transient=False, console=None) as bar:
            task = bar.add_task("cases", total=total)
            tally = run_crosscheck(seed=seed, cases=cases, real_sets=real_sets, workers=workers,
                                   progress=lambda n: bar.advance(task, n), invalid=invalid,
                                   implementations=impls, cluster=cluster, checkpoint=checkpoint,
                                   extra_cases=sample, judging=judging)
    else:
        tally = run_crosscheck(seed=seed, cases=cases, real_sets=real_sets, workers=workers,
                               invalid=invalid, implementations=impls, cluster=cluster,
                               checkpoint=checkpoint, extra_cases=sample, judging=judging)
    elapsed = time.perf_counter() - start
    versions = {**versions_now(), **tally.versions}
    report = build_report(tally, seed=seed, cases=cases, versions=versions,
                          implementations=impls)
    dialects = {}
    for library in names():
        if not any(i.startswith(library + "/") for i in impls):
            continue
        try:
            dialects[library] = dialect_of_installed(library)
        except ImportError:
            continue
    report["dialects"] = dialects
    if sample:
        report["sampled"] = {t: sorted(k for k in ns if k >= cases.get(t, 0))
                             for t, ns in sorted(sample.items())}
    from bleu_compat.harness.report import with_run_id

    return with_run_id(report), elapsed


#: The files of one crosscheck's report set (crosscheck.<suffix>).
REPORT_FILES = ("json", "md", "junit.xml", "timing.json", "html")


def write_reports(report: dict[str, Any], out: Path, elapsed: float, command: str,
                  html: bool = True, prog: str = "bleu-compat crosscheck") -> None:
    """Write crosscheck.{json,md,junit.xml,timing.json} and (``html``, with matplotlib) crosscheck.html.

    The set is written as one (:func:`bleu_compat.atomic.write_all_atomic`: every file to a
    temporary file first, then each renamed into place), so a run killed while writing leaves
    each file whole, the old one or the new; every file names the report's ``run_id``. A
    ``crosscheck.html`` of an earlier run that this run does not rewrite (``--no-html``, or
    matplotlib missing) is removed, saying so on standard error, so the directory never
    shows an old page beside new reports.
    """
    from bleu_compat.atomic import write_all_atomic
    from bleu_compat.harness.report import to_junit, to_markdown

    out.mkdir(parents=True, exist_ok=True)
    files: dict[Path, str] = {
        out / "crosscheck.json": dumps_js(report, indent=2) + "\n",
        out / "crosscheck.md": to_markdown(report),
        out / "crosscheck.junit.xml": to_junit(report),
        out / "crosscheck.timing.json": json.dumps(
            {"run_id": report.get("run_id"), "wall_seconds": round(elapsed, 2), "command": command},
            indent=2) + "\n",
    }
    if html:
        from bleu_compat.harness.html import HtmlUnavailable, to_html

        try:
            files[out / "crosscheck.html"] = to_html(report)
        except HtmlUnavailable as exc:
            print(f"bleu-compat: crosscheck.html not written: {exc}", file=sys.stderr)
    write_all_atomic(files)
    stale = out / "crosscheck.html"
    if stale not in files and stale.exists():
        try:
            stale.unlink()
            print(f"{prog}: removed {stale}, an earlier run's page (this run wrote no HTML)",
                  file=sys.stderr)
        except OSError as exc:
            print(f"{prog}: {stale} is an earlier run's page and could not be removed "
                  f"({exc.strerror or exc}); it does not match this run (run {report.get('run_id')})",
                  file=sys.stderr)


def _written(out: Path) -> list[str]:
    """The report formats actually written to ``out`` (the HTML page needs the html extra)."""
    return [ext for ext in ("json", "md", "junit.xml", "html") if (out / f"crosscheck.{ext}").exists()]


def _summary(report: dict[str, Any], out: Path | None, elapsed: float) -> None:
    from bleu_compat.harness.report import card_text, library_versions_text

    v = report["versions"]
    n = sum(report["cases"].values())
    n_invalid = sum(row.get("cases", 0) for row in report.get("invalid", {}).values())
    print(f"bleu-compat crosscheck: seed {report['seed']}, {n} generated cases "
          f"({', '.join(f'{t} {c}' for t, c in report['cases'].items())}), "
          f"{n_invalid} invalid requests, "
          f"{len(report['real'])} real corpora; {library_versions_text(v)}")
    for tool, rows in report["summary"].items():
        for impl, row in rows.items():
            print(f"  {tool:24} {impl:20} agree {row['agree']:5}  explained {row['explained']:5}  "
                  f"UNEXPECTED {row['unexpected']:3}  not representable {row['not_representable']:4}"
                  + (f"  FINDINGS {row.get('finding', 0)}" if impl.startswith("impl:") else ""))
    for impl, j in (report.get("judging") or {}).items():
        print(f"  {j['status'].upper()}: {j['message']}")
    for tool, row in report.get("invalid", {}).items():
        print(f"  {tool:24} {'ours (invalid requests)':20} agree {row['agree']:5}  "
              f"UNEXPECTED {row['unexpected']:3}")
    for r in report["real"]:
        scores = "  ".join(f"{i} {100 * s:.6f}" if s is not None else f"{i} no score"
                           for i, s in r["scores"].items()
                           if i != "truth" and (s is not None or i not in r.get("not_representable", {})))
        tokens = "".join(
            f"  tokens: {c['library']} {c['release']}'s {c['tokenizer']} "
            f"{'= ours' if c['same'] else 'DIFFERS from ours'} on {c['lines']} lines"
            for c in r.get("token_checks", ()))
        print(f"  real {r['name']}: {scores}{tokens}")
    print(f"  catalog entries seen: {len(report['entries'])}"
          + "".join(f"{'; ' if i == 0 else ', '}{e} {row['count']}"
                    for i, (e, row) in enumerate(report["entries"].items())))
    never = report.get("never_reproduced", ())
    print(f"  entries of the installed releases never reproduced: {len(never)}"
          + "".join(f"{'; ' if i == 0 else ', '}{n['entry']}"
                    + ("" if n["reachable"] else " (unreachable by the generators)")
                    for i, n in enumerate(never)))
    for t in report.get("too_broad", ()):
        ex = t["example"]
        print(f"  TOO BROAD {t['entry']} ({t['implementation']}, release {ex.get('release')}): "
              f"{t['count']} case(s), first {ex.get('case_id')}: with {' + '.join(ex.get('with', ()))} "
              f"the model gives {ex.get('model')!r}, the library {ex.get('library')!r}")
    dec = report.get("decompositions") or {}
    print(f"  decompositions checked: {dec.get('checked', 0)}; failed checks: "
          f"{report.get('decomposition_failures_count', 0)}")
    for f in dec.get("failures", ())[:10]:
        print(f"  DECOMPOSITION CHECK FAILED: {f['check']} ({f['pair']}, {f.get('corpus')}): "
              f"{f['detail']}")
    tok = report.get("tokenizers") or {}
    if tok:
        print(f"  tokenizers checked on {tok.get('lines', 0)} crafted lines, every path of ours "
              "against the peer: "
              + ", ".join(f"{c['tokenizer']} {'same' if c['same'] else 'DIFFERS'}"
                          for c in tok.get("checked", ()))
              + "".join(f"; not checked here: {n['tokenizer']}" for n in tok.get("not_checked", ())))
    exact = report.get("exact_side") or {}
    print(f"  exact side recomputed: {exact.get('checked', 0)} cases "
          f"({sum(exact.get('regimes', {}).values())} aimed at its special ranges); "
          f"differences: {report.get('exact_findings_count', 0)}")
    for f in exact.get("findings", ())[:5]:
        print(f"  EXACT SIDE DIFFERS {f['case_id']} {f['field']}: truth {f['truth']!r}, "
              f"second route {f['direct']!r}")
    print(f"UNEXPECTED: {report['unexpected_count']}; too broad: {report.get('too_broad_count', 0)}; "
          + (f"findings: {report.get('findings_count', 0)}; " if report.get("judging") else "")
          + f"wall time {elapsed:.1f} s"
          + (f"; reports in {out}/crosscheck.{{{','.join(_written(out))}}}" if out else ""))
    for u in report.get("findings", ())[:5]:
        print(f"  FINDING {u['case_id']} {u['implementation']} {u['field']}: "
              f"target {card_text(u)}, got {u['library_value']!r} ({' + '.join(u['entries']) or 'the card'})")
        if u["command"]:
            print("    " + u["command"].replace("\n", "\n    "))
    for u in report["unexpected"][:5]:
        if (u.get("request") or {}).get("self_check"):  # issue 36: the judge on its canary
            print(f"  UNEXPECTED {u['case_id']} {u['implementation']}: {u['request']['self_check']}")
            continue
        if (u.get("request") or {}).get("token_check"):  # issue 20: the library's tokens
            print(f"  UNEXPECTED {u['case_id']} {u['implementation']} {u['field']}: "
                  f"{u['request']['token_check']}")
            continue
        print(f"  UNEXPECTED {u['case_id']} {u['implementation']} {u['field']}: "
              f"card {card_text(u)}, got {u['library_value']!r}")
        if u["command"]:
            print("    " + u["command"].replace("\n", "\n    "))


#: Dask's address schemes of a scheduler on the network (HOST:PORT after the scheme).
_NETWORK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def cluster_problem(text: str) -> str | None:
    """Why ``--cluster TEXT`` cannot be used (checked before any work), or None.

    Beyond :func:`bleu_compat.cluster.parse_cluster`'s checks: ``local:N`` with
    more than :data:`MAX_WORKERS` workers (``local:99999999999`` started
    processes until the machine gave out), and a scheduler address Dask's own
    address parser refuses (``bogus``: no port), which Dask raised as a
    ValueError only once the run had started.
    """
    from bleu_compat.cluster import parse_cluster
    from bleu_compat.errors import ConfigError

    try:
        spec = parse_cluster(text)
    except ConfigError as exc:
        return str(exc)
    if spec.address is None:
        if spec.workers is not None and spec.workers > MAX_WORKERS:
            return f"--cluster={text!r}: local:N takes 1 to {MAX_WORKERS} worker processes"
        return None
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError:
        return None  # the run says that --cluster needs Dask
    try:
        scheme, location = parse_address(spec.address, strict=False)
        if scheme == "inproc":  # inproc:// lives inside one process: not this one's
            raise ValueError("inproc:// addresses live inside one process; this command cannot reach one")
        if scheme not in _NETWORK_SCHEMES:
            raise ValueError(f"{scheme}:// is not a scheme a scheduler is reached by "
                             f"({', '.join(s + '://' for s in _NETWORK_SCHEMES)})")
        parse_host_port(location)
    except ValueError as exc:
        return (f"--cluster={text!r}: {exc}; give local, local:N or a scheduler address "
                "(tcp://HOST:8786)")
    return None


def _parse_tools(text: str) -> list[str] | None:
    tools = [t.strip() for t in text.split(",") if t.strip()]
    if not tools or any(t not in TOOL_IDS for t in tools):
        return None
    return tools


def cmd_crosscheck(args: argparse.Namespace) -> int:
    from bleu_compat.harness.run import DEFAULT_CASES, DEFAULT_INVALID

    tools = _parse_tools(args.tools)
    if tools is None:
        return usage(f"--tools={args.tools!r}: give comma-separated ids from {', '.join(TOOL_IDS)}")
    impls, problem = resolve_impls(args.impl, args.impl_timeout)
    if problem:
        return usage(problem)
    judging, problem = resolve_judging(impls, args.target, args.allow)
    if problem:
        return usage(problem)
    if impls is not None:
        from bleu_compat.implementations import resolve

        served = {resolve(i).tool_id for i in impls}
        if args.tools == ",".join(TOOL_IDS):
            tools = [t for t in tools if t in served]
            if "bleu-corpus-compute" not in served:
                args.no_real = True  # the real corpora are bleu-corpus-compute requests
        elif not served & set(tools):  # every case would be "not representable": a green run of nothing
            return usage(f"--tools={args.tools!r}: the --impl implementations answer only "
                         f"{', '.join(sorted(served))}")
    cases = {t: (DEFAULT_CASES[t] if args.cases is None else args.cases) for t in tools}
    # The invalid requests scale with the run: a user who asks for 10 cases (or 0) does
    # not expect 150 invalid requests per tool; an explicit --invalid is taken as given.
    invalid = {t: (min(DEFAULT_INVALID, cases[t]) if args.invalid is None else args.invalid)
               for t in tools}
    if not any(cases.values()) and not any(invalid.values()) and args.no_real:
        return usage("--cases 0 " + ("--invalid 0 " if args.invalid is not None else "")
                     + "with --no-real leaves nothing to check (without --invalid N, the invalid "
                     "requests follow --cases)")
    if not args.out.strip():
        return usage("--out is empty; give a directory (default out/crosscheck)")
    if args.checkpoint is not None and not args.checkpoint.strip():
        return usage("--checkpoint is empty; give a directory for the finished chunks")
    out = Path(args.out)
    problem = unwritable_dir(out)
    if problem:
        return usage(problem)
    progress = not args.no_progress and sys.stderr.isatty()
    if impls:  # Invalid requests test ours' refusals: a run of users' implementations sends none.
        invalid = {}
    if args.cluster is not None:
        problem = cluster_problem(args.cluster)
        if problem:
            return usage(problem)
    from bleu_compat.isolation import ImplementationHung

    try:
        report, elapsed = run_report(args.seed, cases, not args.no_real, args.workers, progress,
                                     invalid, implementations=impls, cluster=args.cluster,
                                     checkpoint=args.checkpoint, judging=judging)
    except ImplementationHung as exc:
        return hung("bleu-compat crosscheck", exc)
    except KeyboardInterrupt as exc:
        return interrupted("bleu-compat crosscheck", exc, args.checkpoint)
    except Exception as exc:  # a bad checkpoint, no Dask, an unreachable or failed cluster
        from bleu_compat.errors import ConfigError

        if isinstance(exc, ConfigError):
            resume = (f"; finished chunks are kept in {args.checkpoint}: rerun to resume"
                      if args.checkpoint and type(exc).__name__ == "ClusterError" else "")
            return usage(f"{exc}{resume}")
        raise
    try:
        write_reports(report, out, elapsed, " ".join(sys.argv), html=not args.no_html)
    except OSError as exc:  # the disk filled up, the directory went away: every file whole or absent
        return usage(f"cannot write reports to {out}: {exc.strerror or exc}")
    _summary(report, out, elapsed)
    unjudged = not_judged(report)
    if unjudged:
        return usage(unjudged)
    return 1 if failed(report) else 0


def failed(report: dict[str, Any]) -> bool:
    """Whether a crosscheck report fails: UNEXPECTED differences, catalog entries too broad,
    decompositions failing their independent check, exact doubles the second route
    does not confirm, or a user's implementation differing from its target (named findings)."""
    return bool(report["unexpected_count"] or report.get("too_broad_count")
                or report.get("decomposition_failures_count") or report.get("exact_findings_count")
                or report.get("findings_count"))


def not_judged(report: dict[str, Any]) -> str | None:
    """Why a report of users' implementations (``--impl``) checked nothing, or None: an
    implementation for which every generated case and real corpus was *not representable*
    (a parameter the callable lacks) was never run, so the command must not pass."""
    names = [i for i in report.get("implementations", ()) if i.startswith("impl:")]
    for name in names:
        judged = sum(row.get(name, {}).get(k, 0) for row in report["summary"].values()
                     for k in ("agree", "explained", "unexpected"))
        judged += sum(1 for r in report["real"] if name in r.get("scores", {})
                      and name not in r.get("not_representable", {}))
        if not judged:
            reasons = sorted({r["reason"] for r in report.get("not_representable", ())
                              if r["implementation"] == name})
            return (f"{name} was not run on any case: every one was not representable for it"
                    + (f" ({'; '.join(reasons)[:300]})" if reasons else "")
                    + "; nothing was checked")
    return None
