"""Command ``gate``: the CI regression gate against a committed baseline.

``bleu-compat gate --baseline FILE`` runs a smaller deterministic crosscheck
(or reads ``--report``) and compares it with the baseline: it fails (exit 1,
with a readable diff) when a kind of divergence appears or disappears, an
UNEXPECTED difference appears, or a score on a real corpus moves;
``--update`` rewrites the baseline.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bleu_compat.cli.crosscheck import (
    MAX_CASES, MAX_WORKERS, add_impl_argument, hung, interrupted, not_judged, resolve_impls, run_report, unwritable_dir,
    write_reports,
)
from bleu_compat.cli.usage import asks_for, refuse, report_usage_errors, whole_number
from bleu_compat.jsonio import dumps_js
from bleu_compat.tools import TOOL_IDS

__all__ = ["register", "baseline_of", "gate_diff", "versions_note", "read_json_document",
           "BASELINE_SCHEMA", "REPORT_SCHEMA", "GATE_CASES", "GATE_FORMAT", "cmd_gate"]

#: Cases per tool of the gate's run (with the real corpora, well under a minute).
GATE_CASES = 120
#: Invalid requests per tool sent to ours in the gate's run (a limit off by one fails the gate).
GATE_INVALID = 60
BASELINE_FORMAT = "bleu-compat-baseline/1"
#: ``gate --format json``'s document
GATE_FORMAT = "bleu-compat-gate/1"


def _tools_of(impls: tuple[str, ...] | None) -> tuple[str, ...]:
    """The tools a gate run covers: all three, or those users' implementations answer."""
    if not impls or not all(i.startswith("impl:") for i in impls):
        return TOOL_IDS
    from bleu_compat.implementations import resolve

    served = {resolve(i).tool_id for i in impls}
    return tuple(t for t in TOOL_IDS if t in served)


def register(subparsers: Any) -> None:
    """Add the ``gate`` command."""
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
    p.add_argument("--update", action="store_true",
                   help="rewrite the baseline from this run (it replaces a baseline, an empty file "
                        "or a damaged baseline; any other file only with --force)")
    p.add_argument("--force", action="store_true",
                   help="with --update: replace --baseline even when it is a file that is not a "
                        "baseline")
    p.add_argument("--out", default=None, metavar="DIR", help="also write the run's reports here")
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), default=None, metavar="N",
                   help=f"processes, 1 to {MAX_WORKERS} (default: available cores)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--format", "-f", choices=("text", "json"), default="text",
                   help="text (default) or json: the verdict, the problems and the reproducers as data")
    add_impl_argument(p)
    p.set_defaults(func=cmd_gate)
    report_usage_errors(p, json=asks_for("--format", "-f", value="json"))


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
            # the gate runs these counts: a hand-edited 10**12 would run for weeks
            "additionalProperties": {"type": "integer", "minimum": 0, "maximum": MAX_CASES},
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
        # the cases run besides the first ones, chosen by kind (issue 25)
        "sample": {
            "type": "object", "propertyNames": {"enum": list(TOOL_IDS)},
            "additionalProperties": {"type": "array", "maxItems": 1000,
                                     "items": {"type": "integer", "minimum": 0, "maximum": MAX_CASES}},
        },
        "too_broad": {"type": "array", "items": {"type": "string"}},
        "decomposition_failures": {"type": "array", "items": {"type": "string"}},
        "exact_findings": {"type": "array", "items": {"type": "string"}},
        # a user's implementation against its target (issue 36): what it was judged against,
        # and the named findings (each fails the gate, as UNEXPECTED ones do)
        "targets": {"type": "object", "additionalProperties": {"type": "string"}},
        "findings": {"type": "array", "items": {"type": "string"}},
    },
}


