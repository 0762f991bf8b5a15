"""``bleu-compat score`` and ``card-score``: both calling conventions, formats, --segments, reading rules, --compare.

Expected values come from published sources (the NLTK wmt15_eval package
README's multi-bleu.perl line and its mteval-v13a output, see
fixtures/real/nltk-wmt15-100/SOURCE.md), from the bytes of the test files,
or from an independent mpmath calculation; never from the code under test.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import mpmath
import pytest

from bleu_compat.cli import main
from bleu_compat.ulp import ulp_distance

NLTK = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "nltk-wmt15-100"
HYP_TOK = str(NLTK / "sys.google.tok.txt")
REF_TOK = str(NLTK / "ref.A.tok.txt")
REF_RAW = str(NLTK / "ref.A.txt")
#: multi-bleu.perl ref.ru < google.ru, from the package README (README.nltk_data.txt)
PUBLISHED_LINE = (
    "BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)"
)


def sig(tok: str, nrefs: int = 1, smooth: str = "none") -> str:
    """SPEC.md section 8's signature line, written out from the spec's example."""
    import bleu_compat

    return (f"signature: nrefs:{nrefs}|case:mixed|eff:no|tok:{tok}|smooth:{smooth}"
            f"|bleu-compat:{bleu_compat.__version__}")


def roles(hyp: str, ref: str) -> str:
    """The line under the `HYP REF` form's summary that names each file's role."""
    return (f"hypothesis: {hyp}; reference: {ref} (card-score's HYP REF order; "
            "sacreBLEU's is REF -i HYP)")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def card(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``card-score HYP REF ...``: the card's form (``score HYP REF`` before issue 34)."""
    code = main(["card-score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def mp_bleu(matches: list[int], totals: list[int], c: int, r: int) -> float:
    """BLEU (0-1) from integer statistics at 50 digits, rounded once to a double."""
    with mpmath.workdps(50):
        log_sum = mpmath.fsum(mpmath.log(mpmath.mpf(m) / t) for m, t in zip(matches, totals))
        bp = mpmath.mpf(1) if c > r else mpmath.exp(1 - mpmath.mpf(r) / c)
        return float(bp * mpmath.exp(log_sum / len(matches)))


def write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


class TestConventions:
    def test_single_system_default_is_the_multi_bleu_line(self, capsys):
        """`card-score HYP REF` prints exactly the line multi-bleu.perl published."""
        code, out, _ = card(capsys, HYP_TOK, REF_TOK)
        assert (code, out) == (0, PUBLISHED_LINE + "\n" + roles(HYP_TOK, REF_TOK) + "\n"
                               + sig("none") + "\n")

    def test_dash_i_single_system_also_prints_the_line(self, capsys):
        """`score REF -i SYS -tok none -s none -w 2 -f line` prints the same line (no roles:
        -i names the system)."""
        code, out, _ = run(capsys, REF_TOK, "-i", HYP_TOK, "-tok", "none", "-s", "none", "-w", "2",
                           "-f", "line")
        assert (code, out) == (0, PUBLISHED_LINE + "\n" + sig("none") + "\n")

    def test_dash_i_form_tokenizes_with_13a_by_default(self, capsys):
        """`score REF -i SYS` is sacreBLEU's form: 13a unless told otherwise (SPEC.md section 8).

        On the raw reference that is mteval-v13a's published 1998/1862 (mteval-13a.output),
        the same as `--tokenize 13a` in the other form.
        """
        card = ("-s", "none", "-w", "2", "-f", "line")
        code, out, _ = run(capsys, REF_RAW, "-i", HYP_TOK, *card)
        assert code == 0
        line, signature = out.splitlines()
        assert line.startswith("BLEU = 23.18, ") and "hyp_len=1998, ref_len=1862" in line
        assert signature == sig("13a")
        code, out, _ = run(capsys, REF_RAW, "-i", HYP_TOK, "--tokenize", "none", *card)
        assert out.splitlines()[1] == sig("none") and "hyp_len=1989" in out

    def test_several_systems_print_a_table(self, capsys):
        """Several systems give one table row each, in the order given."""
        code, out, _ = run(capsys, REF_TOK, "-i", HYP_TOK, REF_TOK, "-tok", "none", "-s", "none",
                           "-w", "2", "-f", "table")
        lines = out.splitlines()
        assert code == 0
        assert lines[0].split() == [
            "System", "BLEU", "P1", "P2", "P3", "P4", "BP", "ratio", "hyp_len", "ref_len",
        ]
        assert lines[1].split() == [
            HYP_TOK, "23.17", "53.8", "29.6", "17.6", "10.3", "1.000", "1.074", "1989", "1852",
        ]
        # the reference scored against itself: every n-gram matches
        assert lines[2].split() == [
            REF_TOK, "100.00", "100.0", "100.0", "100.0", "100.0", "1.000", "1.000", "1852", "1852",
        ]
        assert lines[3] == sig("none") and len(lines) == 4

    def test_legacy_json_is_the_card_output_object(self, capsys):
        """`card-score HYP REF --json` writes the card's output object (0-1 scale)."""
        code, out, _ = card(capsys, HYP_TOK, REF_TOK, "--json")
        doc = json.loads(out)
        assert code == 0
        assert sorted(doc) == sorted([
            "bleu", "brevity_penalty", "candidate_length", "reference_length", "max_order",
            "matches", "totals",
        ])
        assert (doc["candidate_length"], doc["reference_length"]) == (1989, 1852)
        assert ulp_distance(doc["bleu"], mp_bleu(doc["matches"], doc["totals"], 1989, 1852)) <= 2

    def test_one_file_reads_the_system_from_standard_input(self):
        """`score REF` alone is sacreBLEU's `sacrebleu REF < SYS`: an empty standard input is
        one empty line, as sacreBLEU's readline() gives it, so against the 100-line reference
        the line counts differ (exit 2, named, and the empty input said), never a traceback."""
        import subprocess
        import sys

        done = subprocess.run([sys.executable, "-m", "bleu_compat", "score", REF_TOK],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.splitlines() == [
            "bleu-compat score: warning: standard input is empty: read as one empty line, as "
            "sacreBLEU reads it",
            f"bleu-compat score: line counts differ: - has 1 line, {REF_TOK} has more (it goes "
            "on at line 2)"]


class TestFormats:
    def test_json_has_full_doubles_matching_an_independent_calculation(self, capsys):
        """--format json: each system's score is 100 * bleu, bleu matches mpmath within 2 ULPs."""
        code, out, _ = run(capsys, REF_TOK, "-i", HYP_TOK, "-tok", "none", "-s", "none", "--json")
        doc = json.loads(out)
        (row,) = doc["systems"]
        assert "signature: " + doc["signature"] == sig("none")
        assert code == 0 and row["system"] == HYP_TOK
        assert doc["references"] == [REF_TOK] and doc["segments"] == 100
        expected = mp_bleu(row["matches"], row["totals"], 1989, 1852)
        assert ulp_distance(row["bleu"], expected) <= 2
        assert row["BLEU"] == 100 * row["bleu"]
        # the published rounded precisions 53.8/29.6/17.6/10.3
        assert [f"{p:.1f}" for p in row["precisions"]] == ["53.8", "29.6", "17.6", "10.3"]
        assert row["ratio"] == 1989 / 1852

    def test_csv_has_full_doubles(self, capsys):
        """--format csv: a header and one row per system, numbers as full doubles."""
        _, out_json, _ = run(capsys, REF_TOK, "-i", HYP_TOK, "-tok", "none", "-s", "none", "--json")
        code, out, _ = run(capsys, REF_TOK, "-i", HYP_TOK, REF_TOK, "-tok", "none", "-s", "none",
                           "-f", "csv")
        rows = list(csv.reader(io.StringIO(out)))
        assert code == 0
        # BLEU on the 0-100 scale, labelled as such (SPEC.md section 8), and the signature
        assert rows[0] == ["system", "BLEU", "p1", "p2", "p3", "p4", "bp", "ratio", "hyp_len",
                           "ref_len", "signature"]
        assert rows[1][-1] == rows[2][-1] == sig("none")[len("signature: "):]
        assert len(rows) == 3
        assert float(rows[1][1]) == json.loads(out_json)["systems"][0]["BLEU"]
        assert rows[2][1] == "100"

    def test_markdown_table(self, capsys):
        """--format markdown: a pipe table with right-aligned number columns."""
        code, out, _ = run(capsys, REF_TOK, "-i", HYP_TOK, "-tok", "none", "-s", "none", "-w", "2",
                           "--format", "markdown")
        lines = out.splitlines()
        assert code == 0
        assert lines[0] == "| System | BLEU | P1 | P2 | P3 | P4 | BP | ratio | hyp_len | ref_len |"
        assert lines[1] == "|---" + "|---:" * 9 + "|"
        assert lines[2] == f"| {HYP_TOK} | 23.17 | 53.8 | 29.6 | 17.6 | 10.3 | 1.000 | 1.074 | 1989 | 1852 |"

    def test_max_order_changes_the_columns(self, capsys):
        """--max-order 2 gives two precision columns and matches mpmath's bigram BLEU."""
        code, out, _ = run(capsys, REF_TOK, "-i", HYP_TOK, "--max-order", "2", "-s", "none", "--json")
        row = json.loads(out)["systems"][0]
        assert code == 0 and row["max_order"] == 2 and len(row["matches"]) == 2
        assert ulp_distance(row["bleu"], mp_bleu(row["matches"], row["totals"], 1989, 1852)) <= 2

    @pytest.mark.parametrize("value", ["0", "-1", "9", "2147483648", "99999999999999999999999"])
    def test_bad_max_order_exits_2(self, capsys, value):
        """--max-order outside 1..8 (the cards' range) is a usage error, refused before any work
        (2**31 once grew to 23 GB)."""
        code, _, err = run(capsys, REF_TOK, "-i", HYP_TOK, "--max-order", value)
        assert (code, err) == (2, f"bleu-compat score: argument --max-order: must be a whole "
                               f"number from 1 to 8; got '{value}' (see bleu-compat score --help)\n")

    def test_compare_on_hypotheses_all_shorter_than_four(self, capsys, tmp_path):
        """One 3-token segment: the decomposition's intermediate NLTK states hold a zero total
        (no ZeroDivisionError), and NLTK's warnings do not leak."""
        f = tmp_path / "abc.txt"
        f.write_text("a b c\n", encoding="utf-8")
        code, out, err = card(capsys, str(f), str(f), "--compare")
        assert code == 0, err
        assert "Warning" not in err and "internal error" not in err
        assert "NLTK-ZERO-MATCH-TINY" in out


class TestTokenize:
    def test_13a_reproduces_the_published_mteval_output(self, capsys):
        """--tokenize 13a on the raw reference gives mteval-v13a's 0.2318, 1998/1862 (mteval-13a.output)."""
        code, out, _ = card(capsys, HYP_TOK, REF_RAW, "--tokenize", "13a")
        assert code == 0
        assert out.startswith("BLEU = 23.18, ")
        assert "hyp_len=1998, ref_len=1862" in out

    def test_help_says_tokenize_is_outside_the_contract(self, capsys):
        """--help states the reading rules and that --tokenize is outside the tools' contract."""
        assert main(["score", "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "outside the tools' contract" in text
        for phrase in ("UTF-8", "CRLF", "byte order mark", "empty line is an empty segment",
                       "different line counts"):
            assert phrase in text


class TestSegments:
    def test_segments_sum_to_the_corpus_statistics(self, capsys, tmp_path):
        """--segments writes one object per segment; their sums are the corpus statistics."""
        out_path = tmp_path / "segs.jsonl"
        code, out, _ = run(capsys, REF_TOK, "-i", HYP_TOK, "-tok", "none", "-s", "none", "--json",
                           "--segments", str(out_path))
        row = json.loads(out)["systems"][0]
        objs = [json.loads(line) for line in out_path.read_text("utf-8").splitlines()]
        assert code == 0 and len(objs) == 100
        assert list(objs[0]) == ["system", "segment", "line", "matches", "totals", "hyp_len",
                                 "ref_len", "card_bleu", "card_smoothing", "sacrebleu_sentence_BLEU",
                                 "hyp_tokens", "ref_tokens"]
        assert [o["segment"] for o in objs] == list(range(100))
        assert [o["line"] for o in objs] == list(range(1, 101))
        assert [sum(o["matches"][k] for o in objs) for k in range(4)] == row["matches"]
        assert [sum(o["totals"][k] for o in objs) for k in range(4)] == row["totals"]
        assert sum(o["hyp_len"] for o in objs) == 1989
        assert sum(o["ref_len"] for o in objs) == 1852
        # segment 1 of the file: its tokens, counted from the bytes
        first = Path(HYP_TOK).read_text("utf-8").split("\n")[0].split()
        assert objs[0]["hyp_len"] == len(first)

    def test_unwritable_segments_file_exits_2(self, capsys, tmp_path):
        """A --segments path that cannot be written is an input error."""
        code, _, err = card(capsys, HYP_TOK, REF_TOK, "--segments", str(tmp_path / "no" / "x.jsonl"))
        assert code == 2 and "cannot write" in err


class TestReadingRules:
    def test_crlf_gives_the_same_tokens_with_a_warning(self, capsys, tmp_path):
        """CRLF files score exactly like LF files; a warning says the CR was dropped."""
        lf = Path(HYP_TOK).read_bytes()
        crlf = write(tmp_path / "hyp.crlf", lf.replace(b"\n", b"\r\n"))
        _, out_lf, _ = card(capsys, HYP_TOK, REF_TOK, "--format", "csv")
        code, out_crlf, err = card(capsys, crlf, REF_TOK, "--format", "csv")
        assert code == 0
        assert out_crlf.split("\n", 1)[1].split(",", 1)[1] == out_lf.split("\n", 1)[1].split(",", 1)[1]
        assert "100 line(s) end with CRLF; the CR is dropped" in err

    def test_bom_is_kept_in_the_first_token_with_a_warning(self, capsys, tmp_path):
        """A leading BOM stays in the first token (so it does not match) and is reported."""
        hyp = write(tmp_path / "hyp", "\ufeffa b c d\n".encode())
        ref = write(tmp_path / "ref", b"a b c d\n")
        code, out, err = card(capsys, hyp, ref, "--format", "json", "--segments", str(tmp_path / "s"))
        row = json.loads(out)["systems"][0]
        assert code == 0
        assert row["matches"] == [3, 2, 1, 0]  # "\ufeffa" != "a"
        assert "U+FEFF byte order mark" in err and "kept as part of the first token" in err

    def test_empty_lines_are_empty_segments(self, capsys, tmp_path):
        """An empty hypothesis line is a segment of 0 tokens, not skipped."""
        hyp = write(tmp_path / "hyp", b"a b\n\nc d\n")
        ref = write(tmp_path / "ref", b"a b\nx y z\nc d\n")
        seg = tmp_path / "s.jsonl"
        code, _, _ = card(capsys, hyp, ref, "--segments", str(seg))
        objs = [json.loads(x) for x in seg.read_text().splitlines()]
        assert code == 0
        assert [(o["hyp_len"], o["ref_len"]) for o in objs] == [(2, 2), (0, 3), (2, 2)]

    def test_unicode_line_separators_do_not_split_lines(self, capsys, tmp_path):
        """U+2028, U+0085 and form feed stay inside a line (Python's splitlines would split)."""
        hyp = write(tmp_path / "hyp", "a\u2028b\x85c\x0cd\n".encode())
        ref = write(tmp_path / "ref", b"a b c d\n")
        code, out, _ = card(capsys, hyp, ref, "--format", "json")
        row = json.loads(out)["systems"][0]
        assert code == 0 and row["candidate_length"] == 4 and row["matches"] == [4, 3, 2, 1]

    def test_non_utf8_names_file_and_line(self, capsys, tmp_path):
        """A byte that is not UTF-8 is an error naming the file and the line, exit 2."""
        bad = write(tmp_path / "latin1.txt", "ok\nnaïve\n".encode("latin-1"))
        ref = write(tmp_path / "ref", b"ok\nnaive\n")
        code, out, err = card(capsys, bad, ref)
        assert code == 2 and out == ""
        assert f"{bad}: line 2 is not UTF-8" in err and "0xef" in err

    def test_missing_file_exits_2(self, capsys, tmp_path):
        """A missing file is a one-line error naming it, exit 2."""
        missing = str(tmp_path / "nope.txt")
        code, out, err = run(capsys, REF_TOK, "-i", missing)
        assert code == 2 and out == ""
        assert err.startswith(f"bleu-compat score: {missing}: cannot read")
        assert "Traceback" not in err

    def test_empty_file_exits_2(self, capsys, tmp_path):
        """A 0-byte file has no segment at all: an error, not BLEU 0."""
        empty = write(tmp_path / "empty", b"")
        code, _, err = card(capsys, empty, REF_TOK)
        assert code == 2 and "the file is empty" in err

    def test_line_counts_differ_names_both_files(self, capsys, tmp_path):
        """Different line counts are an error naming both files."""
        short = write(tmp_path / "short", b"a\nb\n")
        code, _, err = run(capsys, REF_TOK, "-i", short)
        assert code == 2
        # one pass: the mismatch is found at the first surplus line (REF_TOK's line 3)
        assert err == (f"bleu-compat score: line counts differ: {short} has 2 lines, {REF_TOK} "
                       "has more (it goes on at line 3)\n")

    def test_references_with_different_line_counts_name_both(self, capsys, tmp_path):
        """Two references that disagree in length are named, whatever the system."""
        short = write(tmp_path / "short", b"a\nb\n")
        code, _, err = run(capsys, REF_TOK, short, "-i", HYP_TOK)
        assert code == 2 and REF_TOK in err and str(short) in err

    def test_missing_final_newline_changes_nothing(self, capsys, tmp_path):
        """The raw NLTK reference has 99 LFs for 100 lines (SOURCES.md): it reads as 100 segments."""
        assert Path(REF_RAW).read_bytes().count(b"\n") == 99
        code, out, _ = card(capsys, HYP_TOK, REF_RAW, "--format", "json")
        assert code == 0 and json.loads(out)["segments"] == 100


# ------------------------------------------------------------------ --compare

SHORT_HYP = b"the cat sat\nthe cat sat on the mat today\n"
SHORT_REF = b"the cat sat\nthe cat sat on the mat today\n"


def _compare(capsys, tmp_path, *extra: str) -> tuple[int, str, str]:
    hyp = write(tmp_path / "hyp.txt", SHORT_HYP)
    ref = write(tmp_path / "ref.txt", SHORT_REF)
    return run(capsys, ref, "-i", hyp, "--compare", *extra)


class TestCompare:
    def test_unexplained_difference_is_unexpected_and_exits_1(self, capsys, tmp_path, monkeypatch):
        """With an empty catalog no dialect reproduces a difference: UNEXPECTED, exit status 1."""
        import bleu_compat.catalog as catalog

        monkeypatch.setattr(catalog, "ENTRIES", ())
        code, out, _ = _compare(capsys, tmp_path)
        assert code == 1
        # NLTK counts 1 for the 3-token hypothesis' empty 4-gram set: total 5 vs the card's 4
        assert "UNEXPECTED NLTK: totals [10, 8, 6, 5] vs [10, 8, 6, 4]" in out

    def test_explained_difference_prints_id_and_facts(self, capsys, tmp_path, monkeypatch):
        """An explained difference prints '<library>: <facts> (<id>): <library value> vs <card value>'."""
        code, out, _ = _compare(capsys, tmp_path)
        assert code == 0
        # one line per entry, naming every field it explains (not one line per field)
        assert ("NLTK: 1 hypothesis shorter than 4 tokens adds 1 to the 4-gram total "
                "(NLTK-DENOMINATOR-FLOOR): BLEU 94.574161 vs 100.000000; "
                "totals [10, 8, 6, 5] vs [10, 8, 6, 4]") in out
        assert out.count("adds 1 to the 4-gram total") == 1
        assert "UNEXPECTED" not in out

    def test_compare_json_carries_every_library(self, capsys, tmp_path, monkeypatch):
        """--compare --format json lists both libraries with versions and differences."""
        import bleu_compat.catalog as catalog

        monkeypatch.setattr(catalog, "ENTRIES", ())
        code, out, _ = _compare(capsys, tmp_path, "--format", "json")
        doc = json.loads(out)
        cmp = doc["systems"][0]["compare"]
        assert code == 1
        assert set(doc["versions"]) == {"sacrebleu", "nltk"}
        assert [lib["library"] for lib in cmp["libraries"]] == ["sacrebleu", "nltk"]
        nltk = cmp["libraries"][1]
        assert {d["field"] for d in nltk["differences"]} >= {"totals"}
        assert cmp["unexpected"] is True

    def test_real_catalog_explains_the_short_hypothesis(self, capsys, tmp_path):
        """With the real catalog, NLTK's floored 4-gram total is explained, not UNEXPECTED."""
        code, out, _ = _compare(capsys, tmp_path)
        assert "UNEXPECTED" not in out, out
        assert "NLTK-DENOMINATOR-FLOOR" in out
        assert code == 0
