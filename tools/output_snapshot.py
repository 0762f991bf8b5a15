"""Capture (or compare) the user-visible outputs of bleu-compat on the bundled corpora.

Issue 21 moves sacreBLEU and NLTK onto the implementation registry "with no
change in behaviour": crosscheck, gate, ``score --compare``, ``catalog`` and
``explain`` must print byte for byte what they printed before. This script runs
each of those commands as a user would (a subprocess of ``python -m
bleu_compat``) and writes what it printed (standard output, standard error,
exit status, and every report file) under ``--out``; ``--against DIR`` then
compares the new capture with an earlier one, file by file, and exits 1 on the
first difference (a unified diff of it).

    python tools/output_snapshot.py --out /tmp/before            # on the old tree
    python tools/output_snapshot.py --out /tmp/after --against /tmp/before

``--quick`` runs a subset that takes under a minute; ``--tier test`` the smaller one
``oracle_tests/test_redesign_identical.py`` runs, comparing SHA-256 digests of what it
printed with the committed manifest ``oracle_tests/data/redesign-outputs.json``
(``--manifest FILE`` writes such a manifest: regenerate it only when an output is
meant to change, and say why in the commit).
``--libraries sacrebleu,nltk`` restricts crosscheck, gate and explain to those
implementations (the default: every installed one), so that the reports of
sacreBLEU and NLTK can be compared after other implementations are added.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "fixtures" / "real"

#: (name, references, system) of the bundled real corpora
CORPORA = (
    ("wmt17", ["wmt17-en-de-uedin-nmt/ref.A.txt"], "wmt17-en-de-uedin-nmt/sys.uedin-nmt.4722.txt"),
    ("wmt21", ["wmt21-en-de-facebook-ai/ref.A.txt", "wmt21-en-de-facebook-ai/ref.C.txt",
               "wmt21-en-de-facebook-ai/ref.D.txt"], "wmt21-en-de-facebook-ai/sys.Facebook-AI.txt"),
    ("wmt15tok", ["nltk-wmt15-100/ref.A.tok.txt"], "nltk-wmt15-100/sys.google.tok.txt"),
    ("empty", ["quirks/empty.ref.A.txt", "quirks/empty.ref.B.txt"], "quirks/empty.sys.Online-W.txt"),
    ("nbsp", ["quirks/nbsp.ref.A.txt"], "quirks/nbsp.sys.Facebook-AI.txt"),
    ("zwsp", ["quirks/zwsp.ref.A.tok.txt"], "quirks/zwsp.sys.google.tok.txt"),
)

#: the --compare configurations each corpus is run with (besides the default)
COMPARE_SETS = (
    ["sacrebleu", "sacrebleu-sentence-avg", "nltk", "nltk-method1", "nltk-method2", "nltk-method3",
     "card-split", "card"],
    ["sacrebleu:tok=none,smooth=none", "nltk:tok=13a,smooth=method1", "card:lc=yes",
     "sacrebleu:smooth=floor,value=0.05,eff=yes", "nltk:smooth=method1,value=0"],
    ["sacrebleu:order=2", "nltk:order=2", "card:order=2,tok=intl"],
)

#: explain requests (tool, request)
EXPLAIN = (
    ("bleu-corpus-compute", {"hypotheses": [["a", "b", "c"], ["d"]],
                             "references": [[["a", "b", "c", "d"]], [["d", "e"]]]}),
    ("bleu-corpus-compute", {"hypotheses": [["a b", "c"]], "references": [[["a b", "c"], []]],
                             "max_order": 2, "decimals": 4}),
    ("bleu-smoothing-compute", {"matches": [3, 0, 0], "totals": [3, 2, 1], "candidate_length": 3,
                                "reference_length": 3, "smoothing": "method3"}),
    ("bleu-smoothing-compute", {"matches": [5, 2, 0, 0], "totals": [6, 5, 4, 0],
                                "candidate_length": 6, "reference_length": 7,
                                "smoothing": "method1", "epsilon": 0, "effective_order": True}),
    ("bleu-brevity-penalty", {"segments": [{"candidate_length": 0, "reference_lengths": [0]},
                                           {"candidate_length": 3, "reference_lengths": [2, 4]}]}),
)


def _run(out: Path, name: str, args: list[str], env: dict[str, str], stdin: str | None = None,
         cwd: Path | None = None) -> None:
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", *args], input=stdin,
                          capture_output=True, text=True, env=env, cwd=cwd or ROOT)
    (out / f"{name}.stdout").write_text(proc.stdout, encoding="utf-8")
    (out / f"{name}.stderr").write_text(_scrub(proc.stderr), encoding="utf-8")
    (out / f"{name}.rc").write_text(f"{proc.returncode}\n", encoding="utf-8")


def _scrub(text: str) -> str:
    """Standard error without progress bars (timing-dependent) and temporary paths."""
    keep = [line for line in text.splitlines(True)
            if "\r" not in line and not line.lstrip().startswith(("running", "decomposing"))]
    return "".join(keep)


def capture_test_tier(out: Path, libraries: str | None, catalog: bool = True) -> None:
    """The subset the test runs (about 15 s of CPU): catalog, three explains, ``score
    --compare`` with every built-in configuration on WMT17, a 10-case crosscheck with the
    real corpora and the gate on its report."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    env = _env(libraries)
    if catalog:
        _run(out, "catalog-md", ["catalog"], env)
        _run(out, "catalog-json", ["catalog", "-f", "json"], env)
    for i in (0, 2, 3):
        tool, request = EXPLAIN[i]
        _run(out, f"explain-{i}-json", ["explain", tool, "-f", "json"], env, json.dumps(request))
    name, refs, sys_file = CORPORA[0]
    real = REAL.relative_to(ROOT)  # relative to the working directory: no checkout's path inside
    files = [str(real / r) for r in refs] + ["-i", str(real / sys_file)]
    _run(out, f"score-{name}-set0", ["score", *files, "--compare", *COMPARE_SETS[0]], env)
    cc = out / "crosscheck"
    _run(out, "crosscheck", ["crosscheck", "--out", str(cc), "--no-progress", "--no-html",
                             "--workers", "1", "--cases", "10", "--invalid", "0"], env)
    _run(out, "gate-report", ["gate", "--baseline", str(ROOT / "reports" / "baseline.json"),
                              "--report", str(cc / "crosscheck.json")], env)
    (cc / "crosscheck.timing.json").unlink(missing_ok=True)