#: What ``gate --report`` accepts: the parts of a ``crosscheck.json`` the gate reads.
REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["seed", "cases", "kinds", "real", "unexpected_count", "versions"],
    "properties": {
        "seed": {"type": "integer"},
        "cases": BASELINE_SCHEMA["properties"]["cases"],
        "versions": {"type": "object"},
        "unexpected_count": {"type": "integer", "minimum": 0},
        "kinds": {"type": "array", "items": {
            "type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
        "real": {"type": "array", "items": {
            "type": "object", "required": ["name", "scores", "discrepancies"],
            "properties": {
                "name": {"type": "string"},
                "scores": {"type": "object", "additionalProperties": {"type": ["number", "null"]}},
                "discrepancies": {"type": "array", "items": {
                    "type": "object", "required": ["implementation", "field", "entries"],
                    "properties": {"implementation": {"type": "string"}, "field": {"type": "string"},
                                   "entries": {"type": "array", "items": {"type": "string"}}}}},
            }}},
        "implementations": {"type": "array", "items": {"type": "string"}},
        "unexpected": {"type": "array", "items": {
            "type": "object", "required": ["implementation", "field"],
            "properties": {"implementation": {"type": "string"}, "field": {"type": "string"},
                           "command": {"type": ["string", "null"]}}}},
    },
}


def _schema_problem(document: Any, schema: dict[str, Any]) -> str | None:
    """The first way ``document`` breaks ``schema`` (jsonschema's best match), or None."""
    import jsonschema

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(document))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "top level"
    message = error.message if len(error.message) <= 200 else error.message[:197] + "..."
    return f"{where}: {message}"


#: The most bytes read of a baseline or a report (the reports of the default crosscheck are
#: a few MB): an endless file (``/dev/zero``) is refused, not read into memory.
MAX_DOCUMENT_BYTES = 256 << 20


def _read_capped(path: Path) -> bytes:
    """At most :data:`MAX_DOCUMENT_BYTES` + 1 bytes of ``path`` (one more says it is longer).

    Raises:
        OSError: it cannot be opened or read.
    """
    with open(path, "rb") as handle:
        return handle.read(MAX_DOCUMENT_BYTES + 1)


def read_json_document(path: Path, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """``(document, None)`` for a readable JSON file matching ``schema``, else ``(None, why)``.

    ``why`` is a short reason in words: the file is missing, a directory,
    unreadable, empty, not UTF-8, starts with a byte order mark, is not JSON
    (the decoder's message and position), or breaks the schema (where and how).
    """
    if path.is_dir():
        return None, "it is a directory"
    try:
        data = _read_capped(path)
    except FileNotFoundError:
        return None, "it does not exist"
    except OSError as exc:
        return None, f"it cannot be read: {exc.strerror or exc}"
    if len(data) > MAX_DOCUMENT_BYTES:
        return None, (f"it is longer than {MAX_DOCUMENT_BYTES >> 20} MiB, more than any "
                      "baseline or report this gate writes")
    if not data.strip():
        return None, "it is empty" if not data else "it holds only whitespace"
    if data.startswith(b"\xef\xbb\xbf"):
        return None, "it starts with a UTF-8 byte order mark"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"it is not UTF-8 text (invalid byte at offset {exc.start})"
    try:
        document = json.loads(text)
    except ValueError as exc:  # JSONDecodeError; also int() of an over-long number
        return None, f"it is not JSON: {exc}"
    except RecursionError:
        return None, "it is not JSON this gate can read: nested too deep"
    problem = _schema_problem(document, schema)
    return (None, problem) if problem else (document, None)


def _not_a_baseline(path: Path, why: str) -> str:
    command = f"bleu-compat gate --baseline {path} --update" + (
        "" if _replaceable(path) else " --force")
    return (f"--baseline {path} is not a valid {BASELINE_FORMAT} baseline as "
            f"`bleu-compat gate --update` writes it ({why}); regenerate it with `{command}`"
            + ("" if _replaceable(path) else " (it replaces the file)"))


def _replaceable(path: Path) -> bool:
    """Whether ``gate --update`` may replace ``path``, an existing file that is not a valid
    baseline, without ``--force``: only when nothing would be lost, an empty (or blank) file,
    or a baseline of this or another format version that no longer validates (a JSON object
    whose ``format`` is ``bleu-compat-baseline/...``). A text file, a report, anything else:
    only with ``--force``."""
    try:
        data = _read_capped(path)
    except OSError:
        return False
    if len(data) > MAX_DOCUMENT_BYTES:
        return False
    if not data.strip():
        return True
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return (isinstance(document, dict) and isinstance(document.get("format"), str)
            and document["format"].startswith("bleu-compat-baseline/"))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False




def _covered(baseline: dict[str, Any]) -> tuple[str, ...] | None:
    """``ours`` and the modes of the installed implementations the baseline records a
    version of, or None when that is every installed one (the default run)."""
    from bleu_compat.libraries.registry import installed

    recorded = set(baseline.get("versions") or {})
    chosen = [lib for lib in installed() if lib.name in recorded]
    skipped = [lib.display_name for lib in installed() if lib.name not in recorded]
    if not skipped:
        return None
    print(f"bleu-compat gate: the baseline covers {', '.join(l.display_name for l in chosen) or 'none'}"
          f"; not checked: {', '.join(skipped)}", file=sys.stderr)
    return ("ours",) + tuple(i for lib in chosen for i in lib.implementation_ids)


def _library_names() -> tuple[str, ...]:
    from bleu_compat.libraries.registry import names

    return names()


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
        "versions": {k: report["versions"].get(k) for k in _library_names()
                     if any(i.startswith(k + "/") for i in report.get("implementations") or [k + "/"])},
        "unexpected_count": report["unexpected_count"],
        "kinds": sorted(set(kinds)),
        "real_scores": {r["name"]: r["scores"] for r in report["real"]},
        **({"sample": report["sampled"]} if report.get("sampled") else {}),
        **({"too_broad": sorted(f"{t['tool']} | {t['implementation']} | {t['entry']}"
                                for t in report["too_broad"])} if report.get("too_broad") else {}),
        **({"decomposition_failures": sorted(
            f"{f['check']} | {f['pair']} | {f.get('corpus')}"
            for f in report["decompositions"]["failures"])}
           if (report.get("decompositions") or {}).get("failures") else {}),
        **({"exact_findings": sorted(f"{f['case_id']} | {f['field']}"
                                    for f in report["exact_side"]["findings"])}
           if (report.get("exact_side") or {}).get("findings") else {}),
        **_implementations_of(report),
        **({"targets": {impl: _target_text(j) for impl, j in report["judging"].items()}}
           if report.get("judging") else {}),
        **({"findings": sorted({f"{u['tool_id']} | {u['implementation']} | {u['field']} | "
                                f"{'+'.join(u['entries']) or 'the card'}"
                                for u in report["findings"]})} if report.get("findings") else {}),
    }


