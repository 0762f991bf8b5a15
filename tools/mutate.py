"""Planted bugs, one at a time, each run through ``bleu-compat crosscheck`` alone (issue 25).

Each mutant is a textual change to one file of the package (the text it
replaces must occur exactly once, so a mutant that no longer applies fails
loudly instead of passing). For each, the package is copied to a temporary
directory, the change applied there (the working tree is never touched), and
``python -m bleu_compat crosscheck`` (the default run unless ``--cases``) is
run with that copy first on ``PYTHONPATH``. The outcome:

* ``caught``: exit 1 (UNEXPECTED differences or entries too broad), with the
  finding the run named;
* ``internal error``: exit 3 (an internal error of ours, naming the case);
* ``missed``: exit 0.

Usage::

    python tools/mutate.py                 # every mutant, the default crosscheck
    python tools/mutate.py --list
    python tools/mutate.py --only too-broad-bp-zero --cases 100
    python tools/mutate.py --json out/mutations.json
    python tools/mutate.py --table out/mutations.json   # README's table from those outcomes

README's table ("Planted bugs") comes from this script (``--json``, then ``--table``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutant:
    """One planted bug: replace ``old`` by ``new`` in ``path`` (relative to the repository),
    and each ``(old, new)`` of ``more`` in the same file (a bug whose checks are removed too).
    A change to ``bleu_compat/_ckernel.c`` is compiled into the copy (:func:`build_kernel`)."""

    name: str
    kind: str
    path: str
    old: str
    new: str
    what: str
    more: tuple[tuple[str, str], ...] = ()
    #: arguments the crosscheck runs with besides the default run's (a user's implementation)
    args: tuple[str, ...] = ()


MUTANTS: tuple[Mutant, ...] = (
    # --- a model too broad (issue 25's first kind) -------------------------------------
    Mutant("too-broad-bp-zero-sacrebleu", "model too broad", "bleu_compat/libraries/sacrebleu/model.py",
           "if zero_lengths_is_one and c == 0 and r == 0:", "if zero_lengths_is_one and c == 0:",
           "sacreBLEU's BP-zero models give BP 1 whenever c = 0 (the library: only when c = r = 0)"),
    Mutant("too-broad-bp-zero-bleuscore", "model too broad", "bleu_compat/libraries/bleuscore/model.py",
           "if BP_ZERO in on and c == 0 and r == 0:", "if BP_ZERO in on and c == 0:",
           "bleuscore's BP-zero model gives BP 1 whenever c = 0"),
    # --- applicability widened ---------------------------------------------------------
    Mutant("widened-verified-nltk-method2", "verified releases widened",
           "bleu_compat/libraries/nltk/entries.py",
           'library="nltk", verified=V3_4, tool_id=SMOOTHING,\n'
           '        fields=("smoothed_matches", "smoothed_totals", "bleu"), modes=("as_called", "mapped"),\n'
           '        title="NLTK 3.5: method2 adds 1 to the unigram counts too",',
           'library="nltk", verified=VERIFIED, tool_id=SMOOTHING,\n'
           '        fields=("smoothed_matches", "smoothed_totals", "bleu"), modes=("as_called", "mapped"),\n'
           '        title="NLTK 3.5: method2 adds 1 to the unigram counts too",',
           "NLTK-METHOD2-ADDS-TO-UNIGRAMS claimed for every release, 3.10.4 included"),
    Mutant("widened-mode-sacrebleu-whitespace", "modes widened", "bleu_compat/libraries/sacrebleu/entries.py",
           'modes=("as_called",),\n        title="sacreBLEU\'s string interface splits tokens that contain whitespace",',
           'modes=("as_called", "mapped"),\n        title="sacreBLEU\'s string interface splits tokens that contain whitespace",',
           "SACREBLEU-WHITESPACE-IN-TOKEN allowed in mapped mode"),
    Mutant("widened-mode-nltk-floor", "modes widened (own)", "bleu_compat/libraries/nltk/entries.py",
           'fields=("totals", "bleu"), modes=("as_called",),\n        title="NLTK floors',
           'fields=("totals", "bleu"), modes=("as_called", "mapped"),\n        title="NLTK floors',
           "NLTK-DENOMINATOR-FLOOR allowed in mapped mode (the mapped adapter corrects it)"),
    Mutant("too-broad-nltk-tiny-own", "model too broad (own)", "bleu_compat/libraries/nltk/entries.py",
           'library="nltk", verified=V3_6, tool_id=SMOOTHING,\n        fields=("bleu",), modes=("as_called", "mapped"),\n'
           '        title="method1 precision 0.0',
           'library="nltk", verified=VERIFIED, tool_id=SMOOTHING,\n        fields=("bleu",), modes=("as_called", "mapped"),\n'
           '        title="method1 precision 0.0',
           "NLTK-METHOD1-ZERO-EPSILON (3.6+) claimed for 3.5 too (not installed: equivalent here)"),
    # --- adapters, core, invalid-request checks --------------------------------------
    Mutant("adapter-nltk-auto-reweigh", "adapter", "bleu_compat/libraries/nltk/adapter.py",
           "        bleu = corpus_bleu(references, hypotheses, weights=weights)\n",
           "        bleu = corpus_bleu(references, hypotheses, weights=weights, auto_reweigh=True)\n",
           "the NLTK adapter calls corpus_bleu with auto_reweigh=True"),
    Mutant("limit-token-bytes-off-by-one", "invalid-request limit", "bleu_compat/tools.py",
           "            if size > max_token_bytes:", "            if size >= max_token_bytes:",
           "a non-ASCII token of exactly max_token_bytes is refused"),
    # --- the decomposition (issue 25 item 3) -------------------------------------------
    Mutant("shapley-weight-doubled", "decomposition", "bleu_compat/decompose.py",
           "weight = Fraction(math.factorial(r) * math.factorial(size - r - 1), math.factorial(size))",
           "weight = 2 * Fraction(math.factorial(r) * math.factorial(size - r - 1), math.factorial(size))",
           "every Shapley weight doubled"),
    Mutant("step-ends-swapped", "decomposition", "bleu_compat/decompose.py",
           "f.name, change, ev.value(state), ev.value(nxt),",
           "f.name, change, ev.value(nxt), ev.value(state),",
           "each step's start and end swapped"),
    Mutant("causes-named-after-next", "decomposition", "bleu_compat/decompose.py",
           "f.name, change, ev.value(state), ev.value(nxt),",
           "factors[(i + 1) % k].name, change, ev.value(state), ev.value(nxt),",
           "each step named after the next factor"),
    Mutant("step-skipped-checks-removed", "decomposition", "bleu_compat/decompose.py",
           "    for i in moving:\n", "    for i in moving[1:]:\n",
           "the first step skipped, the final check (steps end at the library's number) removed",
           more=(("    assert ev.value(state) == b_bleu  # the steps end at the library's number, "
                  "bit for bit\n", ""),)),
    Mutant("inert-stepped-own", "decomposition (own)", "bleu_compat/decompose.py",
           "            moving = [i for i in range(k)\n",
           "            moving = list(range(k))\n            _unused = [i for i in range(k)\n",
           "every differing factor stepped, inert ones included"),
    # --- the truth's exact side (issue 25 item 4) --------------------------------------
    Mutant("truth-underflow-80", "truth's exact side", "bleu_compat/harness/truth.py",
           "_EXP_UNDERFLOW_ARGUMENT = 800", "_EXP_UNDERFLOW_ARGUMENT = 80",
           "the exact side's underflow cut at 80 instead of 800"),
    Mutant("truth-subnormal-rounding-own", "truth's exact side (own)", "bleu_compat/harness/truth.py",
           "math.ldexp(int(mpmath.nint(mpmath.ldexp(x, 1074))), -1074)",
           "math.ldexp(int(mpmath.floor(mpmath.ldexp(x, 1074))), -1074)",
           "the exact side's subnormals truncated instead of rounded to nearest"),
    Mutant("truth-ratio-tie-own", "truth's exact side (own)", "bleu_compat/harness/truth.py",
           "if any(q <= _HALF_MIN_SUBNORMAL for q in ratios):",
           "if any(q < _HALF_MIN_SUBNORMAL for q in ratios):",
           "a ratio of exactly 2^-1075 (its double the even 0) taken as positive on the exact side"),
    # --- a user's implementation judged against its target (issue 36 item 1) ------------
    Mutant("impl-passed-by-any-library", "judge of --impl", "bleu_compat/harness/target.py",
           "    verdict.named = name_behaviour(cases, check)\n    return verdict\n",
           "    verdict.named = name_behaviour(cases, check)\n"
           "    if all(c.output is None or any(s is not None for s in c.sets.values()) for c in cases):\n"
           "        verdict.accepted, verdict.failing = (fam, on), []  # planted: per-case matches pass\n"
           "    return verdict\n",
           "a user's BLEU passes when each differing case alone matches some library's quirks "
           "(run with --impl oracle_tests/impls/shortref_bleu.py:bleu)",
           args=("--impl", "oracle_tests/impls/shortref_bleu.py:bleu")),
    # --- the Perl scripts from statistics (issue 36 item 2) ----------------------------
    Mutant("mteval-no-match-gives-card-0", "model of a Perl script", "bleu_compat/libraries/mteval_v13a/model.py",
           "        if needs and needs <= on:\n", "        if False:  # planted\n",
           "mteval's statistics model gives the card's 0 where the script smooths every order "
           "(caught only with BLEU_COMPAT_MOSES_SCRIPTS naming the scripts)"),
    # --- our tokenizers against their peers (issue 36 item 3) --------------------------
    Mutant("13a-slash-not-split", "tokenizer", "bleu_compat/tokenizers/reference.py",
           'PUNCT_13A = " !\\"#$%&()*+/:;<=>?@[\\\\]^_`{|}~"',
           'PUNCT_13A = " !\\"#$%&()*+:;<=>?@[\\\\]^_`{|}~"',
           "13a no longer splits / (mteval_13a('km/h') gives ['km/h'])"),
    Mutant("13a-skipped-kept", "tokenizer", "bleu_compat/tokenizers/reference.py",
           'line = line.replace("<skipped>", "").replace("-\\n", "")',
           'line = line.replace("-\\n", "")',
           "13a no longer removes <skipped>"),
    Mutant("13a-entities-order", "tokenizer", "bleu_compat/tokenizers/reference.py",
           '_ENTITIES = (("&quot;", \'"\'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"))',
           '_ENTITIES = (("&amp;", "&"), ("&quot;", \'"\'), ("&lt;", "<"), ("&gt;", ">"))',
           "13a unescapes &amp; before &quot; (&amp;quot; becomes \")"),
    Mutant("intl-general-punctuation-dropped", "tokenizer", "bleu_compat/tokenizers/unicode_tables.py",
           "(0x1CD3, 0x1CD3), (0x2010, 0x2027), (0x2030, 0x2043),",
           "(0x1CD3, 0x1CD3), (0x2030, 0x2043),",
           "intl's punctuation loses General Punctuation U+2010-U+2027"),
    Mutant("zh-cjk-symbols-shifted", "tokenizer", "bleu_compat/tokenizers/reference.py",
           "    (0x3000, 0x303F),    # CJK Symbols and Punctuation",
           "    (0x3001, 0x3040),    # CJK Symbols and Punctuation",
           "zh's CJK Symbols and Punctuation range shifted by one (U+3001-U+3040)"),
    Mutant("none-fast-u3000-not-whitespace", "tokenizer (compiled)", "bleu_compat/_ckernel.c",
           "        return (end - p >= 3 && p[1] == 0x80 && p[2] == 0x80) ? 3 : 0;\n    return 0;",
           "        return 0;  /* planted: U+3000 is no whitespace */\n    return 0;",
           "the C kernel's whitespace set (none's fast path) loses U+3000"),
    # --- the decomposition's attribution (issue 36 item 4) -----------------------------
    Mutant("interaction-partner-weakest", "decomposition (attribution)", "bleu_compat/decompose.py",
           "if best is None or size > best[0]:", "if best is None or size < best[0]:",
           "each cause's 'interacts most with' partner is its weakest interacting factor"),
    # --- an internal error of ours (must be exit 3 naming the case, never a verdict) -------
    Mutant("internal-error-truth", "internal error (own)", "bleu_compat/harness/truth.py",
           "_EXP_UNDERFLOW_ARGUMENT = 800",
           "_EXP_UNDERFLOW_ARGUMENT = 800\nimport random as _r\nif _r.Random(0).random() < 2: "
           "_EXP_UNDERFLOW_ARGUMENT = None  # planted: every comparison with it raises TypeError",
           "the truth raises TypeError where it compares with the underflow bound"),
)


def _copy_package(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "bleu_compat", dest / "bleu_compat", ignore=ignore)


def apply(mutant: Mutant, dest: Path) -> None:
    """Apply ``mutant`` to the copy under ``dest`` (a C change compiled there).

    Raises:
        ValueError: the text to replace does not occur exactly once (the mutant is stale).
        subprocess.CalledProcessError: the mutated C kernel does not compile.
    """
    path = dest / mutant.path
    text = path.read_text(encoding="utf-8")
    for old, new in ((mutant.old, mutant.new), *mutant.more):
        n = text.count(old)
        if n != 1:
            raise ValueError(f"{mutant.name}: the text to replace occurs {n} times in {mutant.path}")
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    if mutant.path.endswith(".c"):
        build_kernel(dest)


def build_kernel(dest: Path) -> Path:
    """Compile ``dest/bleu_compat/_ckernel.c`` in place of the copy's extension module (the C
    compiler and flags Python was built with, as setup.py's build does); returns the module."""
    import sysconfig

    cc = (sysconfig.get_config_var("CC") or "cc").split()
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    package = dest / "bleu_compat"
    for old in package.glob("_ckernel*.so"):
        old.unlink()
    out = package / f"_ckernel{suffix}"
    subprocess.run([*cc, "-shared", "-fPIC", "-O2", "-I", sysconfig.get_paths()["include"],
                    str(package / "_ckernel.c"), "-o", str(out)], check=True, capture_output=True)
    return out