def _env(libraries: str | None) -> dict[str, str]:
    env = dict(os.environ, PYTHONHASHSEED="0", COLUMNS="100", NO_COLOR="1", TERM="dumb")
    env.pop("BLEU_COMPAT_LIBRARIES", None)
    if libraries:
        env["BLEU_COMPAT_LIBRARIES"] = libraries
    return env


def digests(out: Path) -> dict[str, str]:
    """relative path -> SHA-256 of the normalised output (paths of the run replaced)."""
    import hashlib

    result = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        text = _normalise(path).replace(str(out), "<OUT>").replace(str(ROOT), "<ROOT>")
        result[str(path.relative_to(out))] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return result


def capture(out: Path, quick: bool, libraries: str | None) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    env = _env(libraries)
    _run(out, "catalog-md", ["catalog"], env)
    _run(out, "catalog-json", ["catalog", "-f", "json"], env)
    for i, (tool, request) in enumerate(EXPLAIN):
        for fmt in ("text", "json"):
            _run(out, f"explain-{i}-{fmt}", ["explain", tool, "-f", fmt], env, json.dumps(request))
    corpora = CORPORA[:1] + CORPORA[3:4] if quick else CORPORA
    for name, refs, sys_file in corpora:
        files = [str(REAL / r) for r in refs] + ["-i", str(REAL / sys_file)]
        tok = ["-tok", "none"] if "tok" in name or name == "zwsp" else []
        _run(out, f"score-{name}-default", ["score", *files, *tok, "--compare"], env)
        _run(out, f"score-{name}-json", ["score", *files, *tok, "--compare", "-f", "json"], env)
        sets = COMPARE_SETS[:1] if quick else COMPARE_SETS
        for k, configs in enumerate(sets):
            _run(out, f"score-{name}-set{k}", ["score", *files, *tok, "--compare", *configs], env)
        if not quick:
            seg = out / f"score-{name}-segments.jsonl"
            _run(out, f"score-{name}-segments", ["score", *files, *tok, "--compare",
                                                   "--segments", str(seg)], env)
    cases = ["--cases", "30", "--invalid", "10"] if quick else []
    cc = out / "crosscheck"
    _run(out, "crosscheck", ["crosscheck", "--out", str(cc), "--no-progress", "--no-html",
                             "--workers", "2", *cases], env)
    if quick:
        _run(out, "gate-report", ["gate", "--baseline", str(ROOT / "reports" / "baseline.json"),
                                  "--report", str(cc / "crosscheck.json")], env)
    else:
        for fmt in ("text", "json"):
            _run(out, f"gate-{fmt}", ["gate", "--baseline", str(ROOT / "reports" / "baseline.json"),
                                      "--no-progress", "--workers", "2", "-f", fmt], env)