def _target_text(judging: dict[str, Any]) -> str:
    """``torcheval (torcheval 0.0.7), allowing X`` as a baseline records a target."""
    text = judging["target"] + (f" ({judging['library']} {judging['release']})"
                                if judging.get("library") else "")
    return text + (f", allowing {', '.join(judging['allowed'])}" if judging.get("allowed") else "")


def _implementations_of(report: dict[str, Any]) -> dict[str, Any]:
    # Only a run of users' implementations (--impl) records them: a baseline of ours
    # and the libraries stays as it was.
    impls = report.get("implementations") or []
    if any(i.startswith("impl:") for i in impls):
        return {"implementations": list(impls)}
    return {}


def _sample(seed: int, cases: dict[str, int], baseline: dict[str, Any] | None,
            update: bool) -> dict[str, list[int]]:
    """The cases the gate runs besides the first ``cases[tool]``, chosen by kind (issue 25):
    the baseline's ``sample``; computed afresh (:func:`bleu_compat.harness.sampling.sample_by_kind`
    over the default run's cases, seconds of generating requests) for ``--update`` or a baseline
    without one."""
    if baseline is not None and "sample" in baseline and not update:
        return {t: list(ns) for t, ns in baseline["sample"].items() if t in cases}
    from bleu_compat.harness.run import DEFAULT_CASES
    from bleu_compat.harness.sampling import sample_by_kind

    return {t: sample_by_kind(seed, t, n, DEFAULT_CASES.get(t, n))[n:] for t, n in cases.items()}


