"""A user's implementation returning NaN/±inf or a wrong type, and two Python API refusals.

Every bad return of a ``--impl`` callable is a finding (UNEXPECTED, exit 1), never an
internal error: NaN and ±infinity (Python or numpy floats, in the score, a mapping's
field or a statistics array) are replaced at the implementation boundary by the marker
``{"non_finite": "NaN" | "Infinity" | "-Infinity"}`` so nothing downstream compares,
measures in ULPs or writes a raw NaN. Expected values are the card's (bleu-corpus-compute
on ``REQUEST``: 3 of 3 unigrams ... 1 of 1 trigram, 0 of 0 four-grams: BLEU 0, BP 1).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy
import pytest

import bleu_compat
from bleu_compat.errors import InvalidInputError, ToolError, UnknownToolError
from bleu_compat.harness.classify import evaluate
from bleu_compat.implementations import non_finite, register, wrap

CORPUS = "bleu-corpus-compute"
SMOOTHING = "bleu-smoothing-compute"
REQUEST = {"hypotheses": [["a", "b", "c"]], "references": [[["a", "b", "c"]]]}
#: The card's output on REQUEST (SPEC §3: m = t = [3, 2, 1, 0]; a zero precision: BLEU 0).
CARD = {"candidate_length": 3, "reference_length": 3, "max_order": 4, "matches": [3, 2, 1, 0],
        "totals": [3, 2, 1, 0], "bleu": 0, "brevity_penalty": 1}
STATS_REQUEST = {"matches": [3, 2, 1, 0], "totals": [3, 2, 1, 0], "candidate_length": 3,
                 "reference_length": 3, "smoothing": "none"}

NON_FINITE = [
    (float("nan"), "NaN"), (float("inf"), "Infinity"), (float("-inf"), "-Infinity"),
    (numpy.float64("nan"), "NaN"), (numpy.float32("inf"), "Infinity"),
    (numpy.float64("-inf"), "-Infinity"), (math.inf * 0, "NaN"),
]


def _strict_json(data: Any) -> str:
    """JSON text, refusing NaN/Infinity (what every report must be)."""
    return json.dumps(data, allow_nan=False)


def _one(name: str, fn: Any, signature: str, request: dict[str, Any], tool: str = CORPUS) -> list[Any]:
    impl = register(wrap(name, fn, signature=signature))
    result = evaluate(tool, "t", request, implementations=(impl,))
    for d in result.discrepancies:
        _strict_json(d.to_json())  # never raises: no raw NaN left
    return result.discrepancies


class TestNonFiniteScore:
    @pytest.mark.parametrize(("value", "name"), NON_FINITE)
    def test_tokens_score(self, value: Any, name: str) -> None:
        """tokens->score returning NaN/±inf (float or numpy): UNEXPECTED bleu, the marker."""
        [d] = _one(f"impl:test:nf-{name}-{type(value).__name__}", lambda h, r: value,
                   "tokens->score", REQUEST)
        assert (d.field, d.card_value, d.unexpected) == ("bleu", 0, True)
        assert d.library_value == {"non_finite": name}
        assert d.ulps is None
        assert repr(d.library_value) == name

    @pytest.mark.parametrize(("value", "name"), NON_FINITE[:3])
    def test_tokens_score_0_100(self, value: float, name: str) -> None:
        """On the 0-100 scale the marker is not divided by 100."""
        impl = register(wrap(f"impl:test:nf100-{name}", lambda h, r: value,
                             signature="tokens->score", scale="0-100"))
        [d] = evaluate(CORPUS, "t", REQUEST, implementations=(impl,)).discrepancies
        assert d.library_value == {"non_finite": name} and d.unexpected

    @pytest.mark.parametrize(("value", "name"), NON_FINITE[:4])
    def test_stats_score(self, value: Any, name: str) -> None:
        """stats->score returning NaN/±inf: UNEXPECTED bleu."""
        [d] = _one(f"impl:test:snf-{name}-{type(value).__name__}", lambda m, t, c, r: value,
                   "stats->score", STATS_REQUEST, SMOOTHING)
        assert (d.field, d.card_value, d.library_value, d.unexpected) == (
            "bleu", 0, {"non_finite": name}, True)

    def test_mapping_field(self) -> None:
        """A mapping with a NaN brevity_penalty: that field UNEXPECTED with the marker, the
        finite bleu compared as usual (0.5 vs the card's 0)."""
        ds = _one("impl:test:map-nan", lambda h, r: {"bleu": 0.5, "brevity_penalty": math.nan},
                  "tokens->score", REQUEST)
        got = {d.field: d.library_value for d in ds}
        assert got == {"bleu": 0.5, "brevity_penalty": {"non_finite": "NaN"}}
        assert all(d.unexpected for d in ds)

    def test_finite_unchanged(self) -> None:
        """Neighbour: the largest finite double and a numpy 0.0 are numbers, not markers."""
        [d] = _one("impl:test:max", lambda h, r: sys.float_info.max, "tokens->score", REQUEST)
        assert d.library_value == sys.float_info.max and isinstance(d.ulps, int)
        assert _one("impl:test:np0", lambda h, r: numpy.float64(0.0), "tokens->score", REQUEST) == []

    def test_marker(self) -> None:
        """non_finite names the three values and refuses a finite one."""
        assert non_finite(math.nan) == {"non_finite": "NaN"}
        assert non_finite(math.inf) == {"non_finite": "Infinity"}
        assert non_finite(-math.inf) == {"non_finite": "-Infinity"}
        assert str(non_finite(-math.inf)) == "-Infinity"
        with pytest.raises(ValueError):
            non_finite(1e308)


def _stats(**over: Any) -> Any:
    base = {"matches": [3, 2, 1, 0], "totals": [3, 2, 1, 0], "candidate_length": 3,
            "reference_length": 3}
    return lambda h, r: base | over


class TestStatsReturns:
    @pytest.mark.parametrize(("over", "field", "shown"), [
        ({"matches": [math.inf, 2, 1, 0]}, "matches", [{"non_finite": "Infinity"}, 2, 1, 0]),
        ({"totals": [3, 2, 1, math.nan]}, "totals", [3, 2, 1, {"non_finite": "NaN"}]),
        ({"matches": numpy.array([3.0, 2.0, numpy.nan, 0.0])}, "matches",
         [3.0, 2.0, {"non_finite": "NaN"}, 0.0]),
        ({"candidate_length": -math.inf}, "candidate_length", {"non_finite": "-Infinity"}),
        ({"reference_length": numpy.float64("inf")}, "reference_length", {"non_finite": "Infinity"}),
        ({"matches": "abc"}, "matches", "abc"),
        ({"totals": "3210"}, "totals", "3210"),
        ({"matches": b"ab"}, "matches", b"ab"),
        ({"matches": 3}, "matches", 3),
        ({"matches": {"a": 1}}, "matches", {"a": 1}),
    ])
    def test_wrong_values_reported_as_returned(self, over: dict[str, Any], field: str,
                                               shown: Any) -> None:
        """A non-finite count is the marker; a string (or another non-list) where a list
        of counts is expected is a wrong type, kept as returned, not its characters."""
        impl = register(wrap(f"impl:test:stats-{field}-{shown!r}", _stats(**over),
                             signature="tokens->stats"))
        result = evaluate(CORPUS, "t", REQUEST, implementations=(impl,))
        [d] = result.discrepancies
        assert (d.field, d.card_value, d.library_value, d.unexpected) == (
            field, CARD[field], shown, True)
        if not isinstance(shown, bytes):
            _strict_json(d.to_json())

    def test_numpy_counts_still_compared(self) -> None:
        """Neighbour: numpy integer arrays are counts, identical to the card."""
        impl = register(wrap("impl:test:stats-np", _stats(matches=numpy.array([3, 2, 1, 0])),
                             signature="tokens->stats"))
        assert evaluate(CORPUS, "t", REQUEST, implementations=(impl,)).discrepancies == []


class TestAssertParity:
    @pytest.mark.parametrize("value", [math.nan, math.inf, numpy.float64("nan")])
    def test_assertion_error(self, value: Any) -> None:
        """assert_bleu_parity fails with an AssertionError naming the value, not ValueError."""
        from bleu_compat.testing import assert_bleu_parity

        def returns(hypotheses: Any, references: Any) -> Any:
            return value

        with pytest.raises(AssertionError, match=r'bleu: yours \{"non_finite":"(NaN|Infinity)"\}'):
            assert_bleu_parity(returns, "tokens->score", scale="0-1", max_examples=5)

    def test_stats_inf(self) -> None:
        from bleu_compat.testing import assert_bleu_parity

        def stats(hypotheses: Any, references: Any) -> Any:
            return {"matches": [math.inf] * 4, "totals": [0] * 4, "candidate_length": 0,
                    "reference_length": 0}

        with pytest.raises(AssertionError, match="Infinity"):
            assert_bleu_parity(stats, "tokens->stats", max_examples=5)


ROOT = Path(__file__).resolve().parent.parent

IMPLS = textwrap.dedent('''
    import math
    import numpy

    def _declare(signature):
        def mark(fn):
            fn.bleu_compat = {"signature": signature, "scale": "0-1"}
            return fn
        return mark

    @_declare("tokens->score")
    def nan(hypotheses, references):
        return float("nan")

    @_declare("tokens->score")
    def npinf(hypotheses, references):
        return numpy.float64("-inf")

    @_declare("stats->score")
    def snan(matches, totals, candidate_length, reference_length):
        return math.inf

    @_declare("tokens->stats")
    def stinf(hypotheses, references):
        return {"matches": [math.inf] * 4, "totals": [0] * 4, "candidate_length": 0,
                "reference_length": 0}
''')


@pytest.fixture(scope="module")
def impl_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("impls") / "nanret.py"
    path.write_text(IMPLS)
    return path


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def _no_nan(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"JSON holds {name}")
    return json.loads(text, parse_constant=refuse)


class TestCli:
    @pytest.mark.parametrize(("fn", "tool", "request_", "field", "name"), [
        ("nan", CORPUS, REQUEST, "bleu", "NaN"),
        ("npinf", CORPUS, REQUEST, "bleu", "-Infinity"),
        ("snan", SMOOTHING, STATS_REQUEST, "bleu", "Infinity"),
        ("stinf", CORPUS, REQUEST, "matches", "Infinity"),
    ])
    def test_explain(self, impl_file: Path, fn: str, tool: str, request_: dict[str, Any],
                     field: str, name: str) -> None:
        """explain --impl: UNEXPECTED, exit 1, the value readable in text and marked in JSON."""
        spec = f"{impl_file}:{fn}"
        text = _run("explain", tool, "--impl", spec, stdin=json.dumps(request_))
        assert text.returncode == 1, text.stdout + text.stderr
        assert "internal error" not in text.stderr
        assert "UNEXPECTED" in text.stdout and f'"non_finite":"{name}"' in text.stdout
        js = _run("explain", tool, "--impl", spec, "--format", "json", stdin=json.dumps(request_))
        assert js.returncode == 1, js.stdout + js.stderr
        [impl] = _no_nan(js.stdout)["implementations"]
        assert impl["verdict"] == "UNEXPECTED"
        assert f'{{"non_finite": "{name}"}}' in json.dumps(impl)

    def test_crosscheck_reports(self, impl_file: Path, tmp_path: Path) -> None:
        """crosscheck --impl returning NaN: exit 1, every report written, strict JSON, the
        value shown in Markdown, JUnit and HTML; real corpora included."""
        proc = _run("crosscheck", "--impl", f"{impl_file}:nan", "--cases", "3", "--invalid", "0",
                    "--workers", "1", "--no-progress", "--out", str(tmp_path))
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "got NaN" in proc.stdout
        report = _no_nan((tmp_path / "crosscheck.json").read_text())
        assert report["unexpected"]
        assert {json.dumps(u["library_value"]) for u in report["unexpected"]} == {
            '{"non_finite": "NaN"}'}
        assert any(u["case_id"].startswith("real:") for u in report["unexpected"])
        assert all(r["scores"][f"impl:{impl_file}:nan"] is None for r in report["real"])
        assert '{"non_finite": "NaN"}' in (tmp_path / "crosscheck.md").read_text()
        assert "got NaN" in (tmp_path / "crosscheck.junit.xml").read_text()
        assert "non_finite" in (tmp_path / "crosscheck.html").read_text()

    def test_crosscheck_stats_inf(self, impl_file: Path, tmp_path: Path) -> None:
        proc = _run("crosscheck", "--impl", f"{impl_file}:stinf", "--cases", "3", "--invalid", "0",
                    "--no-real", "--workers", "1", "--no-progress", "--no-html", "--out", str(tmp_path))
        assert proc.returncode == 1, proc.stdout + proc.stderr
        report = _no_nan((tmp_path / "crosscheck.json").read_text())
        assert any(u["field"] == "matches" and {"non_finite": "Infinity"} in u["library_value"]
                   for u in report["unexpected"])

    def test_gate(self, impl_file: Path, tmp_path: Path) -> None:
        """gate --impl returning ±inf from stats->score: fails (exit 1), JSON strict."""
        baseline = tmp_path / "baseline.json"
        baseline.write_text((ROOT / "reports" / "baseline.json").read_text())
        proc = _run("gate", "--baseline", str(baseline), "--impl", f"{impl_file}:snan",
                    "--format", "json")
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "internal error" not in proc.stderr
        _no_nan(proc.stdout)


class TestUnknownTool:
    @pytest.mark.parametrize("tool_id", ["nope", "", "BLEU-CORPUS-COMPUTE", "bleu-corpus-compute ",
                                         None, 3, ["bleu-corpus-compute"]])
    def test_execute(self, tool_id: Any) -> None:
        """execute on an unknown tool: ToolError not_found (what CLI and HTTP answer), path
        "", before the request is looked at; still a KeyError for old callers."""
        for request in ({}, "not json", REQUEST):
            with pytest.raises(ToolError) as info:
                bleu_compat.execute(tool_id, request)
            err = info.value
            assert isinstance(err, UnknownToolError) and isinstance(err, KeyError)
            assert err.to_dict()["error"]["code"] == "not_found"
            assert err.path == "" and "known tools: bleu-corpus-compute" in err.message

    def test_card_and_validate(self) -> None:
        for call in (lambda: bleu_compat.card("nope"),
                     lambda: bleu_compat.validate_request("nope", {})):
            with pytest.raises(ToolError) as info:
                call()
            assert info.value.code == "not_found"

    def test_known_tool_unchanged(self) -> None:
        """Neighbour: a known tool with a bad request is still invalid_input."""
        with pytest.raises(ToolError) as info:
            bleu_compat.execute(CORPUS, {})
        assert info.value.code == "invalid_input"


class TestStringsAsTokenLists:
    @pytest.mark.parametrize(("hypotheses", "references", "where"), [
        (["a b"], [["a b"]], "hypothesis 0"),
        ("a b", [[["a"]]] * 3, "hypotheses"),
        ([["a"]], "a", "references"),
        ([["a"]], ["a b"], "references of segment 0"),
        ([["a"]], [["a b"]], "reference 0 of segment 0"),
        ([["a"], ["b"]], [[["a"]], [["b"], "b c"]], "reference 1 of segment 1"),
        ([["a"], "b"], [[["a"]], [["b"]]], "hypothesis 1"),
        ([b"ab"], [[["a"]]], "hypothesis 0"),
        ([("a",), ""], [[("a",)], [()]], "hypothesis 1"),
    ])
    def test_refused(self, hypotheses: Any, references: Any, where: str) -> None:
        """A str where a token list is expected is InvalidInputError saying tokens are lists
        of strings, in every public function taking token lists."""
        from bleu_compat.stats import corpus_stats, corpus_stats_iter, per_segment_stats

        calls = [lambda: bleu_compat.corpus_bleu(hypotheses, references),
                 lambda: corpus_stats(hypotheses, references),
                 lambda: per_segment_stats(hypotheses, references)]
        if len(hypotheses) == len(references) and not isinstance(hypotheses, str):
            calls.append(lambda: corpus_stats_iter(zip(hypotheses, references)))
        for call in calls:
            with pytest.raises(InvalidInputError, match="tokens are lists of strings") as info:
                call()
            assert str(info.value).startswith(where)

    @pytest.mark.parametrize(("hypothesis", "references"), [
        ("a b", [["a", "b"]]), (["a"], "a"), (["a"], ["a"]), (["a"], [["a"], "a"])])
    def test_segment_stats(self, hypothesis: Any, references: Any) -> None:
        with pytest.raises(InvalidInputError, match="tokens are lists of strings"):
            bleu_compat.segment_stats(hypothesis, references)

    def test_token_lists_accepted(self) -> None:
        """Neighbours: lists and tuples of strings, and empty lists, still score; the
        README example gives its published value (BLEU-2 = sqrt(5/6 * 3/5), BP 1)."""
        r = bleu_compat.corpus_bleu([["the", "cat", "sat", "on", "the", "mat"]],
                                    [[["the", "cat", "is", "on", "the", "mat"]]], max_order=2)
        assert r.bleu == math.sqrt(5 / 6 * 3 / 5) or r.bleu == math.exp(
            (math.log(5 / 6) + math.log(3 / 5)) / 2)
        assert (r.stats.matches, r.stats.totals) == ((5, 3), (6, 5))
        t = bleu_compat.corpus_bleu([("a", "b")], [(("a", "b"),)], max_order=2)
        assert t.stats.matches == (2, 1) and t.bleu == 1.0
        e = bleu_compat.corpus_bleu([[]], [[[]]])
        assert e.stats.totals == (0, 0, 0, 0)
