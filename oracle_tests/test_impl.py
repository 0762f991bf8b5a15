"""``--impl``: a user's BLEU callable checked against the truth and the known dialects.

The values asserted are computed by hand from the card's formula (Papineni et
al. 2002; SPEC.md §2–4), never taken from the code under test.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bleu_compat.harness.classify import evaluate
from bleu_compat.harness.generate import generate_case
from bleu_compat.implementations import (
    Implementation, ImplementationError, declare, impl_id, load, register, wrap,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FLAWED = "examples/flawed_bleu.py:bleu"
FLOOR = "examples/flawed_bleu.py:bleu_floor"
CORRECT = "examples/correct_bleu.py:bleu"
CORPUS = "bleu-corpus-compute"
SMOOTHING = "bleu-smoothing-compute"

#: The smallest request where clipping by the count summed over references differs from
#: clipping by the largest count in one reference: "a a" against the references "a" and
#: "a", unigrams only. Card: 1 clipped match of 2, BP 1 (c = 2 > r = 1), BLEU 1/2.
#: Summed clipping allows "a" twice: 2 of 2, BLEU 1.
CLIP_MINIMAL = {"hypotheses": [["a", "a"]], "references": [[["a"], ["a"]]], "max_order": 1}


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples' file specs are relative to the checkout


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


class TestLoad:
    def test_file_spec(self) -> None:
        """FILE.py:CALLABLE loads the callable with its declared signature."""
        impl = load(FLAWED)
        assert impl.name == "impl:" + FLAWED
        assert (impl.signature, impl.scale, impl.tool_id) == ("tokens->score", "0-1", CORPUS)
        assert "max_order" in impl.accepts

    def test_module_spec(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """MODULE:CALLABLE imports the module from sys.path."""
        monkeypatch.syspath_prepend(str(EXAMPLES))
        impl = load("correct_bleu:bleu")
        assert impl.fn(CLIP_MINIMAL["hypotheses"], CLIP_MINIMAL["references"], max_order=1) == 0.5

    def test_entry_point(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """An entry point of group bleu_compat.implementations names an implementation."""
        (tmp_path / "ep_bleu_pkg.py").write_text(textwrap.dedent("""
            from bleu_compat.implementations import declare

            @declare("tokens->score", scale="0-100")
            def bleu(hypotheses, references):
                return 42.0
        """), encoding="utf-8")
        dist = tmp_path / "ep_bleu_pkg-1.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-bleu-pkg\nVersion: 1.0\n")
        (dist / "entry_points.txt").write_text(
            "[bleu_compat.implementations]\nep-test-bleu = ep_bleu_pkg:bleu\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        impl = load("ep-test-bleu")
        assert (impl.name, impl.scale) == ("impl:ep-test-bleu", "0-100")
        assert impl.fn([], []) == 42.0

    @pytest.mark.parametrize("spec, words", [
        ("examples/no_such_file.py:bleu", "no such file"),
        ("/dev/null:bleu", "not a regular file"),
        ("examples/:bleu", "not a regular file"),
        ("examples/flawed_bleu.py:no_such", "no attribute"),
        ("no_such_module_xyz:bleu", "cannot import module"),
        ("no-such-entry-point", "entry point"),
        ("json:dumps", "declares no signature"),
        ("json:__doc__", "not callable"),
    ])
    def test_bad_spec(self, spec: str, words: str) -> None:
        """A spec that names nothing usable is an ImplementationError saying why."""
        with pytest.raises(ImplementationError, match=words):
            load(spec)

    @pytest.mark.parametrize("attribute, words", [
        ("'tokens->score'", "its bleu_compat attribute is a str, not a dict"),
        ("['tokens->score', '0-1']", "its bleu_compat attribute is a list, not a dict"),
        ("{'scale': '0-1'}", "the callable declares no signature"),
    ])
    def test_a_malformed_attribute_is_named(self, tmp_path: Path, attribute: str, words: str) -> None:
        """A ``bleu_compat`` attribute that is not a dict is named as such (it was "declares no
        signature", which sent the user looking for a missing declaration)."""
        (tmp_path / "mine.py").write_text(
            f"def bleu(h, r, max_order=4):\n    return 0.5\nbleu.bleu_compat = {attribute}\n")
        with pytest.raises(ImplementationError, match=re.escape(words)):
            load(f"{tmp_path}/mine.py:bleu")

    def test_bad_declaration(self) -> None:
        """An unknown signature or scale is refused when declared."""
        with pytest.raises(ImplementationError, match="signature"):
            declare("tokens->bleu")
        with pytest.raises(ImplementationError, match="scale"):
            declare("tokens->score", scale="percent")

    def test_bare_declare(self) -> None:
        """``@declare`` without its call (the function passed as the signature) is refused with
        the fix, not a message quoting the function's repr."""
        with pytest.raises(ImplementationError) as info:
            @declare  # type: ignore[arg-type]
            def my_bleu(h, r):  # noqa: ANN001, ANN202
                return 0.0
        message = str(info.value)
        assert "@declare(" in message and "my_bleu" in message and "<function" not in message
        with pytest.raises(ImplementationError) as info:
            declare(42)  # type: ignore[arg-type]
        assert "a value of type int" in str(info.value)

    @pytest.mark.parametrize("command", ["crosscheck", "gate", "explain"])
    def test_cli_bad_spec_exit_2(self, command: str, tmp_path: Path) -> None:
        """Every command taking --impl refuses a bad spec with exit 2 and one line, no traceback."""
        extra = {"crosscheck": ["--out", str(tmp_path)], "gate": ["--baseline", str(tmp_path / "b.json"),
                                                                  "--update"],
                 "explain": [CORPUS]}[command]
        proc = _run(command, *extra, "--impl", "examples/flawed_bleu.py:nope",
                    stdin=json.dumps(CLIP_MINIMAL))
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr
        assert "no attribute 'nope'" in proc.stderr


class TestClassify:
    def test_planted_flaw_unexpected(self) -> None:
        """Summed clipping on CLIP_MINIMAL: 1 against the card's 1/2, and no dialect gives 1."""
        name = impl_id(FLAWED)
        result = evaluate(CORPUS, "t", CLIP_MINIMAL, implementations=(name,))
        [d] = result.discrepancies
        assert (d.field, d.card_value, d.library_value) == ("bleu", 0.5, 1.0)
        assert d.unexpected and d.reproduced_by is None
        assert result.reproductions[name].dialect is None  # nearest is the card itself

    def test_floor_reproduced_by_nltk(self) -> None:
        """A floor of 1 on each segment's total, on "a" + an empty hypothesis (unigrams): the
        card gives 1/1 = 1; the floor makes the total 2, BLEU 1/2, which NLTK's dialect with
        NLTK-DENOMINATOR-FLOOR reproduces bit for bit."""
        request = {"hypotheses": [["a"], []], "references": [[["a"]], [[]]], "max_order": 1}
        name = impl_id(FLOOR)
        result = evaluate(CORPUS, "t", request, implementations=(name,))
        [d] = result.discrepancies
        assert (d.card_value, d.library_value) == (1, 0.5)
        assert d.entries == ("NLTK-DENOMINATOR-FLOOR",) and not d.unexpected
        assert result.reproductions[name].dialect == "nltk/as_called"

    def test_correct_identical_on_generated_cases(self) -> None:
        """The correct example equals the card field for field on 80 generated cases."""
        name = impl_id(CORRECT)
        for k in range(80):
            case = generate_case(3, CORPUS, k)
            result = evaluate(CORPUS, case.case_id, case.request, implementations=(name,))
            assert result.discrepancies == [], case.request
            assert name not in result.not_representable

    def test_decimals_not_passed(self) -> None:
        """A request with decimals is checked on full doubles: the truth of the request without it."""
        request = dict(CLIP_MINIMAL, hypotheses=[["a", "b", "c"]], references=[[["a", "b"]]], decimals=2)
        name = impl_id(CORRECT)
        result = evaluate(CORPUS, "t", request, implementations=(name,), keep_outputs=True)
        assert result.discrepancies == []
        assert result.outputs[name] == {"bleu": 2 / 3}  # 2 of 3 unigrams; c = 3 > r = 2

    def test_0_100_scale(self) -> None:
        """A 0-100 score equal to 100 x the card's double is the card's value; one 1e-9 points
        off is a difference (exact comparison, no tolerance)."""
        card = 2 / 3

        def hundred(hypotheses, references, max_order=4):
            return 100 * card

        def off(hypotheses, references, max_order=4):
            return 100 * card + 1e-9

        request = {"hypotheses": [["a", "b", "c"]], "references": [[["a", "b"]]], "max_order": 1}
        for fn, diffs in ((hundred, 0), (off, 1)):
            name = register(wrap(f"impl:test:{fn.__name__}", fn, signature="tokens->score",
                                 scale="0-100"))
            result = evaluate(CORPUS, "t", request, implementations=(name,))
            assert len(result.discrepancies) == diffs

    def test_raising_callable_is_a_finding(self) -> None:
        """A callable that raises gives an UNEXPECTED ``error`` field, not a crash."""
        def broken(hypotheses, references):
            raise RuntimeError("boom")

        name = register(wrap("impl:test:broken", broken, signature="tokens->score"))
        result = evaluate(CORPUS, "t", CLIP_MINIMAL | {"max_order": 4}, implementations=(name,))
        [d] = result.discrepancies
        assert d.field == "error" and "RuntimeError: boom" in d.library_value and d.unexpected

    def test_missing_max_order_not_representable(self) -> None:
        """A callable without max_order answers only max_order 4 requests."""
        name = register(wrap("impl:test:nomax", lambda h, r: 0.0, signature="tokens->score"))
        result = evaluate(CORPUS, "t", CLIP_MINIMAL, implementations=(name,))
        assert "max_order=1" in result.not_representable[name]

    def test_stats_signature(self) -> None:
        """tokens->stats: clipped matches, totals and lengths compared exactly; unclipped
        matches on CLIP_MINIMAL are 2 where the card has 1."""
        from collections import Counter

        def stats(hypotheses, references, max_order=4, clip=True):
            matches, totals, c, r = [0] * max_order, [0] * max_order, 0, 0
            for hyp, refs in zip(hypotheses, references):
                c += len(hyp)
                r += min((len(x) for x in refs), key=lambda n: (abs(n - len(hyp)), n))
                for n in range(1, max_order + 1):
                    counts = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
                    best: Counter[tuple[str, ...]] = Counter()
                    for ref in refs:
                        best |= Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
                    matches[n - 1] += sum(min(k, best[g]) if clip else k * (g in best)
                                          for g, k in counts.items())
                    totals[n - 1] += sum(counts.values())
            return {"counts": matches, "totals": totals, "sys_len": c, "ref_len": r}

        good = register(wrap("impl:test:stats", stats, signature="tokens->stats"))
        bad = register(wrap("impl:test:stats-unclipped",
                            lambda h, r, max_order=4: stats(h, r, max_order, clip=False),
                            signature="tokens->stats"))
        for k in range(40):
            case = generate_case(5, CORPUS, k)
            assert evaluate(CORPUS, "t", case.request, implementations=(good,)).discrepancies == []
        [d] = evaluate(CORPUS, "t", CLIP_MINIMAL, implementations=(bad,)).discrepancies
        assert (d.field, d.card_value, d.library_value, d.unexpected) == ("matches", [1], [2], True)

    def test_stats_to_score_signature(self) -> None:
        """stats->score without smoothing parameters: the card's unsmoothed formula (mean of
        ln(m_n/l_n) over the orders, SPEC.md §2) is identical; smoothed requests are not
        representable; NLTK-like math.fsum of pre-weighted logs is reproduced by NLTK's dialect
        where it differs."""
        def score(matches, totals, candidate_length, reference_length, fsum=False):
            c, r = candidate_length, reference_length
            if c == 0 or matches[0] == 0 or any(t == 0 or m == 0 for m, t in zip(matches, totals)):
                return 0.0
            bp = 1.0 if c > r else math.exp(1 - r / c)
            if fsum:
                return bp * math.exp(math.fsum((1 / len(matches)) * math.log(m / t)
                                               for m, t in zip(matches, totals)))
            log_sum = 0.0
            for m, t in zip(matches, totals):
                log_sum += math.log(m / t)
            return bp * math.exp(log_sum / len(matches))

        good = register(wrap("impl:test:from-stats", score, signature="stats->score"))
        nltkish = register(wrap("impl:test:from-stats-fsum", lambda *a: score(*a, fsum=True),
                                signature="stats->score"))
        seen = {"identical": 0, "not_representable": 0}
        entries: set[tuple[str, ...]] = set()
        for k in range(150):
            request = generate_case(1, SMOOTHING, k).request
            result = evaluate(SMOOTHING, "t", request, implementations=(good, nltkish))
            assert not [d for d in result.discrepancies if d.implementation == good], request
            seen["not_representable" if good in result.not_representable else "identical"] += 1
            for d in result.discrepancies:
                assert not d.unexpected, (request, d)
                entries.add(d.entries)
        assert seen["identical"] > 10 and seen["not_representable"] > 10
        assert ("NLTK-FLOAT-ORDER-SMOOTHING",) in entries

    def test_implementation_object_spec(self) -> None:
        """An Implementation object at MODULE:NAME keeps its own signature and scale."""
        obj = Implementation("x", lambda h, r: 50.0, "tokens->score", "0-100")
        impl = wrap("impl:obj", obj)
        assert (impl.name, impl.scale, impl.signature) == ("impl:obj", "0-100", "tokens->score")


class TestCrosscheckCli:
    def test_flawed_unexpected_with_minimal_reproducer(self, tmp_path: Path) -> None:
        """crosscheck --impl examples/flawed_bleu.py:bleu exits 1 and reports the planted flaw
        UNEXPECTED, shrunk to CLIP_MINIMAL, with the command that shows it."""
        proc = _run("crosscheck", "--impl", FLAWED, "--cases", "80", "--no-real", "--workers", "1",
                    "--no-progress", "--no-html", "--out", str(tmp_path))
        assert proc.returncode == 1, proc.stdout + proc.stderr
        report = json.loads((tmp_path / "crosscheck.json").read_text())
        assert report["implementations"] == ["impl:" + FLAWED]
        assert list(report["cases"]) == [CORPUS]
        row = report["summary"][CORPUS]["impl:" + FLAWED]
        assert row["unexpected"] > 0
        reproducers = {json.dumps(u["reproducer"], sort_keys=True) for u in report["unexpected"]}
        assert reproducers == {json.dumps(CLIP_MINIMAL, sort_keys=True)}
        command = report["unexpected"][0]["command"]
        assert command.startswith(f"bleu-compat explain {CORPUS} --impl {FLAWED} <<'EOF'")
        body = command.split("\n")[1]
        explained = _run("explain", CORPUS, "--impl", FLAWED, "--format", "json", stdin=body)
        assert explained.returncode == 1
        [impl] = json.loads(explained.stdout)["implementations"]
        assert impl["verdict"] == "UNEXPECTED"

    def test_correct_identical(self, tmp_path: Path) -> None:
        """crosscheck --impl examples/correct_bleu.py:bleu, real corpora included: every case
        identical, exit 0; on the real corpora its BLEU equals the truth's."""
        proc = _run("crosscheck", "--impl", CORRECT, "--cases", "60", "--workers", "1",
                    "--no-progress", "--no-html", "--out", str(tmp_path))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        report = json.loads((tmp_path / "crosscheck.json").read_text())
        row = report["summary"][CORPUS]["impl:" + CORRECT]
        assert row == {"agree": 60, "explained": 0, "unexpected": 0, "not_representable": 0}
        assert len(report["real"]) == 3
        for real in report["real"]:
            assert real["scores"]["impl:" + CORRECT] == real["scores"]["truth"]

    def test_floor_is_a_finding_named_by_its_entry(self, tmp_path: Path) -> None:
        """The NLTK-like floor is a known dialect, but the card is the target: a finding (exit 1)
        named NLTK-DENOMINATOR-FLOOR, never UNEXPECTED; --allow accepts it (exit 0, the cases
        counted as explained)."""
        proc = _run("crosscheck", "--impl", FLOOR, "--cases", "60", "--no-real", "--workers", "1",
                    "--no-progress", "--no-html", "--out", str(tmp_path))
        assert proc.returncode == 1, proc.stdout + proc.stderr
        report = json.loads((tmp_path / "crosscheck.json").read_text())
        assert report["unexpected_count"] == 0 and report["findings_count"] > 0
        assert {tuple(u["entries"]) for u in report["findings"]} == {("NLTK-DENOMINATOR-FLOOR",)}
        assert report["judging"]["impl:" + FLOOR]["named"]["library"] == "nltk"
        proc = _run("crosscheck", "--impl", FLOOR, "--cases", "60", "--no-real", "--workers", "1",
                    "--no-progress", "--no-html", "--out", str(tmp_path),
                    "--allow", "NLTK-DENOMINATOR-FLOOR")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        report = json.loads((tmp_path / "crosscheck.json").read_text())
        assert "NLTK-DENOMINATOR-FLOOR" in report["entries"]
        assert report["summary"][CORPUS]["impl:" + FLOOR]["explained"] > 0
        assert report["judging"]["impl:" + FLOOR]["allowed"] == ["NLTK-DENOMINATOR-FLOOR"]