#: report fields that hold wall-clock times or the run's own paths
_VOLATILE = ("seconds", "elapsed", "wall", "duration", "started", "finished", "out_dir")


#: what the catalog gained on purpose after the redesign (issue 21's table of implementations
#: × factors): left out of the comparison, so that the entries must still be identical
_ADDED_SECTION = "## Implementations and their factors"


def _normalise(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.name.startswith("catalog-md") and _ADDED_SECTION in text:
        start = text.index(_ADDED_SECTION)
        end = text.index("\n## ", start + 1)
        text = text[:start] + text[end + 1:]
    data = None
    if path.suffix == ".json":
        data = json.loads(text)
    elif path.suffix == ".stdout" and text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
    if data is not None:
        if path.name.startswith("catalog-json") and isinstance(data, dict):
            data.pop("implementations", None)  # the factors table's data (see _ADDED_SECTION)

        def clean(x):  # noqa: ANN001, ANN202
            if isinstance(x, dict):
                return {k: ("<volatile>" if any(v in k.lower() for v in _VOLATILE) else clean(v))
                        for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x

        return json.dumps(clean(data), indent=1, sort_keys=True) + "\n"
    if path.suffix == ".xml":  # junit: time= attributes
        import re

        return re.sub(r'time="[^"]*"', 'time=""', re.sub(r'timestamp="[^"]*"', "", text))
    if path.suffix == ".stdout":  # "wall time 26.2 s", "(..., 9.5 s)"
        import re

        return re.sub(r"\b\d+\.\d+ s\b", "<T> s", text)
    return text


def compare(new: Path, old: Path) -> list[str]:
    problems = []
    old_files = {p.relative_to(old) for p in old.rglob("*") if p.is_file()}
    new_files = {p.relative_to(new) for p in new.rglob("*") if p.is_file()}
    for rel in sorted(old_files - new_files):
        problems.append(f"missing now: {rel}")
    for rel in sorted(new_files - old_files):
        problems.append(f"new file: {rel}")
    for rel in sorted(old_files & new_files):
        a, b = _normalise(old / rel), _normalise(new / rel)
        a, b = a.replace(str(old), "<OUT>"), b.replace(str(new), "<OUT>")
        if a != b:
            diff = "".join(list(difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                                     f"before/{rel}", f"after/{rel}", n=2))[:60])
            problems.append(f"differs: {rel}\n{diff}")
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--against", type=Path, help="an earlier capture to compare with")
    p.add_argument("--quick", action="store_true", help="the seconds-long subset")
    p.add_argument("--tier", choices=("full", "quick", "test"), default=None,
                   help="full (default), quick (= --quick) or test (the test's subset)")
    p.add_argument("--manifest", type=Path, help="write the digests of the capture to this JSON file")
    p.add_argument("--libraries", help="comma-separated implementations (default: all installed)")
    args = p.parse_args(argv)
    tier = args.tier or ("quick" if args.quick else "full")
    if tier == "test":
        capture_test_tier(args.out, args.libraries)
    else:
        capture(args.out, tier == "quick", args.libraries)
    if args.manifest:
        from importlib import metadata

        versions = {d: metadata.version(d) for d in ("sacrebleu", "nltk", "mpmath", "hypothesis")}
        args.manifest.write_text(json.dumps({
            "format": "bleu-compat-output-digests/1", "tier": tier, "libraries": args.libraries,
            "python": ".".join(map(str, sys.version_info[:2])), "versions": versions,
            "digests": digests(args.out)}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.against:
        problems = compare(args.out, args.against)
        for problem in problems:
            print(problem)
        print(f"{len(problems)} difference(s) against {args.against}")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
