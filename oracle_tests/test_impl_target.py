"""A user's implementation judged against its target (issue 36, item 1).

The held-back implementation ``oracle_tests/impls/shortref_bleu.py`` takes each segment's
*shortest* reference for the brevity penalty (HF evaluate's, bleuscore's and torcheval's
mistake), and is otherwise the card's formula. Values asserted are computed by hand from the
card (Papineni et al. 2002; SPEC.md section 2) or from the definitions in the issue.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bleu_compat.harness.target import (
    Case, Judging, TargetError, accepted_here, families, judge, make_judging,
)
from bleu_compat.harness.truth import truth

ROOT = Path(__file__).resolve().parent.parent
SHORTREF = "oracle_tests/impls/shortref_bleu.py:bleu"
SHORT_ID = "impl:" + SHORTREF
CORPUS = "bleu-corpus-compute"
ENTRY = "TORCHEVAL-SHORTEST-REFERENCE"

#: "c c" against the references "" and "a b c", unigrams. c = 2; the closest reference has 3
#: tokens (|2 - 3| = 1 < |2 - 0| = 2), the shortest 0. One clipped match of 2: p1 = 1/2.
#: Card: BP exp(1 - 3/2), BLEU exp(-1/2) / 2. Shortest reference: c > r, BP 1, BLEU 1/2.
SHORTEST = {"hypotheses": [["c", "c"]], "references": [[[], ["a", "b", "c"]]], "max_order": 1}


def _run(*args: str, cwd: Path = ROOT, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=600)


def _crosscheck(tmp_path: Path, *extra: str, impl: str = SHORTREF, cases: str = "120",
                real: bool = False) -> tuple[int, dict]:
    out = tmp_path / "out"
    proc = _run("crosscheck", "--impl", impl, "--tools", CORPUS, "--cases", cases,
                "--workers", "1", "--no-progress", "--no-html", "--out", str(out),
                *(() if real else ("--no-real",)), *extra)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc.returncode, json.loads((out / "crosscheck.json").read_text())


def test_hand_values_of_the_shortest_reference() -> None:
    """The card and the held-back implementation on SHORTEST, as computed by hand."""
    sys.path.insert(0, str(ROOT / "oracle_tests" / "impls"))
    try:
        import shortref_bleu
    finally:
        sys.path.pop(0)
    assert truth(CORPUS, SHORTEST).expected["bleu"] == math.exp(1 - 3 / 2) * math.exp(math.log(1 / 2))
    assert shortref_bleu.bleu(SHORTEST["hypotheses"], SHORTEST["references"], 1) == 0.5


# ------------------------------------------------------------------ the done criteria


def test_the_shortest_reference_is_a_finding_named_by_torcheval(tmp_path: Path) -> None:
    """crosscheck --impl (the real corpora too) exits 1 with a finding named
    TORCHEVAL-SHORTEST-REFERENCE (torcheval 0.0.7; also HF evaluate's and bleuscore's entries),
    never UNEXPECTED and never sacreBLEU's padding (which this code does not have)."""
    code, report = _crosscheck(tmp_path, real=True)
    assert code == 1
    verdict = report["judging"][SHORT_ID]
    assert verdict["target"] == "card" and verdict["status"] == "finding"
    assert verdict["named"]["library"] == "torcheval" and verdict["named"]["entries"] == [ENTRY]
    assert verdict["named"]["release"] == "0.0.7"
    also = [who for who, _ in verdict["named"]["also"]]
    assert any(w.startswith("HF evaluate") for w in also) and any(w.startswith("bleuscore") for w in also)
    assert report["unexpected_count"] == 0 and report["findings_count"] == verdict["failing"] > 0
    assert {tuple(u["entries"]) for u in report["findings"]} == {(ENTRY,)}
    assert "SACREBLEU-EMPTY-STRING-PADDING" not in json.dumps(report)
    assert f"reproduced on every case by {ENTRY} (torcheval 0.0.7; also HF evaluate" in verdict["message"]
    assert "your reference length: the shortest reference of each segment" in verdict["message"].lower()
    assert "--allow " + ENTRY in verdict["message"]
    row = report["summary"][CORPUS][SHORT_ID]
    assert row["finding"] > 0 and row["explained"] == 0 and row["unexpected"] == 0
    # the shrunk reproducer is SHORTEST's kind: a finding on it, against the card's value
    first = report["finding_reproducers"][0]
    assert first["command"].startswith(f"bleu-compat explain {CORPUS} --impl {SHORTREF} <<'EOF'")


