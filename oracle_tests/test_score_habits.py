"""Command-line habits (issue 23): no abbreviations, options between positionals, one -i,
sacreBLEU's -w, a signature that records what changes the number, one-line usage errors.

Expected values: the real ``sacrebleu`` command's output where it has the option
(``-w 17``, ``-l``), the text of the signature as sacreBLEU writes it
(``floor[0.10]``: sacrebleu/metrics/bleu.py ``BLEUSignature``, ``f'[{v:.2f}]'``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import bleu_compat
from bleu_compat.cli import main

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF = str(WMT17 / "ref.A.txt")
SYS = str(WMT17 / "sys.uedin-nmt.4722.txt")
NLTK = ROOT / "fixtures" / "real" / "nltk-wmt15-100"
HYP_TOK = str(NLTK / "sys.google.tok.txt")
REF_TOK = str(NLTK / "ref.A.tok.txt")
V = bleu_compat.__version__


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class TestNoAbbreviations:
    def test_dash_l_is_not_dash_lc(self, capsys) -> None:
        """`-l` is sacreBLEU's language pair, never an abbreviation of -lc: `-l -b` is missing
        its value (one line, exit 2), not a lowercased score."""
        code, out, err = _run(capsys, "score", REF, "-i", SYS, "-l", "-b")
        assert code == 2 and out == ""
        assert err.startswith("bleu-compat score: argument -l/--language-pair: expected one "
                              "argument") and err.count("\n") == 1

    def test_dash_l_pair_is_a_language_pair_not_a_file(self, capsys) -> None:
        """`-l en-de` changes nothing for a German target (sacreBLEU's default stays 13a)."""
        assert _run(capsys, "score", REF, "-i", SYS, "-l", "en-de", "-b")[:2] == (0, "28.3\n")
        assert _run(capsys, "score", REF, "-i", SYS, "-lc", "-b")[:2] == (0, "28.9\n")

    @pytest.mark.parametrize("argv", [["score", REF, "-i", SYS, "--low"],
                                      ["score", REF, "-i", SYS, "--max", "3"],
                                      ["crosscheck", "--work", "2"], ["gate", "--baseline", "x.json", "--upd"],
                                      ["tools", "--js"], ["catalog", "--form", "json"]])
    def test_every_command_refuses_abbreviations(self, capsys, argv: list[str]) -> None:
        code, out, err = _run(capsys, *argv)
        assert code == 2 and "unexpected argument" in err and err.count("\n") == 1


class TestOptionsBetweenPositionals:
    def test_explain_tool_format_file(self, capsys, tmp_path: Path) -> None:
        """`explain TOOL --format json FILE` (was refused: options before a positional)."""
        request = tmp_path / "r.json"
        request.write_text(json.dumps({"segments": [{"candidate_length": 3,
                                                      "reference_lengths": [4]}]}))
        code, out, _ = _run(capsys, "explain", "bleu-brevity-penalty", "--format", "json",
                            str(request))
        assert code == 0 and json.loads(out)["tool"] == "bleu-brevity-penalty"

    def test_card_score_hyp_option_ref(self, capsys) -> None:
        """`card-score HYP --max-order 2 REF`: the option between the two files."""
        a = _run(capsys, "card-score", HYP_TOK, "--max-order", "2", REF_TOK)
        b = _run(capsys, "card-score", HYP_TOK, REF_TOK, "--max-order", "2")
        assert a[0] == 0 and a == b

    def test_score_ref_option_ref_dash_i(self, capsys) -> None:
        """Two references with an option between them, then -i (sacreBLEU's order)."""
        a = _run(capsys, "score", REF, "-lc", REF, "-i", SYS, "-b")
        assert a[:2] == (0, "100.0\n") or a[0] == 0
        assert _run(capsys, "score", REF, REF, "-lc", "-i", SYS, "-b")[:2] == a[:2]


class TestInput:
    def test_dash_i_takes_several_systems(self, capsys) -> None:
        code, out, _ = _run(capsys, "score", REF, "-i", SYS, REF)
        rows = json.loads(out)
        assert code == 0 and [r["system"] for r in rows] == [SYS, REF]

    def test_a_repeated_dash_i_is_refused_never_dropped(self, capsys) -> None:
        """`-i a -i b` once scored b alone; sacreBLEU also keeps only the last. Refused: one line."""
        code, out, err = _run(capsys, "score", REF, "-i", SYS, "-i", REF)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert "-i given twice: give every system after one -i (-i A B)" in err

    def test_the_same_system_twice_is_refused(self, capsys) -> None:
        code, _, err = _run(capsys, "score", REF, "-i", SYS, SYS)
        assert code == 2 and "given twice as a system" in err


class TestRepeatedOwnOptions:
    """bleu-compat's own options given twice never drop the first silently."""

    @staticmethod
    def _configurations(out: str) -> list[str]:
        table = out.split("  configuration ", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
        return [row.split()[0] for row in table if not row.split()[0].endswith(":")]

    @pytest.mark.parametrize("argv, expected", [
        (["--compare", "card", "--compare", "nltk:lc"], ["card", "nltk:lc"]),
        (["--compare", "nltk", "nltk"], ["nltk"]),
        (["--compare", "--compare", "nltk:lc"], ["sacrebleu", "nltk", "card", "nltk:lc"]),
        (["--compare", "nltk", "--config", "card", "--config", "nltk"], ["nltk", "card"]),
    ])
    def test_every_compare_adds(self, capsys, argv: list[str], expected: list[str]) -> None:
        """Each --compare adds its configurations (an empty one the default set); a
        configuration named twice is compared once."""
        code, out, err = _run(capsys, "score", REF, "-i", SYS, *argv)
        assert code == 0, err
        assert self._configurations(out) == expected

    @pytest.mark.parametrize("flag, values", [
        ("--max-order", ("3", "2")), ("--html", ("a.html", "b.html")),
        ("--segments", ("a.jsonl", "b.jsonl")), ("--cluster", ("local:1", "local:2")),
    ])
    def test_a_one_value_option_given_twice_is_refused(self, capsys, tmp_path: Path, flag: str,
                                                       values: tuple[str, str]) -> None:
        extra = ["--compare"] if flag == "--html" else []
        first, second = (str(tmp_path / v) if "." in v and ":" not in v else v for v in values)
        code, out, err = _run(capsys, "score", REF, "-i", SYS, *extra, flag, first, flag, second)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"{flag} given twice" in err
        assert not any(tmp_path.iterdir())  # nothing written


class TestWidthAndUsageErrors:
    def test_width_17_as_sacrebleu(self, capsys) -> None:
        """`-w 17` is accepted (sacreBLEU's width is any int Python's format takes): the digits
        of the real sacreBLEU's score."""
        import sacrebleu

        with open(SYS, encoding="utf-8") as h, open(REF, encoding="utf-8") as r:
            real = sacrebleu.corpus_bleu([x.rstrip() for x in h], [[x.rstrip() for x in r]])
        code, out, _ = _run(capsys, "score", REF, "-i", SYS, "-w", "17", "-b")
        assert code == 0 and out == f"{real.score:.17f}\n" == "28.30122508828329586\n"

    @pytest.mark.parametrize("argv, words", [
        (["--max-order", "abc"], "argument --max-order: must be a whole number from 1 to 8; got 'abc'"),
        (["-w", "1e400"], "argument -w/--width/--decimals: invalid int value: '1e400'"),
        (["-w", "101"], "-w 101: must be between 0 and 100"),
        (["-s", "bogus"], "argument -s/--smooth-method: invalid choice: 'bogus'"),
        (["-sv", "nan", "-s", "floor"], "-sv/--smooth-value nan: must be a finite number"),
        (["-m", "chrf"], "-m/--metrics chrf: bleu-compat computes BLEU only"),
        (["-m", "bleu", "ter"], "-m/--metrics ter: bleu-compat computes BLEU only"),
        (["-m", "bogus"], "argument -m/--metrics: invalid choice: 'bogus'"),
        (["-e", "no-such-codec"], "-e/--encoding no-such-codec: unknown encoding"),
        (["-e", "rot13"], "-e/--encoding rot13: 'rot13' is not a text encoding"),
        (["-cin", "x", "-ci"], "argument -cin/--confidence-n: invalid int value: 'x'"),
        (["--paired-bs", "--paired-ar"], "not allowed with argument"),
        (["--paired-bs"], "paired tests require multiple input systems"),
        (["-nr", "0"], "-nr/--num-refs 0: give the number of tab-separated references"),
        (["-i", SYS], "-i given twice"),
        (["-cc", "4"], "-cc/--chrf-char-order: sacreBLEU's option is not supported here"),
        (["--chrf-beta", "3"], "--chrf-beta: sacreBLEU's option is not supported here"),
        (["--ter-normalized"], "--ter-normalized: sacreBLEU's option is not supported here"),
    ])
    def test_usage_errors_are_one_line(self, capsys, argv: list[str], words: str) -> None:
        code, out, err = _run(capsys, "score", REF, "-i", SYS, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err


class TestSignature:
    @pytest.mark.parametrize("argv, smooth", [
        (["-s", "floor"], "floor[0.10]"), (["-s", "floor", "-sv", "0.25"], "floor[0.25]"),
        (["-s", "add-k"], "add-k[1.00]"), (["-s", "exp"], "exp"), (["-s", "none"], "none"),
    ])
    def test_smoothing_value_as_sacrebleu_writes_it(self, capsys, argv, smooth) -> None:
        """The card's signature and sacreBLEU's both carry floor's and add-k's value."""
        code, out, _ = _run(capsys, "card-score", HYP_TOK, REF_TOK, *argv)
        assert code == 0 and f"|smooth:{smooth}|bleu-compat:{V}\n" in out
        code, out, _ = _run(capsys, "score", REF_TOK, "-i", HYP_TOK, *argv)
        assert code == 0 and json.loads(out)["smooth"] == smooth

    def test_max_order_is_recorded(self, capsys) -> None:
        """--max-order 2 changes the number, so the signature says order:2 (4 is the default)."""
        code, out, _ = _run(capsys, "card-score", HYP_TOK, REF_TOK, "--max-order", "2")
        assert code == 0 and f"|smooth:none|order:2|bleu-compat:{V}\n" in out
        code, out, _ = _run(capsys, "score", REF_TOK, "-i", HYP_TOK, "--max-order", "2")
        doc = json.loads(out)
        assert doc["order"] == "2" and doc["signature"].endswith(f"|order:2|version:2.6.0|bleu-compat:{V}")
        assert len(doc["verbose_score"].split(" ")[0].split("/")) == 2


class TestRoles:
    def test_hyp_ref_prints_the_roles(self, capsys) -> None:
        """card-score says which file it took for which role (issue 23: `score REF HYP`
        printed a plausible wrong number with nothing to tell)."""
        code, out, _ = _run(capsys, "card-score", REF_TOK, HYP_TOK)
        assert code == 0
        assert f"hypothesis: {REF_TOK}; reference: {HYP_TOK}" in out.splitlines()[1]


def test_help_runs_for_every_command() -> None:
    """No parser is broken by allow_abbrev or intermixed parsing."""
    from bleu_compat.cli import COMMANDS

    for name, _, _ in COMMANDS:
        done = subprocess.run([sys.executable, "-m", "bleu_compat", name, "--help"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "usage:" in done.stdout, name
