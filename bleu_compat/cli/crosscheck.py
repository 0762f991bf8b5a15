"""Commands ``crosscheck`` (the differential harness) and ``gate`` (the CI gate).

``bleu-compat crosscheck`` runs generated cases for the three tools plus the
bundled real corpora through ours, sacreBLEU and NLTK (as called and
mapped), and writes ``crosscheck.json``, ``crosscheck.md`` and
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
import logging
import sys
import time
from pathlib import Path
from typing import Any

from bleu_compat.jsonio import dumps_js
from bleu_compat.tools import TOOL_IDS

__all__ = ["register", "baseline_of", "gate_diff", "GATE_CASES"]

#: Cases per tool of the gate's run (with the real corpora, well under a minute).
GATE_CASES = 120
BASELINE_FORMAT = "bleu-compat-baseline/1"


def register(subparsers: Any) -> None:
    """Add the ``crosscheck`` and ``gate`` commands."""
    from bleu_compat.harness.run import DEFAULT_CASES, DEFAULT_SEED

    p = subparsers.add_parser(
        "crosscheck", help="run ours, sacreBLEU and NLTK side by side and explain every difference",
        description=(
            "Generate card requests for each tool (reproducible from --seed), run the bundled "
            "real WMT corpora, compare every output field of ours, sacreBLEU and NLTK (as "
            "called and mapped) with an independent evaluation of the cards, attribute each "
            "difference to a catalog entry or report it UNEXPECTED (shrunk to a minimal "
            "reproducer). Writes crosscheck.json, crosscheck.md, crosscheck.junit.xml to --out. "
            "Exit 0: nothing UNEXPECTED; 1: UNEXPECTED differences; 2: usage error."
        ),
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"generator seed (default {DEFAULT_SEED})")
    p.add_argument("--cases", type=int, default=None, metavar="N",
                   help=f"generated cases per tool (default {DEFAULT_CASES['bleu-corpus-compute']})")
    p.add_argument("--tools", default=",".join(TOOL_IDS), metavar="IDS",
                   help="comma-separated tool ids (default: all three)")
    p.add_argument("--no-real", action="store_true", help="skip the bundled real corpora")
    p.add_argument("--out", default="out/crosscheck", metavar="DIR",
                   help="report directory (default out/crosscheck)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: available cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_crosscheck)

    p = subparsers.add_parser(
        "gate", help="CI regression gate against a committed baseline",
        description=(
            f"Run a deterministic crosscheck ({GATE_CASES} cases per tool, seed 0, real corpora) "
            "or read --report, and compare with --baseline. Exit 1 with a diff when a kind of "
            "divergence appears or disappears, an UNEXPECTED difference appears, or a score on a "
            "real corpus moves; --update rewrites the baseline (exit 0)."
        ),
    )
    p.add_argument("--baseline", required=True, metavar="FILE", help="baseline JSON (e.g. reports/baseline.json)")
    p.add_argument("--report", metavar="FILE", help="use this crosscheck.json instead of running")
    p.add_argument("--update", action="store_true", help="rewrite the baseline from this run")
    p.add_argument("--out", default=None, metavar="DIR", help="also write the run's reports here")
    p.add_argument("--workers", type=int, default=None, help="processes (default: available cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_gate)


def _usage(message: str) -> int:
    print(f"bleu-compat: {message}", file=sys.stderr)
    return 2


def _unwritable_dir(path: Path) -> str | None:
    """Why reports cannot be written into ``path`` (checked before a long run), or None."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".bleu-compat-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return f"cannot write reports to {path}: {exc.strerror or exc}"
    return None


#: What ``gate`` accepts as a baseline (checked with jsonschema before use).
BASELINE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["format", "seed", "cases", "versions", "unexpected_count", "kinds", "real_scores"],
    "properties": {
        "format": {"const": BASELINE_FORMAT},
        "seed": {"type": "integer"},
        "cases": {
            "type": "object", "minProperties": 1,
            "propertyNames": {"enum": list(TOOL_IDS)},
            "additionalProperties": {"type": "integer", "minimum": 0},
        },
        "versions": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
        "unexpected_count": {"type": "integer", "minimum": 0},
        "kinds": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "real_scores": {
            "type": "object",
            "additionalProperties": {
                "type": "object", "additionalProperties": {"type": ["number", "null"]},
            },
        },
    },
}


def _baseline_problem(baseline: Any, path: Path) -> str | None:
    import jsonschema

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(BASELINE_SCHEMA).iter_errors(baseline))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "top level"
    return f"{path} is not a valid {BASELINE_FORMAT} baseline ({where}: {error.message})"