def test_allowing_the_entry_passes(tmp_path: Path) -> None:
    """--allow TORCHEVAL-SHORTEST-REFERENCE: exit 0, the differing cases counted as explained,
    the report naming the target and the allowance (JSON, Markdown, JUnit)."""
    code, report = _crosscheck(tmp_path, "--allow", ENTRY)
    assert code == 0
    verdict = report["judging"][SHORT_ID]
    assert (verdict["status"], verdict["allowed"], verdict["accepted_by"]["entries"]) == (
        "pass", [ENTRY], [ENTRY])
    row = report["summary"][CORPUS][SHORT_ID]
    assert row["explained"] == verdict["differ_from_card"] > 0 and row.get("finding", 0) == 0
    md = (tmp_path / "out" / "crosscheck.md").read_text()
    assert f"| {SHORT_ID} | card | {ENTRY} | PASS |" in md
    junit = (tmp_path / "out" / "crosscheck.junit.xml").read_text()
    assert f'name="against card allowing {ENTRY}"' in junit
    pytest.importorskip("matplotlib")
    from bleu_compat.harness.html import to_html

    html = to_html(report)
    assert 'id="targets"' in html and f"<td>{ENTRY}</td>" in html


def test_the_target_torcheval_passes_without_an_allowance(tmp_path: Path) -> None:
    """--target torcheval: torcheval's quirk is what the implementation means; exit 0."""
    code, report = _crosscheck(tmp_path, "--target", "torcheval")
    assert code == 0
    verdict = report["judging"][SHORT_ID]
    assert (verdict["target"], verdict["library"], verdict["allowed"], verdict["status"]) == (
        "torcheval", "torcheval", [], "pass")


def test_a_correct_bleu_fails_the_target_torcheval(tmp_path: Path) -> None:
    """The card's BLEU judged against torcheval: it lacks torcheval's shortest reference, a
    finding naming the card as what it does and the entry as what the target has."""
    code, report = _crosscheck(tmp_path, "--target", "torcheval",
                               impl="examples/correct_bleu.py:bleu", cases="120")
    assert code == 1
    verdict = report["judging"]["impl:examples/correct_bleu.py:bleu"]
    assert verdict["status"] == "finding" and verdict["named"]["entries"] == []
    assert f"the target has {ENTRY}" in verdict["message"]


