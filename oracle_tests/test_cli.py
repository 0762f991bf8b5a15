"""The command line (bleu_compat.cli): ``tools``, ``run``, ``score``; a few runs through ``python -m bleu_compat``.

Expected outputs come from the cards' examples and from hand-counted corpora.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from bleu_compat.cli import main
from bleu_compat.tools import TOOL_IDS, card

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = [
    pytest.param(tool_id, i, id=f"{tool_id}-{i}")
    for tool_id in TOOL_IDS
    for i in range(len(card(tool_id).examples))
]


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str],
             stdin: bytes = b"") -> tuple[int, str, str]:
    """Run ``main(argv)`` with ``stdin`` as standard input; return (status, stdout, stderr)."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


class TestTools:
    """``bleu-compat tools`` lists the three tools."""

    def test_text(self, capsys: pytest.CaptureFixture[str]) -> None:
        """One tab-separated line per tool: id, version, description."""
        assert main(["tools"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert [line.split("\t")[:2] for line in lines] == [[t, "1.0.0"] for t in TOOL_IDS]

    def test_json(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--json lists id, version, description and execute_url."""
        assert main(["tools", "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert [r["id"] for r in rows] == list(TOOL_IDS)
        assert rows[0]["execute_url"] == card(TOOL_IDS[0]).execute_url

    def test_help(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--help of every command exits 0."""
        for command in (["--help"], ["tools", "--help"], ["run", "--help"], ["bigram", "--help"],
                        ["score", "--help"]):
            assert main(command) == 0
        assert "usage" in capsys.readouterr().out


class TestRun:
    """``bleu-compat run TOOL [FILE]``: result JSON and exit 0, or the structured error and exit 2."""

    @pytest.mark.parametrize(("tool_id", "index"), EXAMPLES)
    def test_card_examples_stdin(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                 tool_id: str, index: int) -> None:
        """Each card example on standard input prints the card's output (JS number style), exit 0."""
        example = card(tool_id).examples[index]
        code, out, err = run_main(monkeypatch, capsys, ["run", tool_id],
                                  json.dumps(example["input"]).encode())
        assert (code, err) == (0, "")
        assert json.loads(out) == example["output"]
        assert ".0," not in out and ".0}" not in out and ".0]" not in out

    def test_file_argument(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A FILE argument is read like standard input."""
        example = card("bleu-brevity-penalty").examples[1]
        path = tmp_path / "req.json"
        path.write_text(json.dumps(example["input"]), "utf-8")
        assert main(["run", "bleu-brevity-penalty", str(path)]) == 0
        assert json.loads(capsys.readouterr().out) == example["output"]

    @pytest.mark.parametrize(
        ("data", "code"),
        [
            (bytes(range(256)) * 4, "invalid_input"),
            (b"", "invalid_input"),
            (b"\x00\x01\x02", "invalid_input"),
            (b'{"hypotheses": [["a"]], "references": [[["a"]]], "weights": [1]}', "unsupported_input"),
            (b'{"hypotheses": [["' + "\u05d0".encode() * 100 + b'"]], "references": [[["a"]]]}', "limit_exceeded"),
            (b'{"hypotheses": [["a"], ["b"]], "references": [[["a"]]]}', "invalid_input"),
        ],
        ids=["binary-garbage", "empty", "nul-bytes", "unsupported", "limit", "cross-field"],
    )
    def test_errors(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                    data: bytes, code: str) -> None:
        """A refused request prints {"error": {code, message, path}} on stdout and exits 2."""
        status, out, err = run_main(monkeypatch, capsys, ["run", "bleu-corpus-compute"], data)
        assert status == 2 and err == ""
        body = json.loads(out)
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "path"}
        assert body["error"]["code"] == code

    def test_unknown_tool(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        """An unknown tool is a JSON error on stdout (not_found) listing the tools, exit 2 (issue 11)."""
        status, out, err = run_main(monkeypatch, capsys, ["run", "bleu-sentence"], b"{}")
        assert status == 2 and err == ""
        body = json.loads(out)
        assert body["error"]["code"] == "not_found" and "bleu-corpus-compute" in body["error"]["message"]

    @pytest.mark.parametrize("kind", ["missing", "directory"])
    def test_unreadable_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
        """A FILE that cannot be read (missing, a directory): JSON error on stdout, exit 2 (issue 11)."""
        target = tmp_path / "nope.json" if kind == "missing" else tmp_path
        assert main(["run", "bleu-corpus-compute", str(target)]) == 2
        captured = capsys.readouterr()
        body = json.loads(captured.out)
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "path"}
        assert body["error"]["code"] == "invalid_input" and "cannot read" in body["error"]["message"]
        assert captured.err == ""

    def test_50_mb(self, tmp_path: Path) -> None:
        """50 MB of JSON is refused with limit_exceeded, exit 2, no traceback (subprocess)."""
        path = tmp_path / "big.json"
        with path.open("wb") as handle:
            handle.write(b'{"hypotheses": [[')
            chunk = b'"a",' * 262_144
            for _ in range(50):
                handle.write(chunk)
            handle.write(b'"a"]], "references": [[["a"]]]}')
        assert path.stat().st_size > 50_000_000
        proc = subprocess.run([sys.executable, "-m", "bleu_compat", "run", "bleu-corpus-compute", str(path)],
                              capture_output=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert json.loads(proc.stdout)["error"]["code"] in ("limit_exceeded", "invalid_input")
        assert b"Traceback" not in proc.stderr

    def test_subprocess_example(self) -> None:
        """``python -m bleu_compat run`` on standard input prints the card's first corpus example."""
        example = card("bleu-corpus-compute").examples[0]
        proc = subprocess.run([sys.executable, "-m", "bleu_compat", "run", "bleu-corpus-compute"],
                              input=json.dumps(example["input"]).encode(), capture_output=True, timeout=60)
        assert proc.returncode == 0 and proc.stderr == b""
        assert proc.stdout.decode() == (
            '{"bleu":1,"brevity_penalty":1,"candidate_length":4,"reference_length":4,"max_order":4,'
            '"matches":[4,3,2,1],"totals":[4,3,2,1]}\n'
        )

    def test_subprocess_garbage(self) -> None:
        """Binary garbage through the real process: structured error, exit 2, no traceback."""
        proc = subprocess.run([sys.executable, "-m", "bleu_compat", "run", "bleu-smoothing-compute"],
                              input=b"\xff\xd8\xff\xe0garbage\x00", capture_output=True, timeout=60)
        assert proc.returncode == 2 and b"Traceback" not in proc.stderr
        assert json.loads(proc.stdout)["error"]["code"] == "invalid_input"


def _write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


class TestScore:
    """``bleu-compat card-score HYP REF [REF ...]`` on files, one segment per line."""

    def test_summary_hand_counted(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """'a b c d' vs 'a b c d e': precisions 100/100/100/100, BP exp(1 - 5/4), ratio 0.800."""
        hyp = _write(tmp_path / "hyp", b"a b c d\n")
        ref = _write(tmp_path / "ref", b"a b c d e\n")
        assert main(["card-score", hyp, ref]) == 0
        bp = math.exp(1 - 5 / 4)
        # the summary line, then the signature line (SPEC.md section 8)
        assert capsys.readouterr().out.splitlines()[0] == (
            f"BLEU = {100 * bp:.2f}, 100.0/100.0/100.0/100.0 (BP={bp:.3f}, ratio=0.800, hyp_len=4, ref_len=5)"
        )

    def test_empty_lines_are_segments(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """An empty line is an empty segment: its reference length counts, it is never skipped."""
        hyp = _write(tmp_path / "hyp", b"a b\n\n")
        ref = _write(tmp_path / "ref", b"a b\nc d e\n")
        assert main(["card-score", "--json", hyp, ref]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["candidate_length"], out["reference_length"]) == (2, 5)

    def test_missing_final_newline(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A missing final newline changes nothing."""
        ref = _write(tmp_path / "ref", b"a b c\nd e\n")
        with_nl = _write(tmp_path / "h1", b"a b c\nd x\n")
        without = _write(tmp_path / "h2", b"a b c\nd x")
        assert main(["card-score", "--json", with_nl, ref]) == 0
        first = capsys.readouterr().out
        assert main(["card-score", "--json", without, ref]) == 0
        assert capsys.readouterr().out == first

    def test_line_count_mismatch(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Different line counts: both files and both counts named, exit 2."""
        hyp = _write(tmp_path / "hyp.txt", b"a\nb\nc\n")
        ref = _write(tmp_path / "ref.txt", b"a\nb\n")
        assert main(["card-score", hyp, ref]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert hyp in captured.err and ref in captured.err and "3" in captured.err and "2" in captured.err

    def test_not_utf8(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A byte that is not UTF-8 is an error naming the file and the line, exit 2."""
        hyp = _write(tmp_path / "hyp.txt", b"a\nb\n")
        ref = _write(tmp_path / "ref.txt", b"a\nb \xe9t\xe9\n")
        assert main(["card-score", hyp, ref]) == 2
        err = capsys.readouterr().err
        assert ref in err and "line 2" in err and "Traceback" not in err

    def test_json_output(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """--json writes the bleu-corpus-compute output object (counts hand-counted)."""
        hyp = _write(tmp_path / "hyp", b"the cat sat on the mat\n")
        ref1 = _write(tmp_path / "r1", b"the cat is on the mat\n")
        ref2 = _write(tmp_path / "r2", b"a cat sat on a mat\n")
        assert main(["card-score", "--json", hyp, ref1, ref2]) == 0
        out = json.loads(capsys.readouterr().out)
        assert set(out) == set(card("bleu-corpus-compute").output_schema["properties"])
        # unigrams: the×2 (clip 2), cat, sat, on, mat → 6; bigrams: the cat, on the, the mat (r1),
        # cat sat, sat on (r2) → 5; trigrams: on the mat (r1), cat sat on (r2) → 2; no 4-gram
        assert out["matches"] == [6, 5, 2, 0] and out["totals"] == [6, 5, 4, 3]
        assert out["bleu"] == 0 and out["brevity_penalty"] == 1

    def test_max_order(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """--max-order 2 scores up to bigrams and prints two precisions."""
        hyp = _write(tmp_path / "hyp", b"the cat sat on the mat\n")
        ref = _write(tmp_path / "ref", b"the cat is on the mat\n")
        assert main(["card-score", "--max-order", "2", hyp, ref]) == 0
        assert capsys.readouterr().out.startswith("BLEU = 70.71, 83.3/60.0 (BP=1.000, ratio=1.000,")

    def test_bad_max_order(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """--max-order 0 is a usage error, exit 2."""
        hyp = _write(tmp_path / "hyp", b"a\n")
        assert main(["card-score", "--max-order", "0", hyp, hyp]) == 2
        assert "--max-order" in capsys.readouterr().err

    def test_missing_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A file that does not exist: one line on stderr naming it, exit 2."""
        hyp = _write(tmp_path / "hyp", b"a\n")
        assert main(["card-score", hyp, str(tmp_path / "missing")]) == 2
        assert "missing" in capsys.readouterr().err

    def test_usage_error(self, capsys: pytest.CaptureFixture[str]) -> None:
        """A missing argument is argparse's usage error, exit 2."""
        assert main(["score"]) == 2
        assert main([]) == 2


@pytest.mark.parametrize("argv", [["nope"], ["bleu-corpus-compute", "/"], ["bleu-corpus-compute", "/no/such/file"]])
def test_explain_refuses_like_run(capsys, argv) -> None:
    """`explain` and `run` give the same JSON refusal (code, message, path) for a bad tool or FILE."""
    from bleu_compat.cli import main

    assert main(["run", *argv]) == 2
    run_out = capsys.readouterr().out
    assert main(["explain", *argv]) == 2
    explain_out = capsys.readouterr().out
    assert json.loads(run_out) == json.loads(explain_out)
    assert json.loads(run_out)["error"]["code"] in ("not_found", "invalid_input")