def _run(seed: int, cases: dict[str, int], real: bool, workers: int | None,
         show_progress: bool) -> tuple[dict[str, Any], float]:
    from bleu_compat.harness.report import build_report, versions_now
    from bleu_compat.harness.run import REAL_SETS, run_crosscheck

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    real_sets = REAL_SETS if real else ()
    total = sum(cases.values()) + 100 * len(real_sets)
    start = time.perf_counter()
    if show_progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("crosscheck"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      transient=False, console=None) as bar:
            task = bar.add_task("cases", total=total)
            tally = run_crosscheck(seed=seed, cases=cases, real_sets=real_sets, workers=workers,
                                   progress=lambda n: bar.advance(task, n))
    else:
        tally = run_crosscheck(seed=seed, cases=cases, real_sets=real_sets, workers=workers)
    elapsed = time.perf_counter() - start
    versions = {**versions_now(), **tally.versions}
    return build_report(tally, seed=seed, cases=cases, versions=versions), elapsed


def _write(report: dict[str, Any], out: Path, elapsed: float, command: str) -> None:
    from bleu_compat.harness.report import to_junit, to_markdown

    out.mkdir(parents=True, exist_ok=True)
    (out / "crosscheck.json").write_text(dumps_js(report, indent=2) + "\n", encoding="utf-8")
    (out / "crosscheck.md").write_text(to_markdown(report), encoding="utf-8")
    (out / "crosscheck.junit.xml").write_text(to_junit(report), encoding="utf-8")
    (out / "crosscheck.timing.json").write_text(
        json.dumps({"wall_seconds": round(elapsed, 2), "command": command}, indent=2) + "\n",
        encoding="utf-8")


def _summary(report: dict[str, Any], out: Path | None, elapsed: float) -> None:
    v = report["versions"]
    n = sum(report["cases"].values())
    print(f"bleu-compat crosscheck: seed {report['seed']}, {n} generated cases "
          f"({', '.join(f'{t} {c}' for t, c in report['cases'].items())}), "
          f"{len(report['real'])} real corpora; sacreBLEU {v.get('sacrebleu')}, NLTK {v.get('nltk')}")
    for tool, rows in report["summary"].items():
        for impl, row in rows.items():
            print(f"  {tool:24} {impl:20} agree {row['agree']:5}  explained {row['explained']:5}  "
                  f"UNEXPECTED {row['unexpected']:3}  not representable {row['not_representable']:4}")
    for r in report["real"]:
        scores = "  ".join(f"{i} {100 * s:.6f}" for i, s in r["scores"].items() if s is not None and i != "truth")
        print(f"  real {r['name']}: {scores}")
    print(f"  catalog entries seen: {len(report['entries'])}"
          + "".join(f"{'; ' if i == 0 else ', '}{e} {row['count']}"
                    for i, (e, row) in enumerate(report["entries"].items())))
    print(f"UNEXPECTED: {report['unexpected_count']}; wall time {elapsed:.1f} s"
          + (f"; reports in {out}/crosscheck.{{json,md,junit.xml}}" if out else ""))
    for u in report["unexpected"][:5]:
        print(f"  UNEXPECTED {u['case_id']} {u['implementation']} {u['field']}: "
              f"card {u['card_value']!r}, got {u['library_value']!r}")
        if u["command"]:
            print("    " + u["command"].replace("\n", "\n    "))


def _parse_tools(text: str) -> list[str] | None:
    tools = [t.strip() for t in text.split(",") if t.strip()]
    if not tools or any(t not in TOOL_IDS for t in tools):
        return None
    return tools


def cmd_crosscheck(args: argparse.Namespace) -> int:
    from bleu_compat.harness.run import DEFAULT_CASES

    tools = _parse_tools(args.tools)
    if tools is None:
        return _usage(f"--tools={args.tools!r}: give comma-separated ids from {', '.join(TOOL_IDS)}")
    if args.cases is not None and args.cases < 0:
        return _usage(f"--cases={args.cases} must be >= 0")
    if args.workers is not None and args.workers < 1:
        return _usage(f"--workers={args.workers} must be >= 1")
    cases = {t: (DEFAULT_CASES[t] if args.cases is None else args.cases) for t in tools}
    if not any(cases.values()) and args.no_real:
        return _usage("--cases 0 with --no-real leaves nothing to check")
    out = Path(args.out)
    problem = _unwritable_dir(out)
    if problem:
        return _usage(problem)
    progress = not args.no_progress and sys.stderr.isatty()
    report, elapsed = _run(args.seed, cases, not args.no_real, args.workers, progress)
    _write(report, out, elapsed, " ".join(sys.argv))
    _summary(report, out, elapsed)
    return 1 if report["unexpected_count"] else 0


# --- gate ------------------------------------------------------------------------


