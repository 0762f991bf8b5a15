"""The "BLEU up to bigrams" text protocol (SPEC.md §6): bleu_compat.bigram and ``bleu-compat bigram``.

Expected scores are derived by hand: for "the cat sat on the mat" against "the cat is
on the mat", p1 = 5/6 and p2 = 3/5, BP = 1 (c = r = 6), so the score is
sqrt(5/6 * 3/5) = sqrt(1/2) = 0.70710678..., printed 0.7071. The exercise's printed
0.6687 is an erratum (SPEC.md §6).
"""

from __future__ import annotations

import io
import math

import mpmath
import pytest

from bleu_compat.bigram import BigramInputError, bigram_bleu, parse_bigram_input, run_bigram_protocol
from bleu_compat.cli import main


class TestBigramBleu:
    """``bigram_bleu`` is corpus BLEU with max_order 2 on one segment."""

    def test_worked_example(self) -> None:
        """sqrt(5/6 * 3/5) = sqrt(1/2) (mpmath), not the exercise's 0.6687."""
        got = bigram_bleu("the cat sat on the mat".split(), ["the cat is on the mat".split()])
        with mpmath.workdps(40):
            truth = float(mpmath.sqrt(mpmath.mpf(1) / 2))
        assert abs(got - truth) <= 4 * math.ulp(truth)
        assert round(got, 4) == 0.7071 != 0.6687

    def test_one_word(self) -> None:
        """A one-word candidate has no bigram: 0.0."""
        assert bigram_bleu(["the"], [["the"]]) == 0.0

    def test_brevity(self) -> None:
        """'the cat' vs 'the cat sat': p1 = p2 = 1, BP = exp(1 - 3/2)."""
        assert bigram_bleu(["the", "cat"], [["the", "cat", "sat"]]) == math.exp(1 - 3 / 2)


class TestParse:
    """``parse_bigram_input`` reads candidate, R and R references."""

    def test_parse(self) -> None:
        """Whitespace-separated words; blank trailing lines are fine; CRLF is accepted."""
        assert parse_bigram_input("a b\r\n2\r\nc d\r\n\r\n\n") == (["a", "b"], [["c", "d"], []])

    @pytest.mark.parametrize(
        "text",
        ["", "\n", "   \n1\na\n", "a b", "a b\n0\na\n", "a b\n-1\na\n", "a b\nabc\na\n", "a b\n2\nc\n",
         "a b\n1.5\nc\n", "a b\n\u0662\nc d\ne f\n", "a b\n1\nc\nextra\n"],
    )
    def test_bad(self, text: str) -> None:
        """Missing lines, R not a positive integer, too few references, empty candidate, extra text."""
        with pytest.raises(BigramInputError):
            parse_bigram_input(text)

    def test_run(self) -> None:
        """The protocol's output line is str(round(score, 4))."""
        assert run_bigram_protocol("the cat sat on the mat\n1\nthe cat is on the mat\n") == "0.7071"


def _run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: bytes
             ) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main(["bigram"])
    out, err = capsys.readouterr()
    return code, out, err


class TestBigramCommand:
    """``bleu-compat bigram`` reads standard input, prints one line, exits 0; bad input → stderr, exit 2."""

    @pytest.mark.parametrize(
        ("data", "expected"),
        [
            (b"the cat sat on the mat\n1\nthe cat is on the mat\n", "0.7071\n"),
            (b"the cat sat on the mat\n1\nthe cat sat on the mat\n", "1.0\n"),
            (b"the\n1\nthe cat\n", "0.0\n"),
            (b"the cat sat on the mat\n2\nthe cat is on the mat\nthe cat sat on the mat\n", "1.0\n"),
            (b"the cat sat on the mat\n1\nthe cat is on the mat", "0.7071\n"),
        ],
    )
    def test_scores(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                    data: bytes, expected: str) -> None:
        """Worked example 0.7071 (erratum: not 0.6687), perfect 1.0, one word 0.0, no final newline."""
        code, out, err = _run_cli(monkeypatch, capsys, data)
        assert (code, out, err) == (0, expected, "")

    @pytest.mark.parametrize(
        "data",
        [b"", b"the cat\n", b"the cat\n0\nthe cat\n", b"the cat\nabc\nthe cat\n", b"the cat\n3\na\nb\n",
         b"\n1\nthe cat\n", b"the cat\n1\n\xff\xfe\n"],
        ids=["empty", "missing-R", "R=0", "R=abc", "fewer-lines", "empty-candidate", "not-utf8"],
    )
    def test_bad_input(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                       data: bytes) -> None:
        """Each bad input: one line on standard error, nothing on standard output, exit 2."""
        code, out, err = _run_cli(monkeypatch, capsys, data)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("bleu-compat bigram: ")
        assert "Traceback" not in err
