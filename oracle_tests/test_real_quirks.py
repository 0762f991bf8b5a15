"""The real-data quirks of ``shared/real/SOURCES.md`` ("Data quirks worth a test"), each tested.

Small cuts of the real lines live in ``fixtures/real/quirks/`` (see its
SOURCE.md: source file and line of each), so the first test of each quirk
runs without ``../shared``; the full-file checks use the ``shared_dir``
fixture and skip with a reason when ``../shared`` is absent. Expected token
lists are written out by hand from the bytes of the lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bleu_compat.cli import main
from bleu_compat.corpus_io import read_lines
from bleu_compat.tokenizers import tokenize_lines

Q = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "quirks"


def score(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any], list[dict[str, Any]], str]:
    """Run ``score ... --json --segments`` (bleu-compat's JSON document); return (code, system row, segments, stderr)."""
    segs = tmp_path / "segs.jsonl"
    code = main(["score", *argv, "--json", "--segments", str(segs)])
    out, err = capsys.readouterr()
    row = json.loads(out)["systems"][0] if code == 0 else {}
    objs = [json.loads(x) for x in segs.read_text("utf-8").splitlines()] if code == 0 else []
    return code, row, objs, err


class TestBom:
    """wmt17 en-de sys.online-A.0.txt line 1 starts with U+FEFF (bytes EF BB BF) before "28"."""

    def test_fixture_bytes(self):
        """The cut really starts with the UTF-8 BOM."""
        assert (Q / "bom.sys.online-A.txt").read_bytes().startswith(b"\xef\xbb\xbf28 Jahre")

    def test_bom_is_kept_in_the_first_token(self):
        """13a (sacreBLEU's) and whitespace splitting both keep it: the first token is '\\ufeff28'."""
        lines = read_lines(Q / "bom.sys.online-A.txt").lines
        assert tokenize_lines(lines, "13a")[0][:3] == ["\ufeff28", "Jahre", "alt"]
        assert tokenize_lines(lines, "none")[0][:3] == ["\ufeff28", "Jahre", "alt"]

    def test_bom_costs_one_unigram_match_and_warns(self, capsys, tmp_path):
        """With the BOM, '28' does not match the reference's '28': one unigram match fewer than without it."""
        sys_path = Q / "bom.sys.online-A.txt"
        ref = str(Q / "bom.ref.A.txt")
        stripped = tmp_path / "nobom.txt"
        stripped.write_bytes(sys_path.read_bytes()[3:])
        code, with_bom, _, err = score(capsys, tmp_path, ref, "-i", str(sys_path), "--tokenize", "13a")
        code2, without, _, err2 = score(capsys, tmp_path, ref, "-i", str(stripped), "--tokenize", "13a")
        assert code == code2 == 0
        assert f"{sys_path}: line 1 starts with a U+FEFF byte order mark" in err
        assert "kept as part of the first token" in err
        assert "U+FEFF" not in err2
        assert without["matches"][0] == with_bom["matches"][0] + 1
        assert without["candidate_length"] == with_bom["candidate_length"]

    def test_full_file(self, shared_dir, capsys, tmp_path):
        """The whole online-A file: exactly one BOM, on line 1, warned about once."""
        path = shared_dir / "real" / "wmt17" / "en-de" / "sys.online-A.0.txt"
        data = path.read_bytes()
        assert data.count(b"\xef\xbb\xbf") == 1 and data.startswith(b"\xef\xbb\xbf")
        ref = str(shared_dir / "real" / "wmt17" / "en-de" / "ref.A.txt")
        code, row, objs, err = score(capsys, tmp_path, ref, "-i", str(path), "--tokenize", "13a")
        assert code == 0 and len(objs) == 3004
        assert err.count("byte order mark") == 1


class TestEmptyHypothesis:
    """wmt22 zh-en sys.Online-W.txt line 1479 is empty (fixture: lines 1478-1480)."""

    def test_fixture_bytes(self):
        """Line 2 of the cut is empty."""
        assert (Q / "empty.sys.Online-W.txt").read_bytes().split(b"\n")[1] == b""

    def test_empty_line_is_an_empty_segment(self, capsys, tmp_path):
        """The empty line is segment 1 with 0 tokens and 0 n-grams; the closest reference is the shorter one."""
        refs = [str(Q / "empty.ref.A.txt"), str(Q / "empty.ref.B.txt")]
        code, row, objs, _ = score(capsys, tmp_path, *refs, "-i", str(Q / "empty.sys.Online-W.txt"),
                                   "--tokenize", "13a")
        assert code == 0 and len(objs) == 3
        empty = objs[1]
        assert (empty["hyp_len"], empty["matches"], empty["totals"]) == (0, [0, 0, 0, 0], [0, 0, 0, 0])
        # for c = 0 the closest length is the shortest reference (ties to the shorter)
        lens = [len(tokenize_lines(read_lines(p).lines, "13a")[1]) for p in refs]
        assert empty["ref_len"] == min(lens) and min(lens) > 0

    def test_full_file(self, shared_dir, capsys, tmp_path):
        """The whole file has 1875 lines and exactly one empty hypothesis, line 1479."""
        d = shared_dir / "real" / "wmt22" / "zh-en"
        code, row, objs, _ = score(capsys, tmp_path, str(d / "ref.A.txt"), str(d / "ref.B.txt"),
                                   "-i", str(d / "sys.Online-W.txt"), "--tokenize", "13a")
        assert code == 0 and len(objs) == 1875
        assert [o["line"] for o in objs if o["hyp_len"] == 0] == [1479]


class TestTab:
    """wmt22 zh-en ref.B.txt line 1364 is '--\\tYour requirements and our services'."""

    def test_fixture_bytes(self):
        """The cut holds the one TAB."""
        assert (Q / "tab.ref.B.txt").read_bytes() == b"--\tYour requirements and our services\n"

    @pytest.mark.parametrize("tokenize", ["none", "13a"])
    def test_tab_separates_tokens_not_references(self, capsys, tmp_path, tokenize):
        """One file per reference: the TAB is just whitespace inside one reference of 6 tokens."""
        assert tokenize_lines(read_lines(Q / "tab.ref.B.txt").lines, tokenize) == [
            ["--", "Your", "requirements", "and", "our", "services"]
        ]
        code, row, objs, _ = score(capsys, tmp_path, str(Q / "tab.ref.A.txt"), str(Q / "tab.ref.B.txt"),
                                   "-i", str(Q / "tab.sys.JDExploreAcademy.txt"), "--tokenize", tokenize)
        assert code == 0 and len(objs) == 1

    def test_full_file(self, shared_dir):
        """The whole ref.B has 1875 lines and one TAB, on line 1364."""
        lines = read_lines(shared_dir / "real" / "wmt22" / "zh-en" / "ref.B.txt").lines
        assert len(lines) == 1875
        assert [n for n, line in enumerate(lines, 1) if "\t" in line] == [1364]


class TestNbsp:
    """NBSP (U+00A0) in wmt21 en-de ref.A line 13 and wmt17 PROMT line 294."""

    def test_fixture_bytes(self):
        """The cuts hold '1.000\\u00a0US-Dollar' and '£\\u00a01,35'."""
        assert "1.000\u00a0US-Dollar" in (Q / "nbsp.ref.A.txt").read_text("utf-8")
        assert "£\u00a01,35" in (Q / "nbsp.sys.PROMT.txt").read_text("utf-8")

    @pytest.mark.parametrize("tokenize", ["none", "13a"])
    def test_nbsp_separates_tokens(self, tokenize):
        """Both str.split and sacreBLEU 2.6.0's 13a split at NBSP; split(' ') would not."""
        line = read_lines(Q / "nbsp.ref.A.txt").lines[0]
        tokens = tokenize_lines([line], tokenize)[0]
        assert "1.000" in tokens and "US-Dollar" in tokens
        assert not any("\u00a0" in t for t in tokens)
        assert "1.000\u00a0US-Dollar" in line.split(" ")  # the splitter that differs
        promt = tokenize_lines(read_lines(Q / "nbsp.sys.PROMT.txt").lines, tokenize)[0]
        assert promt[:5] == ["Das", "Projekt", "von", "£", "1,35"]

    def test_reference_length_counts_the_split(self, capsys, tmp_path):
        """The closest reference length is the str.split count, one more than split(' ') gives."""
        ref = Q / "nbsp.ref.A.txt"
        line = read_lines(ref).lines[0]
        code, row, objs, _ = score(capsys, tmp_path, str(ref), "-i", str(Q / "nbsp.sys.Facebook-AI.txt"),
                                   "-tok", "none")
        assert code == 0
        assert objs[0]["ref_len"] == len(line.split()) == len(line.split(" ")) + 1

    def test_full_files(self, shared_dir):
        """42/4/23 NBSP lines (SOURCES.md); no 13a or whitespace token keeps an NBSP."""
        real = shared_dir / "real"
        for rel, count in [("wmt21/en-de/ref.A.txt", 42), ("wmt21/en-de/ref.C.txt", 4),
                           ("wmt17/en-de/sys.PROMT-Rule-based.4735.txt", 23)]:
            lines = read_lines(real / rel).lines
            assert sum("\u00a0" in line for line in lines) == count, rel
            for tokenize in ("none", "13a"):
                assert not any("\u00a0" in t for seg in tokenize_lines(lines, tokenize) for t in seg)


class TestZeroWidthSpace:
    """U+200B: nltk sys.google.tok.txt line 63 (two of them), wmt22 en-zh Online-B line 804."""

    def test_fixture_bytes(self):
        """The cuts hold U+200B: twice in the nltk line, at the end of the en-zh line."""
        assert (Q / "zwsp.sys.google.tok.txt").read_text("utf-8").count("\u200b") == 2
        assert (Q / "zwsp.sys.Online-B.txt").read_text("utf-8").endswith("。\u200b\n")

    @pytest.mark.parametrize("tokenize", ["none", "13a"])
    def test_zwsp_is_not_whitespace(self, tokenize):
        """U+200B is not split on: in the nltk line it stands as two tokens of its own."""
        line = read_lines(Q / "zwsp.sys.google.tok.txt").lines[0]
        tokens = tokenize_lines([line], tokenize)[0]
        assert tokens.count("\u200b") == 2
        assert "\u200b".isspace() is False

    def test_zh_keeps_the_zwsp_token(self):
        """sacreBLEU's zh tokenizer leaves the final U+200B as a token after '。'."""
        tokens = tokenize_lines(read_lines(Q / "zwsp.sys.Online-B.txt").lines, "zh")[0]
        assert tokens[-2:] == ["。", "\u200b"]

    def test_zwsp_counts_in_the_hypothesis_length(self, capsys, tmp_path):
        """hyp_len counts the two U+200B tokens (space-separated fields of the line)."""
        path = Q / "zwsp.sys.google.tok.txt"
        line = read_lines(path).lines[0]
        code, row, objs, _ = score(capsys, tmp_path, str(Q / "zwsp.ref.A.tok.txt"), "-i", str(path))
        assert code == 0 and objs[0]["hyp_len"] == len([f for f in line.split(" ") if f])

    def test_full_files(self, shared_dir):
        """nltk google: 6 U+200B on 3 lines; wmt22 en-zh: one line per system (SOURCES.md)."""
        real = shared_dir / "real"
        lines = read_lines(real / "nltk-wmt15-100" / "en-ru" / "sys.google.tok.txt").lines
        assert sum(line.count("\u200b") for line in lines) == 6
        assert [n for n, line in enumerate(lines, 1) if "\u200b" in line] == [3, 63, 83]
        for system in ("JDExploreAcademy", "Online-B"):
            zh = read_lines(real / "wmt22" / "en-zh" / f"sys.{system}.txt").lines
            assert [n for n, line in enumerate(zh, 1) if "\u200b" in line] == [804]