def baseline_of(report: dict[str, Any]) -> dict[str, Any]:
    """What the gate keeps of a crosscheck report: the kinds of divergence, the
    UNEXPECTED count and the real-corpus scores (full doubles, 0–1 scale)."""
    kinds = [k["name"] for k in report["kinds"]]
    for r in report["real"]:
        for d in r["discrepancies"]:
            kinds.append(f"real:{r['name']} | {d['implementation']} | {d['field']} | "
                         f"{'+'.join(d['entries']) or 'UNEXPECTED'}")
    return {
        "format": BASELINE_FORMAT,
        "seed": report["seed"],
        "cases": report["cases"],
        "versions": {k: report["versions"].get(k) for k in ("sacrebleu", "nltk")},
        "unexpected_count": report["unexpected_count"],
        "kinds": sorted(set(kinds)),
        "real_scores": {r["name"]: r["scores"] for r in report["real"]},
    }


def gate_diff(baseline: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Readable reasons the gate fails (empty: pass)."""
    problems: list[str] = []
    if current["unexpected_count"]:
        problems.append(f"+ {current['unexpected_count']} UNEXPECTED difference(s) (baseline: "
                        f"{baseline.get('unexpected_count', 0)})")
    old, new = set(baseline.get("kinds", [])), set(current["kinds"])
    problems += [f"+ new kind of divergence: {k}" for k in sorted(new - old)]
    problems += [f"- known divergence disappeared: {k}" for k in sorted(old - new)]
    old_scores, new_scores = baseline.get("real_scores", {}), current["real_scores"]
    for name in sorted(set(old_scores) | set(new_scores)):
        a, b = old_scores.get(name), new_scores.get(name)
        if a is None or b is None:
            problems.append(f"~ real corpus {name}: {'added' if a is None else 'missing'}")
            continue
        for impl in sorted(set(a) | set(b)):
            if a.get(impl) != b.get(impl):
                problems.append(f"~ real corpus {name}, {impl}: BLEU {a.get(impl)!r} -> {b.get(impl)!r}")
    if baseline.get("versions") != current["versions"]:
        problems.append(f"(library versions changed: {baseline.get('versions')} -> {current['versions']})")
    return problems


def cmd_gate(args: argparse.Namespace) -> int:
    baseline_path = Path(args.baseline)
    baseline: dict[str, Any] | None = None
    if baseline_path.exists():
        try:
            baseline = json.loads(baseline_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return _usage(f"cannot read baseline {baseline_path}: {exc}")
        problem = _baseline_problem(baseline, baseline_path)
        if problem:
            return _usage(problem)
    elif not args.update:
        return _usage(f"baseline {baseline_path} does not exist (create it with --update)")
    if args.update:
        problem = _unwritable_dir(baseline_path.parent)
        if problem is None and baseline_path.is_dir():
            problem = f"--baseline {baseline_path} is a directory"
        if problem:
            return _usage(problem)
    if args.out:
        problem = _unwritable_dir(Path(args.out))
        if problem:
            return _usage(problem)
    if args.report:
        try:
            report = json.loads(Path(args.report).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return _usage(f"cannot read report {args.report}: {exc}")
        if not isinstance(report, dict) or not {"seed", "cases", "kinds", "real", "unexpected_count",
                                                "versions"} <= set(report):
            return _usage(f"{args.report} is not a crosscheck.json report")
        if baseline is not None and (report["seed"], report["cases"]) != (baseline["seed"], baseline["cases"]):
            return _usage(
                f"{args.report} was run with seed {report['seed']} and cases {report['cases']}; "
                f"the baseline with seed {baseline['seed']} and cases {baseline['cases']}: "
                "their kinds of divergence cannot be compared")
        elapsed = 0.0
    else:
        seed = baseline["seed"] if baseline else 0
        cases = baseline["cases"] if baseline else {t: GATE_CASES for t in TOOL_IDS}
        progress = not args.no_progress and sys.stderr.isatty()
        report, elapsed = _run(seed, cases, True, args.workers, progress)
        if args.out:
            _write(report, Path(args.out), elapsed, " ".join(sys.argv))
    current = baseline_of(report)
    if args.update:
        baseline_path.parent.mkdir(parents=True, exist_ok=True)
        baseline_path.write_text(json.dumps(current, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"bleu-compat gate: baseline written to {baseline_path} ({len(current['kinds'])} kinds, "
              f"{current['unexpected_count']} UNEXPECTED)")
        return 0
    assert baseline is not None
    problems = gate_diff(baseline, current)
    failing = [p for p in problems if not p.startswith("(")]
    for u in report.get("unexpected", [])[:5]:
        if u.get("command"):
            failing.append(f"  reproducer for {u['implementation']} {u['field']}:\n    "
                           + u["command"].replace("\n", "\n    "))
    if failing:
        print(f"bleu-compat gate: FAIL against {baseline_path}")
        for line in problems + failing[len([p for p in problems if not p.startswith('(')]):]:
            print("  " + line)
        return 1
    print(f"bleu-compat gate: pass ({len(current['kinds'])} known kinds of divergence, "
          f"0 UNEXPECTED, {len(current['real_scores'])} real corpora unchanged"
          + (f", {elapsed:.1f} s" if elapsed else "") + ")")
    for p in problems:
        print("  " + p)
    return 0
