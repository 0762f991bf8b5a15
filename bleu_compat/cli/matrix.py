"""Command ``matrix``: the crosscheck in one isolated environment per library release.

``bleu-compat matrix --<implementation> RELEASES ...`` (one option per registered
implementation that declares release lines, e.g. ``--sacrebleu 1.5.1,2.0.0,2.6.0``; or
``--all``) builds or reuses a cached virtual environment per release
(:mod:`bleu_compat.matrix`), runs that release's crosscheck in it and writes
``matrix.json`` and ``matrix.md`` (plus each release's ``crosscheck.json``)
to ``--out``. Exit 0: nothing UNEXPECTED in any release that ran (a release
that does not install or cannot run is listed with the reason); 1: some
release has UNEXPECTED differences; 2: usage error.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["register", "cmd_matrix", "default_source"]


def default_source() -> Path:
    """This project's source directory (the one holding ``pyproject.toml``)."""
    import bleu_compat

    return Path(bleu_compat.__file__).resolve().parents[1]


#: the command's one-line help (bleu_compat.cli.COMMANDS repeats it)
HELP = "run the crosscheck against many releases of each implementation"


def _dest(name: str) -> str:
    return "releases_" + name.replace("-", "_")


def _minor(version: str) -> str:
    """``"1.2.21"`` -> ``"1.2"``."""
    return ".".join(version.split(".")[:2])


def register(subparsers: Any) -> None:
    """Add the ``matrix`` command."""
    from bleu_compat.libraries.registry import display_name

    from bleu_compat.cli.crosscheck import MAX_CASES, MAX_WORKERS
    from bleu_compat.cli.usage import report_usage_errors, whole_number
    from bleu_compat.matrix import ALL_VERSIONS, DEFAULT_CASES

    p = subparsers.add_parser(
        "matrix", help=HELP,
        description=(
            "For every requested release, build (once, cached under --cache) an isolated "
            "virtual environment with venv + pip holding this project's source and that "
            "release, run the crosscheck of that library there, and write matrix.json and "
            "matrix.md to --out: per release the dialect it matches, the catalog entries that "
            "hold, UNEXPECTED counts, the bundled real-corpus scores and what changed from the "
            "previous release (a release that does not install or run is listed with the reason). "
            "Exit 0: nothing UNEXPECTED; 1: UNEXPECTED differences; 2: usage error."
        ),
    )
    lines = []
    for name, releases in ALL_VERSIONS.items():
        display = display_name(name)
        p.add_argument(f"--{name}", dest=_dest(name), metavar="VERSIONS",
                       help=f"comma-separated {display} releases")
        lines.append(f"{display} {_minor(releases[0])}-{_minor(releases[-1])}")
    p.add_argument("--all", action="store_true",
                   help=f"every release line measured ({', '.join(lines)})")
    p.add_argument("--cases", type=whole_number(0, MAX_CASES), default=DEFAULT_CASES, metavar="N",
                   help=f"generated cases per tool in each environment, 0 to {MAX_CASES:,} "
                        f"(default {DEFAULT_CASES})")
    p.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    p.add_argument("--cache", metavar="DIR", default=None,
                   help="environment cache (default $BLEU_COMPAT_CACHE or ~/.cache/bleu-compat/envs)")
    p.add_argument("--out", default="out/matrix", metavar="DIR", help="report directory (default out/matrix)")
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), default=None, metavar="N",
                   help=f"processes per crosscheck, 1 to {MAX_WORKERS} (default: cores)")
    p.add_argument("--offline", action="store_true", help="use cached environments only; build none")
    p.add_argument("--measure", action="store_true",
                   help="judge every release by all of its library's entries (to find a new "
                        "release's dialect) instead of its recorded dialect")
    p.add_argument("--no-progress", action="store_true", help="no progress display")
    p.set_defaults(func=cmd_matrix)
    report_usage_errors(p)


def _usage(message: str) -> int:
    print(f"bleu-compat matrix: {message}", file=sys.stderr)
    return 2