def gate_diff(baseline: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Readable reasons the gate fails (empty: pass)."""
    problems: list[str] = []
    if baseline.get("implementations") != current.get("implementations"):
        problems.append(f"~ implementations differ: baseline {baseline.get('implementations') or 'default'}"
                        f", this run {current.get('implementations') or 'default'}")
    if current["unexpected_count"]:
        problems.append(f"+ {current['unexpected_count']} UNEXPECTED difference(s) (baseline: "
                        f"{baseline.get('unexpected_count', 0)})")
    problems += [f"+ catalog entry too broad: {t}" for t in current.get("too_broad", ())]
    problems += [f"+ decomposition check failed: {t}" for t in current.get("decomposition_failures", ())]
    problems += [f"+ exact side differs from the second route: {t}"
                 for t in current.get("exact_findings", ())]
    if baseline.get("targets", {}) != current.get("targets", {}):
        problems.append(f"~ targets differ: baseline {baseline.get('targets') or 'the card'}, "
                        f"this run {current.get('targets') or 'the card'}")
    problems += [f"+ finding against the target: {t}" for t in current.get("findings", ())]
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
                problems.append(f"~ real corpus {name}, {impl}: bleu (0-1 scale) {a.get(impl)!r} -> {b.get(impl)!r}")
    note = versions_note(baseline, current)
    if note:
        problems.append(f"({note})")
    return problems


def versions_note(baseline: dict[str, Any], current: dict[str, Any]) -> str | None:
    """One line when the run used other library releases than the baseline (None if the same).

    Names both sets of releases, and for each release of this run whether it has a
    measured dialect (SPEC.md section 7), so a failing gate after an upgrade says so.
    """
    from bleu_compat.catalog import LIBRARY_NAMES, is_measured

    old, new = baseline.get("versions") or {}, current.get("versions") or {}
    # the implementations the baseline covers (one registered or installed since is not judged)
    new = {k: v for k, v in new.items() if k in old}
    if old == new or not new:  # no library ran (users' implementations only): nothing to say
        return None
    made = ", ".join(f"{LIBRARY_NAMES.get(k, k)} {v}" for k, v in sorted(old.items()))
    now = ", ".join(f"{LIBRARY_NAMES.get(k, k)} {v}"
                    + ("" if v is None or is_measured(k, v) else " (no measured dialect)")
                    for k, v in sorted(new.items()))
    return f"the baseline was made with {made}; this run used {now}"


def cmd_gate(args: argparse.Namespace) -> int:
    def usage(message: str) -> int:
        return refuse("bleu-compat gate", message, json=args.format == "json")

    for flag, value in (("--baseline", args.baseline), ("--report", args.report), ("--out", args.out)):
        if value is not None and not value.strip():
            return usage(f"{flag} is empty; give a path")
    baseline_path = Path(args.baseline)
    baseline: dict[str, Any] | None = None
    if baseline_path.is_dir():
        return usage(f"--baseline {baseline_path} is a directory; give the baseline file "
                     "(`bleu-compat gate --baseline FILE --update` writes one)")
    if not baseline_path.exists() and not args.update:
        return usage(f"--baseline {baseline_path} does not exist; create it with "
                     f"`bleu-compat gate --baseline {baseline_path} --update`")
    if args.force and not args.update:
        return usage("--force goes with --update (it lets --update replace a file that is not a "
                     "baseline)")
    if args.report is not None and _same_file(Path(args.report), baseline_path):
        return usage(f"--report {args.report} is the --baseline file; give the crosscheck.json a "
                     "crosscheck wrote as --report and the baseline as --baseline (--update would "
                     "replace the report with a baseline)")
    if baseline_path.exists():
        baseline, why = read_json_document(baseline_path, BASELINE_SCHEMA)
        if why is not None:
            if not args.update:
                return usage(_not_a_baseline(baseline_path, why))
            if not args.force and not _replaceable(baseline_path):
                return usage(f"--baseline {baseline_path} is not a {BASELINE_FORMAT} baseline "
                             f"({why}); --update replaces only a baseline (or an empty file): give "
                             "another path, or --update --force to replace this file")
            # --update is the way out that the message above offers: start afresh.
            print(f"bleu-compat gate: replacing {baseline_path}, which is not a valid "
                  f"{BASELINE_FORMAT} baseline ({why})", file=sys.stderr)
    if args.update:
        problem = unwritable_dir(baseline_path.parent, f"the baseline {baseline_path}",
                                 (baseline_path.name,))
        if problem:
            return usage(problem)
    if args.out:
        problem = unwritable_dir(Path(args.out))
        if problem:
            return usage(problem)
    if args.report:
        report, why = read_json_document(Path(args.report), REPORT_SCHEMA)
        if why is not None:
            return usage(f"--report {args.report} is not a crosscheck.json report as "
                         f"`bleu-compat crosscheck` writes it ({why})")
        if baseline is not None and not args.update and \
                (report["seed"], report["cases"]) != (baseline["seed"], baseline["cases"]):
            return usage(
                f"{args.report} was run with seed {report['seed']} and cases {report['cases']}; "
                f"the baseline with seed {baseline['seed']} and cases {baseline['cases']}: "
                "their kinds of divergence cannot be compared")
        elapsed = 0.0
    else:
        seed = baseline["seed"] if baseline else 0
        impls, problem = resolve_impls(args.impl or (baseline or {}).get("implementations"),
                                       args.impl_timeout)
        if problem:
            return usage(problem)
        from bleu_compat.cli.crosscheck import resolve_judging

        judging, problem = resolve_judging(impls, args.target, args.allow)
        if problem:
            return usage(problem)
        cases = baseline["cases"] if baseline else {t: GATE_CASES for t in _tools_of(impls)}
        invalid = None if impls else {t: GATE_INVALID for t in cases}  # users' code: ours' refusals untested
        sample = _sample(seed, cases, baseline, args.update) if not impls else None
        if impls is None and baseline is not None and not args.update:
            # the implementations the baseline covers (an implementation installed since, or a
            # plug-in added, is not judged against a baseline that never saw it)
            covered = _covered(baseline)
            if covered is not None:
                impls = covered
        progress = not args.no_progress and sys.stderr.isatty()
        from bleu_compat.isolation import ImplementationHung

        try:
            report, elapsed = run_report(seed, cases, True, args.workers, progress, invalid,
                                         implementations=impls, sample=sample, judging=judging)
        except ImplementationHung as exc:
            return hung("bleu-compat gate", exc, json=args.format == "json")
        except KeyboardInterrupt as exc:
            return interrupted("bleu-compat gate", exc, resumable=False)
        if args.out:
            try:
                write_reports(report, Path(args.out), elapsed, " ".join(sys.argv),
                              prog="bleu-compat gate")
            except OSError as exc:
                return usage(f"cannot write reports to {args.out}: {exc.strerror or exc}")
    unjudged = not_judged(report)
    if unjudged:
        return usage(unjudged)
    current = baseline_of(report)
    if args.update:
        from bleu_compat.atomic import write_atomic

        baseline_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_atomic(baseline_path, json.dumps(current, indent=2, ensure_ascii=False) + "\n")
        except OSError as exc:
            return usage(f"cannot write the baseline {baseline_path}: {exc.strerror or exc}")
        if args.format == "json":
            print(dumps_js({"format": GATE_FORMAT, "result": "updated", "baseline": str(baseline_path),
                            "kinds": len(current["kinds"]),
                            "unexpected_count": current["unexpected_count"]}, indent=2))
        else:
            print(f"bleu-compat gate: baseline written to {baseline_path} ({len(current['kinds'])} kinds, "
                  f"{current['unexpected_count']} UNEXPECTED)")
        return 0
    assert baseline is not None
    note = versions_note(baseline, current)
    if note and args.format != "json":  # JSON carries it in "notes"
        print(f"bleu-compat gate: {note}")
    problems = gate_diff(baseline, current)
    failing = [p for p in problems if not p.startswith("(")]
    if args.format == "json":
        print(dumps_js({
            "format": GATE_FORMAT,
            "result": "fail" if failing else "pass",
            "baseline": str(baseline_path),
            "problems": [p for p in problems if not p.startswith("(")],
            "notes": [p for p in problems if p.startswith("(")],
            "kinds": len(current["kinds"]),
            "real_corpora": len(current["real_scores"]),
            "unexpected_count": current["unexpected_count"],
            "unexpected": [{k: u.get(k) for k in ("case_id", "implementation", "field", "card_value",
                                                  "library_value", "reproducer", "command")}
                           for u in report.get("unexpected", [])],
            "seconds": round(elapsed, 2) if elapsed else None,
        }, indent=2))
        return 1 if failing else 0
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