def run(mutant: Mutant | None, cases: int | None, workers: int | None) -> dict[str, object]:
    """Run the crosscheck on a copy with ``mutant`` applied (None: unmutated); the outcome."""
    with tempfile.TemporaryDirectory(prefix="bleu-compat-mutant-") as tmp:
        dest = Path(tmp)
        _copy_package(dest)
        if mutant is not None:
            apply(mutant, dest)
        env = dict(os.environ, PYTHONPATH=str(dest) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   BLEU_COMPAT_FIXTURES=str(ROOT / "fixtures" / "real"))
        where = subprocess.run([sys.executable, "-c", "import bleu_compat; print(bleu_compat.__file__)"],
                               env=env, cwd=dest, capture_output=True, text=True, timeout=60).stdout.strip()
        if not where.startswith(str(dest)):
            raise RuntimeError(f"the copy is not the package imported ({where})")
        cmd = [sys.executable, "-m", "bleu_compat", "crosscheck", "--no-progress", "--no-html",
               "--out", str(dest / "out"),
               *(a if not a.startswith("oracle_tests/") else str(ROOT / a)
                 for a in (mutant.args if mutant is not None else ()))]
        if cases is not None:
            cmd += ["--cases", str(cases)]
        if workers is not None:
            cmd += ["--workers", str(workers)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, cwd=dest, capture_output=True, text=True, timeout=3600)
        elapsed = time.perf_counter() - start
    out = proc.stdout + proc.stderr
    outcome = {0: "missed", 1: "caught", 3: "internal error"}.get(proc.returncode, f"exit {proc.returncode}")
    found = [line.strip() for line in out.splitlines()
             if re.search(r"TOO BROAD|UNEXPECTED \S+#|UNEXPECTED real|internal error|UNEXPECTED: [1-9]"
                         r"|DECOMPOSITION CHECK FAILED|EXACT SIDE DIFFERS|UNEXPECTED tokenizer:"
                         r"|FINDING[: ]|UNEXPECTED impl:|UNEXPECTED impl-canary", line)]
    return {"mutant": None if mutant is None else mutant.name, "kind": None if mutant is None else mutant.kind,
            "what": None if mutant is None else mutant.what, "exit": proc.returncode,
            "outcome": outcome, "finding": found[:3], "seconds": round(elapsed, 1)}