def cmd_matrix(args: argparse.Namespace) -> int:
    from bleu_compat import matrix as m
    from bleu_compat.cli.crosscheck import unwritable_dir
    from bleu_compat.jsonio import dumps_js

    specs: list[m.EnvSpec] = []
    try:
        for lib in m.LIBRARIES:
            text = getattr(args, _dest(lib))
            versions = list(m.ALL_VERSIONS[lib]) if args.all and not text else (
                m.parse_versions(text) if text else [])
            specs += [m.EnvSpec(lib, v) for v in versions]
    except ValueError as exc:
        return _usage(str(exc))
    if not specs:
        from bleu_compat.libraries.registry import join_names

        return _usage(f"name releases with {join_names([f'--{n}' for n in m.LIBRARIES], 'and/or')}"
                      ", or use --all")
    source = default_source()
    if not (source / "pyproject.toml").is_file():
        return _usage(f"cannot find this project's source (pyproject.toml) at {source}")
    if not args.out.strip() or (args.cache is not None and not args.cache.strip()):
        return _usage(f"{'--out' if not args.out.strip() else '--cache'} is empty; give a directory")
    out = Path(args.out)
    problem = unwritable_dir(out, files=("matrix.json", "matrix.md"))
    if problem:
        return _usage(problem)
    cache = Path(args.cache) if args.cache else m.default_cache()
    problem = unwritable_dir(cache, "the environment cache (--cache)", ())
    if problem:
        return _usage(problem)

    if args.offline:
        missing = [spec.name for spec in specs if not m.cached(spec, cache, source)]
        if len(missing) == len(specs):  # nothing to check: never a green run of nothing
            return _usage(f"--offline and no environment is cached for {', '.join(missing)} in "
                          f"{cache}; nothing to check (run once without --offline to build them)")

    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    show = not args.no_progress and sys.stderr.isatty()
    log = (lambda text: None) if show else (lambda text: print(text, file=sys.stderr, flush=True))

    def one(spec: m.EnvSpec, progress: Any) -> dict[str, Any]:
        row: dict[str, Any] = {"library": spec.library, "version": spec.version}
        t0 = time.perf_counter()
        cached = m.cached(spec, cache, source)
        stage = ("reusing cached environment" if cached else
                 "not cached (--offline)" if args.offline else "building environment")
        progress(stage, None, None)
        log(f"matrix: {spec.name}: {stage}")
        try:
            env = m.ensure_env(spec, cache, source, offline=args.offline)
        except m.EnvError as exc:
            return dict(row, status="not installed", reason=str(exc).split(": ", 1)[-1])
        progress("crosscheck", 0, None)
        log(f"matrix: {spec.name}: crosscheck")
        try:
            report = m.run_in_env(spec, env, out / spec.name / "crosscheck.json", cases=args.cases,
                                  seed=args.seed, workers=args.workers, measure=args.measure,
                                  progress=lambda d, t: progress("crosscheck", d, t))
        except m.EnvError as exc:
            reason = str(exc).split(": ", 2)[-1]
            return dict(row, status="cannot run", reason=reason.removeprefix("ERROR ").strip())
        summary = m.summarise(spec, report)
        summary["seconds"] = round(time.perf_counter() - t0, 1)
        log(f"matrix: {spec.name}: {summary['dialect']}, UNEXPECTED {summary['unexpected']} "
            f"({summary['seconds']} s)")
        return summary

    if show:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), transient=False) as bar:
            overall = bar.add_task(f"matrix ({len(specs)} releases)", total=len(specs))
            for spec in specs:
                task = bar.add_task(f"{spec.name}", total=None)

                def progress(stage: str, done: int | None, total: int | None, task: Any = task,
                             spec: m.EnvSpec = spec) -> None:
                    bar.update(task, description=f"{spec.name}: {stage}", completed=done or 0,
                               total=total)

                rows.append(one(spec, progress))
                bar.update(task, description=f"{spec.name}: {rows[-1].get('dialect', rows[-1]['status'])}")
                bar.advance(overall)
    else:
        for spec in specs:
            rows.append(one(spec, lambda *a: None))
    elapsed = time.perf_counter() - start
    result = m.build_matrix(rows, seed=args.seed, cases=args.cases, wall_seconds=elapsed)
    from bleu_compat.atomic import write_all_atomic

    ran = [r for r in result["rows"] if r["status"] == "ran"]
    if not ran:  # every release failed to build or run: report nothing as a result
        return _usage("nothing was checked: " + "; ".join(
            f"{r['library']} {r['version']} {r['status']} ({r.get('reason', '')})"
            for r in result["rows"]))
    try:
        write_all_atomic({out / "matrix.json": dumps_js(result, indent=2) + "\n",
                          out / "matrix.md": m.to_markdown(result)})
    except OSError as exc:
        return _usage(f"cannot write reports to {out}: {exc.strerror or exc}")
    bad = 0
    for r in result["rows"]:
        if r["status"] == "ran":
            print(f"  {r['library']:9} {r['version']:8} {r['dialect']:40} UNEXPECTED {r['unexpected']:4}"
                  f"  entries {len(r['entries'])}")
            bad += bool(r["unexpected"])
        else:
            print(f"  {r['library']:9} {r['version']:8} {r['status']}: {r.get('reason', '')}")
    print(f"bleu-compat matrix: {len(rows)} releases, wall time {elapsed:.1f} s; "
          f"reports in {out}/matrix.{{json,md}}")
    return 1 if bad else 0