def test_a_declared_target_is_taken_and_the_command_line_overrides_it(tmp_path: Path) -> None:
    (tmp_path / "declared.py").write_text(textwrap.dedent(f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("shortref", {str(ROOT / "oracle_tests/impls/shortref_bleu.py")!r})
        mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
        from bleu_compat.implementations import declare

        bleu = declare("tokens->score", target="torcheval")(lambda h, r, max_order=4: mod.bleu(h, r, max_order))
        allowed = declare("tokens->score", allow=["{ENTRY}"])(lambda h, r, max_order=4: mod.bleu(h, r, max_order))
    """), encoding="utf-8")
    spec = str(tmp_path / "declared.py")
    code, report = _crosscheck(tmp_path, impl=spec + ":bleu", cases="120")
    assert code == 0 and report["judging"]["impl:" + spec + ":bleu"]["target"] == "torcheval"
    code, report = _crosscheck(tmp_path, "--target", "card", impl=spec + ":bleu", cases="120")
    assert code == 1 and report["judging"]["impl:" + spec + ":bleu"]["status"] == "finding"
    code, report = _crosscheck(tmp_path, impl=spec + ":allowed", cases="120")
    assert code == 0 and report["judging"]["impl:" + spec + ":allowed"]["allowed"] == [ENTRY]


def test_two_libraries_quirks_are_unexpected_never_a_mix(tmp_path: Path) -> None:
    """The shortest reference (torcheval, HF, bleuscore) and NLTK's floor on each segment's
    totals in one implementation: no one library has both, so every difference is UNEXPECTED,
    none named, though each case alone may match one library."""
    (tmp_path / "mixed.py").write_text(textwrap.dedent("""
        import math
        from collections import Counter

        def bleu(hypotheses, references, max_order=4):
            m, t, c, r = [0] * max_order, [0] * max_order, 0, 0
            for hyp, refs in zip(hypotheses, references):
                c += len(hyp)
                r += min(len(x) for x in refs)
                for n in range(1, max_order + 1):
                    counts = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
                    best = Counter()
                    for ref in refs:
                        best |= Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
                    m[n - 1] += sum(min(k, best[g]) for g, k in counts.items())
                    t[n - 1] += max(1, sum(counts.values()))
            if c == 0 or 0 in m:
                return 0.0
            bp = 1.0 if c > r else math.exp(1 - r / c)
            s = 0.0
            for a, b in zip(m, t):
                s += math.log(a / b)
            return bp * math.exp((1 / max_order) * s)

        bleu.bleu_compat = {"signature": "tokens->score"}
    """), encoding="utf-8")
    code, report = _crosscheck(tmp_path, impl=str(tmp_path / "mixed.py") + ":bleu", cases="200")
    assert code == 1
    verdict = next(iter(report["judging"].values()))
    assert verdict["status"] == "unexpected" and verdict["named"] is None
    assert report["findings_count"] == 0 and report["unexpected_count"] == verdict["failing"] > 0
    assert all(u["entries"] == [] for u in report["unexpected"])


@pytest.mark.parametrize("args, words", [
    (("--impl", SHORTREF, "--target", "no-such"), "unknown target 'no-such'"),
    (("--impl", SHORTREF, "--allow", "NO-SUCH-ENTRY"), "--allow NO-SUCH-ENTRY: no such catalog entry"),
    (("--impl", SHORTREF, "--target", "torcheval", "--allow", "NLTK-FLOAT-ORDER"),
     "an entry of nltk, not of the target torcheval"),
    (("--target", "torcheval"), "give --impl too"),
])
def test_bad_targets_are_usage_errors(args: tuple[str, ...], words: str, tmp_path: Path) -> None:
    proc = _run("crosscheck", *args, "--cases", "1", "--no-real", "--out", str(tmp_path))
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_explain_judges_one_request_against_the_target() -> None:
    body = json.dumps(SHORTEST)
    for extra, code, verdict in (((), 1, "finding"), (("--allow", ENTRY), 0, "accepted"),
                                 (("--target", "torcheval"), 0, "accepted")):
        proc = _run("explain", CORPUS, "--impl", SHORTREF, "--format", "json", *extra, stdin=body)
        assert proc.returncode == code, proc.stdout + proc.stderr
        [impl] = json.loads(proc.stdout)["implementations"]
        assert (impl["verdict"], impl["reproduced_by"]) == (verdict, [ENTRY])
        [field] = impl["fields"]
        assert (field["field"], field["value"]) == ("bleu", 0.5)


# ------------------------------------------------------------------ the judge, unit by unit


def test_required_entries_of_a_library_target() -> None:
    """torcheval's required entries: its reference length only (float32 is arithmetic, the
    whitespace split is how it reads strings, the two raises are errors)."""
    [fam] = families(make_judging("torcheval"), CORPUS)
    assert fam.required == {ENTRY}
    assert set(fam.optional) == {"TORCHEVAL-WHITESPACE-IN-TOKEN", "TORCHEVAL-FLOAT32",
                                 "TORCHEVAL-ZERO-TOTAL-RAISES", "TORCHEVAL-MAX-ORDER-4"}
    assert make_judging("nltk-method1").library == "nltk"  # a configuration names its library
    with pytest.raises(TargetError):
        make_judging("no-such")


def test_accepted_here_on_one_request() -> None:
    expected = truth(CORPUS, SHORTEST).expected
    card = Judging()
    assert accepted_here(card, CORPUS, SHORTEST, {"bleu": 0.5}, expected) is None
    fam, on = accepted_here(make_judging(None, [ENTRY]), CORPUS, SHORTEST, {"bleu": 0.5}, expected)
    assert (fam.dialect, on) == ("torcheval/as_called", {ENTRY})
    # against torcheval the card's own value is not accepted here: the target takes 0 tokens
    assert accepted_here(make_judging("torcheval"), CORPUS, SHORTEST,
                         {"bleu": expected["bleu"]}, expected) is None


def test_a_set_must_be_consistent_over_the_run() -> None:
    """Two cases each matched by a different set of one library alone: with the allowance the
    union must reproduce both, and a case where the impl keeps the card's value while the
    allowed quirk would change it is a finding (consistency: where the set changes the card's
    output, the implementation must too)."""
    agree_where_quirk_fires = Case("t#1", CORPUS, ("bleu",), None, request=SHORTEST)
    differs = Case("t#2", CORPUS, ("bleu",), {"bleu": 0.5}, {"torcheval/as_called": (ENTRY,)},
                   request=SHORTEST)
    verdict = judge("impl:x", make_judging(None, [ENTRY]), [agree_where_quirk_fires, differs],
                    lambda c: c.request, lambda c, r: truth(CORPUS, r).expected)
    assert verdict.status != "pass"
    assert [c.case_id for c in verdict.failing] in (["t#1"], ["t#2"])
    assert judge("impl:x", make_judging(None, [ENTRY]), [differs], lambda c: c.request,
                 lambda c, r: truth(CORPUS, r).expected).status == "pass"


def test_assert_bleu_parity_takes_the_target_and_allowances() -> None:
    from bleu_compat.testing import assert_bleu_parity

    sys.path.insert(0, str(ROOT / "oracle_tests" / "impls"))
    try:
        import shortref_bleu
    finally:
        sys.path.pop(0)
    with pytest.raises(AssertionError) as info:
        assert_bleu_parity(shortref_bleu.bleu, max_examples=100)
    # one dialect reproduces the minimal request, by its shortest-reference entry (which of
    # torcheval's, HF evaluate's or bleuscore's on one request is the smallest set's tie)
    message = str(info.value)
    assert "reproduced bit for bit by the " in message and "-SHORTEST-REFERENCE" in message
    assert_bleu_parity(shortref_bleu.bleu, max_examples=100, allow=[ENTRY])
    assert_bleu_parity(shortref_bleu.bleu, max_examples=100, target="torcheval")
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import correct_bleu
    finally:
        sys.path.pop(0)
    with pytest.raises(AssertionError, match="differs from its target torcheval"):
        assert_bleu_parity(correct_bleu.bleu, max_examples=100, target="torcheval")


def test_gate_records_the_target_and_fails_on_a_finding(tmp_path: Path) -> None:
    """gate --update with --allow keeps the target and the allowance in the baseline and passes
    on them; without the allowance the same implementation fails the gate (the target differs,
    and each finding is a failure, as an UNEXPECTED difference is)."""
    baseline = tmp_path / "baseline.json"
    proc = _run("gate", "--baseline", str(baseline), "--update", "--impl", SHORTREF,
                "--allow", ENTRY, "--workers", "1", "--no-progress")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(baseline.read_text())
    assert data["targets"] == {SHORT_ID: f"card, allowing {ENTRY}"} and "findings" not in data
    proc = _run("gate", "--baseline", str(baseline), "--impl", SHORTREF, "--allow", ENTRY,
                "--workers", "1", "--no-progress")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = _run("gate", "--baseline", str(baseline), "--impl", SHORTREF, "--workers", "1",
                "--no-progress")
    assert proc.returncode == 1
    assert "~ targets differ" in proc.stdout
    assert f"+ finding against the target: {CORPUS} | {SHORT_ID} | bleu | {ENTRY}" in proc.stdout


def test_the_judge_checks_itself_on_its_canary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run that judges --impl also judges the canary (a shortest-reference BLEU): clean
    as shipped; a judge that passes an implementation whenever each case alone matches some
    library (tools/mutate.py's impl-passed-by-any-library) is an UNEXPECTED self-check."""
    import bleu_compat.harness.target as target
    from bleu_compat.harness.run import check_impl_judge

    assert check_impl_judge(0) == []
    real = target.judge

    def lenient(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        verdict = real(*args, **kwargs)
        if verdict.failing and all(c.output is None or any(s is not None for s in c.sets.values())
                                   for c in verdict.judged):
            verdict.accepted, verdict.failing = (target.Family(None, "", frozenset(), ()), frozenset()), []
        return verdict

    monkeypatch.setattr(target, "judge", lenient)
    [d] = check_impl_judge(0)
    assert (d.implementation, d.field, d.card_value, d.library_value) == (
        "judge/impl-canary", "verdict",
        "a finding named by one library's entries about the reference length",
        f"pass named ['{ENTRY}']")
    assert "a correct judge gives a finding named by one library's entries about the reference length" \
        in d.request["self_check"]
