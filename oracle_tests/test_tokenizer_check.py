"""The run-time check (issue 20): a sacreBLEU whose tokenizer lost a rule is reported, not explained.

A copy of sacreBLEU whose 13a drops the digit-dash rule (``3-4`` stays one token) is
planted by monkeypatching its rule table in this process; ``score --compare`` and the
crosscheck's real corpora must then be UNEXPECTED (exit 1), naming the first line whose
tokens differ and both token lists. Without the plant, the same runs are clean.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sacrebleu")

REPO = Path(__file__).resolve().parent.parent
WMT17 = REPO / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF, SYS = str(WMT17 / "ref.A.txt"), str(WMT17 / "sys.uedin-nmt.4722.txt")


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """sacreBLEU's 13a without its fourth rule (a hyphen after a digit is not separated)."""
    from sacrebleu.tokenizers import tokenizer_re

    original = tokenizer_re.TokenizerRegexp.__init__

    def without_digit_dash(self) -> None:  # type: ignore[no-untyped-def]
        original(self)
        self._re = [(rx, repl) for rx, repl in self._re if rx.pattern != r"([0-9])(-)"]
        assert len(self._re) == 3

    monkeypatch.setattr(tokenizer_re.TokenizerRegexp, "__init__", without_digit_dash)


def _score(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from bleu_compat.cli import main

    status = main(["score", *argv])
    return status, capsys.readouterr().out


def test_planted_digit_dash_rule_makes_compare_exit_1(planted: None, capsys) -> None:
    """WMT17 with the planted tokenizer: exit 1, the first differing line named (line 1 of the
    system output: '28-jähriger'), both token lists, and the library's number not reproduced."""
    status, out = _score([REF, "-i", SYS, "--compare", "sacrebleu", "card"], capsys)
    assert status == 1
    line = next(x for x in out.splitlines() if "tokenizer differs" in x)
    assert line.startswith("UNEXPECTED sacreBLEU ")
    assert f"on line 1 of {SYS}" in line
    assert "sacreBLEU ['28-jähriger'," in line and "ours ['28', '-', 'jähriger'," in line
    assert "28.163323" in out  # the planted library's own number, printed as it is
    assert "not reproduced" in out


def test_planted_tokenizer_in_the_json_output(planted: None, capsys) -> None:
    status, out = _score([REF, "-i", SYS, "--compare", "sacrebleu", "card", "-f", "json"], capsys)
    assert status == 1
    doc = json.loads(out)
    mismatches = doc["systems"][0]["compare"]["token_mismatches"]
    assert len(mismatches) == 1 and doc["systems"][0]["compare"]["unexpected"] is True
    m = mismatches[0]
    assert (m["tokenizer"], m["line"], m["source"]) == ("13a", 1, SYS)
    assert m["library"] == "sacreBLEU" and m["library_tokens"][0] == "28-jähriger"
    assert m["ours"][:3] == ["28", "-", "jähriger"]


def test_planted_tokenizer_with_lowercase_and_a_neighbour_case(planted: None, tmp_path, capsys) -> None:
    """-lc, and a reference-only difference: the file and line named are the reference's."""
    (tmp_path / "hyp.txt").write_text("a b c\nthe cat\n", encoding="utf-8")
    (tmp_path / "ref.txt").write_text("a b c\nthe 3-4 cats\n", encoding="utf-8")
    status, out = _score([str(tmp_path / "ref.txt"), "-i", str(tmp_path / "hyp.txt"), "-lc",
                          "--compare", "sacrebleu:lc=yes", "card"], capsys)
    assert status == 1
    assert f"with -lc differs from ours (13a, for sacreBLEU " in out
    assert f"on line 2 of {tmp_path / 'ref.txt'}" in out


def test_without_the_plant_compare_is_clean(capsys) -> None:
    status, out = _score([REF, "-i", SYS, "--compare", "sacrebleu", "card"], capsys)
    assert status == 0 and "tokenizer differs" not in out


def test_crosscheck_real_corpora_report_the_planted_tokenizer(planted: None) -> None:
    """The crosscheck's real corpus WMT17 (run in this process): an UNEXPECTED 'tokens'
    discrepancy naming the line; the real record says the tokens differ."""
    from bleu_compat.harness.run import REAL_SETS, _run_real

    real = next(r for r in REAL_SETS if r.name == "wmt17-en-de-uedin-nmt")
    tally = _run_real(real, ("sacrebleu/as_called",), None)
    tokens = [d for d in tally.unexpected if d.field == "tokens"]
    assert len(tokens) == 1
    d = tokens[0]
    assert d.case_id == "real:wmt17-en-de-uedin-nmt" and d.implementation == "sacrebleu/as_called"
    assert d.library_value[0] == "28-jähriger" and d.card_value[:3] == ["28", "-", "jähriger"]
    assert "on line 1 of wmt17-en-de-uedin-nmt/sys.uedin-nmt.4722.txt" in d.request["token_check"]
    [check] = tally.real[-1]["token_checks"]
    assert check["same"] is False and check["library"] == "sacreBLEU"


def test_crosscheck_real_corpora_agree_without_the_plant() -> None:
    from bleu_compat.harness.run import REAL_SETS, _run_real

    real = next(r for r in REAL_SETS if r.name == "wmt17-en-de-uedin-nmt")
    tally = _run_real(real, ("sacrebleu/as_called",), None)
    assert not [d for d in tally.unexpected if d.field == "tokens"]
    [check] = tally.real[-1]["token_checks"]
    assert check["same"] is True and check["lines"] == 2 * 3004 and check["tokenizer"] == "13a"


def test_the_mismatch_message_cuts_long_lines_around_the_difference() -> None:
    from bleu_compat.tokenizers.check import TokenMismatch

    ours = tuple(f"w{k}" for k in range(100)) + ("3", "-", "4")
    theirs = tuple(f"w{k}" for k in range(100)) + ("3-4",)
    m = TokenMismatch("sacreBLEU", "13a", False, "2.6.0", "13a", "f.txt", 7, "...", ours, theirs)
    text = m.message()
    assert "line 7 of f.txt, first at token 101" in text
    assert "'3-4'" in text and "'3', '-', '4'" in text and "[..., " in text
    assert "(101 tokens)" in text and "(103 tokens)" in text