def check_of(result: dict[str, object]) -> str:
    """Which check of the crosscheck caught a mutant, from its first finding."""
    first = " ".join(result.get("finding") or [])  # type: ignore[arg-type]
    if result["exit"] == 3:
        return "internal error: exit 3 naming the case"
    if result["exit"] != 1:
        return "none"
    for pattern, name in ((r"DECOMPOSITION CHECK FAILED: ([^(]+?) \(", "decomposition check ({})"),
                          (r"EXACT SIDE DIFFERS", "the truth's exact side, second route"),
                          (r"TOO BROAD", "model consistency (too broad / claimed ⇒ observed)"),
                          (r"UNEXPECTED tokenizer:", "tokenizers against their peers (UNEXPECTED)"),
                          (r"UNEXPECTED impl-canary", "the --impl judge on its canary (self-check)"),
                          (r"FINDING[: ]|UNEXPECTED: impl:", "the --impl verdict against its target"),
                          (r"UNEXPECTED", "differential comparison (UNEXPECTED)")):
        m = re.search(pattern, first)
        if m:
            return name.format(*m.groups())
    return "exit 1"


def table(results: list[dict[str, object]]) -> str:
    """The README's Markdown table of mutation outcomes (one row per mutant)."""
    rows = ["| mutant | kind | planted bug | default `crosscheck` alone | exit | check that caught it "
            "| first finding | wall s |", "|---|---|---|---|---:|---|---|---:|"]
    for r in results:
        if r["mutant"] is None:
            continue
        findings = [str(f) for f in (r.get("finding") or ["—"])]  # type: ignore[union-attr]
        # the finding itself rather than the summary's count line, when both were kept
        first = next((f for f in findings if not f.startswith("UNEXPECTED: ")), findings[0])
        first = first if len(first) <= 140 else first[:139] + "…"
        rows.append(f"| `{r['mutant']}` | {r['kind']} | {r['what']} | **{r['outcome']}** | {r['exit']} "
                    f"| {check_of(r)} | {first.replace('|', '/')} | {r['seconds']} |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME", help="run only this mutant (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--cases", type=int, default=None, help="cases per tool (default: the default run)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--baseline", action="store_true", help="also run the unmutated copy first")
    parser.add_argument("--json", metavar="FILE", help="append each outcome to FILE (JSON lines)")
    parser.add_argument("--table", metavar="FILE",
                        help="print the README table of the outcomes in FILE (--json's JSON lines; "
                             "the last outcome of each mutant, in this script's order) and exit")
    args = parser.parse_args(argv)
    if args.table:
        last: dict[str, dict[str, object]] = {}
        with open(args.table, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    r = json.loads(line)
                    last[str(r["mutant"])] = r
        print(table([last[m.name] for m in MUTANTS if m.name in last]), end="")
        return 0
    if args.list:
        for m in MUTANTS:
            print(f"{m.name:36} {m.kind:28} {m.what}")
        return 0
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    unknown = set(args.only or ()) - {m.name for m in MUTANTS}
    if unknown:
        parser.error(f"unknown mutant(s): {', '.join(sorted(unknown))}")
    todo: list[Mutant | None] = ([None] if args.baseline else []) + list(chosen)
    for m in todo:
        result = run(m, args.cases, args.workers)
        print(json.dumps(result, ensure_ascii=False), flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(result, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
