"""``score``: --segments' per-segment BLEU, tokens and causes; progress; the signature in
every output; and fresh users' findings (issue 13).

Expected values: per-segment statistics and BLEU from the truth
(:mod:`bleu_compat.harness.truth`, which shares no code with the core: its own
n-gram counting and its own card-order doubles, checked against mpmath),
tokens from sacreBLEU's own 13a tokenizer, the lines behind each cause
counted here from the files' bytes.
"""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bleu_compat
from bleu_compat.cli import main
from bleu_compat.harness.truth import segment_truth_stats, truth

# pytest-xdist: one worker runs this module (the WMT17 --compare fixture is computed once)
pytestmark = pytest.mark.xdist_group("test_score_segments")

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF = str(WMT17 / "ref.A.txt")
SYS = str(WMT17 / "sys.uedin-nmt.4722.txt")
SIG = f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|bleu-compat:{bleu_compat.__version__}"
#: the card's signature of the `REF -i SYS` form's default (sacreBLEU's exp smoothing)
SIG_EXP = SIG.replace("smooth:none", "smooth:exp")
#: sacreBLEU's signature of that form's default, bleu-compat named after the release
SACRE_SIG = ("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
             f"|bleu-compat:{bleu_compat.__version__}")


def _run(capsys: pytest.CaptureFixture[str], *argv: str, command: str = "score"
         ) -> tuple[int, str, str]:
    code = main([command, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _lines(path: str) -> list[str]:
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _truth_bleu(obj: dict, method: str, epsilon: float | None = None) -> float:
    request = {"matches": obj["matches"], "totals": obj["totals"],
               "candidate_length": obj["hyp_len"], "reference_length": obj["ref_len"],
               "smoothing": method}
    if epsilon is not None:
        request["epsilon"] = epsilon
    return truth("bleu-smoothing-compute", request).expected["bleu"]


class TestSegmentBleu:
    @pytest.mark.parametrize("flags, method, epsilon", [
        (("-s", "none"), "none", None),
        ((), "method3", None),
        (("-s", "floor"), "method1", 0.1),
        (("-s", "floor", "--smooth-value", "0.25"), "method1", 0.25),
        (("-s", "add-k"), "method2", None),
    ])
    def test_each_segments_bleu_is_the_smoothing_card(self, capsys, tmp_path, flags, method, epsilon):
        """card_bleu (0-1) is bleu-smoothing-compute on the segment's statistics with the run's
        smoothing, bit for bit the truth's card-order double, named by card_smoothing."""
        path = tmp_path / "s.jsonl"
        code, _, _ = _run(capsys, REF, "-i", SYS, *flags, "--segments", str(path))
        objs = _jsonl(path)
        assert code == 0 and len(objs) == 3004
        for obj in objs:
            assert obj["card_smoothing"] == method and obj.get("card_epsilon") == epsilon
            assert obj["card_bleu"] == _truth_bleu(obj, method, epsilon), obj["line"]
            assert "bleu" not in obj and "BLEU" not in obj
        # not all 0 and not all equal: segments differ (sentence BLEU without smoothing is
        # 0 for every segment with an order without a match)
        assert len({o["card_bleu"] for o in objs}) > 100

    def test_sentence_bleu_is_sacrebleus_sentence_bleu(self, capsys, tmp_path):
        """sacrebleu_sentence_BLEU is what the real sacrebleu.sentence_bleu(hyp, [ref]) returns with its
        defaults (exp smoothing, effective order, 13a), bit for bit, on every WMT17 segment;
        it differs from card_bleu where the card's unsmoothed segment BLEU is 0 (issue 23:
        line 398 is 0 against 34.67)."""
        from sacrebleu import sentence_bleu

        path = tmp_path / "s.jsonl"
        code, _, _ = _run(capsys, REF, "-i", SYS, "-s", "none", "--segments", str(path))
        objs = _jsonl(path)
        assert code == 0 and len(objs) == 3004
        for obj, h, r in zip(objs, _lines(SYS), _lines(REF)):
            assert obj["sacrebleu_sentence_BLEU"] == sentence_bleu(h, [r]).score, obj["line"]
        line_398 = objs[397]
        assert line_398["card_bleu"] == 0 and f"{line_398['sacrebleu_sentence_BLEU']:.2f}" == "34.67"

    def test_statistics_and_tokens_are_the_truths(self, capsys, tmp_path):
        """Tokens are sacreBLEU's 13a tokens of each line; the statistics the truth counts on them."""
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        path = tmp_path / "s.jsonl"
        code, _, _ = _run(capsys, REF, "-i", SYS, "--segments", str(path))
        tok = Tokenizer13a()
        objs = _jsonl(path)
        assert code == 0
        for obj, h, r in zip(objs, _lines(SYS), _lines(REF)):
            hyp, ref = tok(h).split(), tok(r).split()
            assert obj["hyp_tokens"] == hyp and obj["ref_tokens"] == [ref]
            m, t, c, rl = segment_truth_stats(hyp, [ref], 4)
            assert (obj["matches"], obj["totals"], obj["hyp_len"], obj["ref_len"]) == (m, t, c, rl)

    def test_several_references_and_lowercase(self, capsys, tmp_path):
        """One token list per reference file, lowercased with -lc, as scored."""
        hyp = tmp_path / "h.txt"
        r1, r2 = tmp_path / "r1.txt", tmp_path / "r2.txt"
        hyp.write_text("The Cat sat\n\n", encoding="utf-8")
        r1.write_text("the cat sat\nA b\n", encoding="utf-8")
        r2.write_text("THE DOG\nc\n", encoding="utf-8")
        path = tmp_path / "s.jsonl"
        code, _, _ = _run(capsys, str(r1), str(r2), "-i", str(hyp), "-lc", "-tok", "none",
                          "--segments", str(path))
        a, b = _jsonl(path)
        assert code == 0
        assert a["hyp_tokens"] == ["the", "cat", "sat"]
        assert a["ref_tokens"] == [["the", "cat", "sat"], ["the", "dog"]]
        assert b["hyp_tokens"] == [] and b["ref_tokens"] == [["a", "b"], ["c"]]
        assert b["card_bleu"] == 0 and b["hyp_len"] == 0

    def test_several_systems_one_file(self, capsys, tmp_path):
        """Two systems read in one pass: 2 x 3004 lines, each system's lines in segment order
        (the systems alternate block by block), named."""
        path = tmp_path / "s.jsonl"
        code, _, _ = _run(capsys, REF, "-i", SYS, REF, "--segments", str(path))
        objs = _jsonl(path)
        assert code == 0 and len(objs) == 2 * 3004
        for name in (SYS, REF):
            mine = [o for o in objs if o["system"] == name]
            assert [o["segment"] for o in mine] == list(range(3004))
        assert objs[0]["system"] == SYS
        assert all(o["card_bleu"] == 1 for o in objs if o["system"] == REF and o["hyp_len"] >= 4)

    def test_small_blocks_keep_tokens_aligned(self, capsys, tmp_path, monkeypatch):
        """With tiny streaming blocks the tokens stay beside their own statistics."""
        import bleu_compat.stream as stream

        monkeypatch.setattr(stream, "_FIRST_BLOCK_LINES", 7)
        monkeypatch.setattr(stream, "STREAM_BLOCK_TOKENS", 50)
        path = tmp_path / "s.jsonl"
        code, _, _ = _run(capsys, REF, "-i", SYS, "--segments", str(path))
        assert code == 0
        for obj in _jsonl(path):
            assert obj["hyp_len"] == len(obj["hyp_tokens"])
            m, t, c, rl = segment_truth_stats(obj["hyp_tokens"], obj["ref_tokens"], 4)
            assert (obj["matches"], obj["totals"]) == (m, t)


@pytest.fixture(scope="module")
def compared(tmp_path_factory) -> tuple[list[dict], str]:
    """(--segments objects, the text output) of the WMT17 --compare run."""
    import contextlib

    path = tmp_path_factory.mktemp("seg") / "s.jsonl"
    with contextlib.redirect_stdout(io.StringIO()) as out, \
            contextlib.redirect_stderr(io.StringIO()):
        code = main(["score", REF, "-i", SYS, "--compare", "--segments", str(path)])
    assert code == 0
    return _jsonl(path), out.getvalue()


class TestSegmentCauses:
    @pytest.fixture()
    def objs(self, compared) -> list[dict]:
        return compared[0]

    def test_floor_marks_the_short_hypotheses_where_the_text_does(self, objs):
        """The floor's lines, per pair, each with the text's note: on str.split() tokens the 22
        hypotheses shorter than 4 (counted here), on 13a tokens the five lines 398, 411, 727,
        2223, 2987; both ends for both pairs where the floor is a step (issue 23: the segments
        once marked 5 where the text printed 22)."""
        split_short = [k + 1 for k, h in enumerate(_lines(SYS)) if len(h.split()) < 4]
        floor = "NLTK-DENOMINATOR-FLOOR"
        for pair in ("sacrebleu -> nltk", "nltk -> card"):
            where = {o["line"]: o["causes"].get(pair, {}).get(floor, "") for o in objs}
            on_split = [n for n, w in where.items() if "on str.split() tokens" in w]
            on_13a = [n for n, w in where.items() if "on 13a tokens" in w]
            assert on_split == split_short and len(on_split) == 22
            assert on_13a == [398, 411, 727, 2223, 2987]
        assert all(floor not in o["causes"].get("sacrebleu -> card", {}) for o in objs)

    def test_tokenization_marks_segments_whose_statistics_change(self, objs):
        """A segment is behind tokenization when its statistics differ between 13a and str.split()."""
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        tok = Tokenizer13a()
        for obj, h, r in zip(objs, _lines(SYS), _lines(REF)):
            changed = (segment_truth_stats(h.split(), [r.split()], 4)
                       != segment_truth_stats(tok(h).split(), [tok(r).split()], 4))
            assert ("tokenization" in obj["causes"].get("sacrebleu -> nltk", [])) == changed

    def test_same_lines_as_the_text_prints(self, compared):
        """The per-segment markers and the text's 'lines behind a cause' are one definition."""
        objs, text = compared
        marked = [o["line"] for o in objs
                  if "tokenization" in o["causes"].get("sacrebleu -> nltk", {})]
        assert len(marked) == 2956 and marked[:10] == list(range(1, 11))
        for note in ("hypotheses shorter than 4 tokens on str.split() tokens",
                     "hypotheses shorter than 4 tokens on 13a tokens"):
            floor = [o["line"] for o in objs if note in o["causes"].get(
                "sacrebleu -> nltk", {}).get("NLTK-DENOMINATOR-FLOOR", "")]
            # issue 23: the text ranks the lines by their effect; the same lines, the same count
            head = f"lines behind NLTK-DENOMINATOR-FLOOR ({note}: {len(floor)} lines)"
            pair = text.split("sacrebleu -> nltk:")[1].split("\n\n")[0]
            line = next(x for x in pair.splitlines() if head in x)
            shown = [int(t.split(" (")[0]) for t in line.split("(each line alone, points): ")[1]
                     .split(" (evaluated")[0].split(", ...")[0].split("), ")]
            assert len(shown) == min(10, len(floor)) and set(shown) <= set(floor)


class TestProgress:
    def test_plain_scoring_leaves_stderr_clean_when_not_a_terminal(self, capsys):
        code, out, err = _run(capsys, REF, "-i", SYS)
        assert code == 0 and err == "" and SACRE_SIG in out

    def test_spinner_appears_only_after_the_delay(self):
        """On a terminal: nothing for a quick run, a spinner once the run outlasts the delay."""
        from rich.console import Console

        from bleu_compat.cli.score.progress import progress_on_stderr as _progress

        quick = io.StringIO()
        with _progress(Console(file=quick, force_terminal=True), delay=5) as progress:
            progress("scoring quick")
        time.sleep(0.1)
        assert quick.getvalue() == ""  # the timer was cancelled: nothing, ever
        slow = io.StringIO()
        with _progress(Console(file=slow, force_terminal=True), delay=0.05) as progress:
            progress("scoring slow")
            deadline = time.monotonic() + 10  # a loaded machine may start the timer late
            while "scoring slow" not in slow.getvalue() and time.monotonic() < deadline:
                time.sleep(0.05)
        assert "scoring slow" in slow.getvalue()

    def test_not_a_terminal_is_a_no_op(self, monkeypatch):
        import sys

        from bleu_compat.cli.score.progress import progress_on_stderr as _progress

        monkeypatch.setattr(sys, "stderr", io.StringIO())
        with _progress(delay=0) as progress:
            progress("x")
            time.sleep(0.05)
        assert sys.stderr.getvalue() == ""


class TestSignatureEverywhere:
    @pytest.mark.parametrize("fmt", ["line", "table", "markdown", "csv"])
    def test_each_card_format_on_stdout(self, capsys, fmt):
        code, out, _ = _run(capsys, REF, "-i", SYS, "-f", fmt)
        assert code == 0 and SIG_EXP in out

    @pytest.mark.parametrize("fmt", ["json", "text"])
    def test_each_sacrebleu_format_on_stdout(self, capsys, fmt):
        code, out, _ = _run(capsys, REF, "-i", SYS, "-f", fmt)
        assert code == 0 and SACRE_SIG in out

    def test_json_flag(self, capsys):
        code, out, _ = _run(capsys, REF, "-i", SYS, "--json")
        assert code == 0 and json.loads(out)["signature"] == SIG_EXP

    def test_score_only_keeps_stdout_bare(self, capsys):
        """-b: stdout is the number alone, sacreBLEU's (one decimal, exp smoothing); the card's
        signature on stderr in the `HYP REF` form."""
        code, out, err = _run(capsys, REF, "-i", SYS, "-b")
        assert code == 0 and out == "28.3\n"
        code, out, err = _run(capsys, SYS, REF, "-tok", "13a", "-b", command="card-score")
        assert code == 0 and out == "28.30\n" and err == f"signature: {SIG}\n"

    def test_legacy_json_is_still_the_card_object(self, capsys):
        """`card-score HYP REF --json`: the card's output object on stdout, the signature and the
        files' roles on stderr."""
        code, out, err = _run(capsys, SYS, REF, "--json", command="card-score")
        assert code == 0 and "signature" not in json.loads(out)
        assert err.startswith(f"signature: {SIG.replace('tok:13a', 'tok:none')}\nhypothesis: {SYS}")

    def test_compare_json_and_text(self, capsys):
        code, out, _ = _run(capsys, REF, "-i", SYS, "--compare", "sacrebleu", "card", "-f", "json")
        assert code == 0 and json.loads(out)["signature"] == SIG_EXP
        code, out, _ = _run(capsys, REF, "-i", SYS, "--compare", "sacrebleu", "card")
        assert code == 0 and f"signature: {SIG_EXP}" in out


class TestFreshUserFindings:
    @pytest.mark.parametrize("argv", [["--bogus"], [REF, "-i", SYS, "--bogus"],
                                      ["--bogus", REF, SYS], [REF, SYS, "--nope=1"]])
    def test_unknown_option_gets_scores_usage(self, capsys, argv):
        code, out, err = _run(capsys, *argv)
        assert code == 2 and out == ""
        assert err.startswith("bleu-compat score: unexpected argument ") and err.count("\n") == 1

    @pytest.mark.parametrize("argv", [["-t", "wmt17"], ["-t", "wmt17", "-b"],
                                      ["--test-set", "wmt22"]])
    def test_test_set_without_files_says_no_download(self, capsys, argv):
        code, out, err = _run(capsys, *argv)
        assert code == 2 and out == ""
        assert "downloads nothing" in err and "fixtures/real/wmt17-en-de-uedin-nmt" in err
        assert "required" not in err

    def test_no_files_at_all(self, capsys):
        code, out, err = _run(capsys)
        assert code == 2 and out == "" and "FILE" in err and "Traceback" not in err

    @pytest.mark.parametrize("flag, value", [("--decimals", "101"), ("--width", "1000"),
                                             ("-w", "-1"), ("--decimals", "-3")])
    def test_width_error_names_the_flag_typed(self, capsys, flag, value):
        code, out, err = _run(capsys, REF, "-i", SYS, flag, value)
        assert code == 2 and out == ""
        assert re.search(rf"{re.escape(flag)} {re.escape(value)}: must be between 0 and 100", err)

    @pytest.mark.parametrize("flag", ["--html", "--segments"])
    @pytest.mark.parametrize("target", ["/proc/bleu-compat-x.out", "{tmp}/missing/dir/x.out",
                                        "{tmp}"])
    def test_unwritable_output_fails_before_running(self, capsys, tmp_path, flag, target,
                                                    monkeypatch):
        """An output that cannot be written: exit 2 naming it, before any library runs."""
        import bleu_compat.decompose as decompose

        def never(*args, **kwargs):
            raise AssertionError("the comparison ran")

        monkeypatch.setattr(decompose, "compare", never)
        path = target.format(tmp=tmp_path)
        code, out, err = _run(capsys, REF, "-i", SYS, "--compare", flag, path)
        assert code == 2 and out == ""
        assert f"{flag}: cannot write {path}" in err and "Traceback" not in err

    def test_writable_probe_leaves_no_file_on_an_input_error(self, capsys, tmp_path):
        """The probe does not leave a file behind when the run then fails on its input."""
        seg = tmp_path / "s.jsonl"
        code, _, _ = _run(capsys, REF, "-i", str(tmp_path / "missing.txt"), "--segments", str(seg))
        assert code == 2 and not seg.exists()


class TestTokenJson:
    """The token lists are written without the JSON encoder where nothing needs escaping; the
    text must be exactly what json.dumps writes, for tokens of every kind."""

    @staticmethod
    def _encoder():
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

    @settings(max_examples=2000, deadline=None)
    @given(st.lists(st.lists(st.text(min_size=1, max_size=6), max_size=5), max_size=5))
    def test_equals_json_dumps(self, lists: list[list[str]]) -> None:
        from bleu_compat.cli.score.segments import json_token_lists as _json_token_lists

        dumps = self._encoder()
        assert _json_token_lists(lists, dumps) == [json.dumps(t, ensure_ascii=False, separators=(",", ":"))
                                                   for t in lists]

    @pytest.mark.parametrize("token", ['"', "\\", "\x00", "\x01", "\x1f", 'a"b', "a\\b", "\u2028", "\x7f",
                                       "ü", "日本", "\ud7ff"])
    def test_each_escape_class(self, token: str) -> None:
        from bleu_compat.cli.score.segments import json_token_lists as _json_token_lists

        for tokens in ([token], ["a", token], [token, token]):
            text = _json_token_lists([tokens], self._encoder())[0]
            assert json.loads(text) == tokens
            assert text == json.dumps(tokens, ensure_ascii=False, separators=(",", ":"))

    def test_end_to_end_tokens_with_quotes_backslashes_and_controls(self, capsys, tmp_path):
        hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
        lines = ['say "hi" \\ back\x01slash ü', "plain words here", 'x\\"y', ""]
        hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        ref.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
        path = tmp_path / "s.jsonl"
        code, _, _ = _run(capsys, str(ref), "-i", str(hyp), "-tok", "none", "--segments", str(path))
        objs = _jsonl(path)
        assert code == 0 and len(objs) == len(lines)
        for obj, h, r in zip(objs, lines, reversed(lines)):
            assert obj["hyp_tokens"] == h.split() and obj["ref_tokens"] == [r.split()]


class TestSegmentsCompleteOrAbsent:
    """`--segments FILE` killed mid-write (SIGKILL: no handler runs) leaves no FILE, or an
    earlier FILE untouched, never a prefix of valid JSON lines that looks complete (issue 24)."""

    N = 40_000

    def _inputs(self, tmp_path: Path) -> tuple[Path, Path]:
        hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
        hyp.write_text("".join(f"the cat {i} sat on the mat today\n" for i in range(self.N)))
        ref.write_text("".join(f"the cat {i} sat on a mat today\n" for i in range(self.N)))
        return hyp, ref

    def _kill_mid_write(self, tmp_path: Path, out: Path) -> bool:
        """Start `score --segments out`, SIGKILL it once some of its lines are on disk;
        True when it was still running at the kill."""
        import os
        import signal
        import subprocess
        import sys

        hyp, ref = self._inputs(tmp_path)
        before = {p.name: p.stat().st_size for p in out.parent.iterdir()}
        proc = subprocess.Popen([sys.executable, "-m", "bleu_compat", "score", str(ref), "-i",
                                 str(hyp), "--segments", str(out), "-b"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        try:
            while time.monotonic() < deadline and proc.poll() is None:
                written = [p for p in out.parent.iterdir()
                           if p.name not in ("hyp.txt", "ref.txt")
                           and p.stat().st_size > before.get(p.name, 0) + 4096]
                if written:
                    break
                time.sleep(0.005)
            alive = proc.poll() is None
            if alive:
                os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(timeout=60)
        return alive

    def test_killed_new_file_is_absent(self, tmp_path: Path) -> None:
        out = tmp_path / "seg.jsonl"
        if not self._kill_mid_write(tmp_path, out):
            pytest.skip("the run finished before it could be killed mid-write")
        assert not out.exists(), f"{len(_lines(str(out)))} of {self.N} lines left under the name"
        left = [p.name for p in tmp_path.iterdir() if p.name not in ("hyp.txt", "ref.txt")]
        # the temporary file names its process (a later run removes it: test_foreign_code.py)
        assert all(name.startswith(".bleu-compat-tmp.") and ".seg.jsonl." in name for name in left), left

    def test_killed_rewrite_keeps_the_earlier_file(self, tmp_path: Path) -> None:
        out = tmp_path / "seg.jsonl"
        earlier = '{"system":"earlier run","segment":0}\n'
        out.write_text(earlier)
        if not self._kill_mid_write(tmp_path, out):
            pytest.skip("the run finished before it could be killed mid-write")
        assert out.read_text() == earlier

    def test_finished_run_is_complete_and_leaves_no_temporary(self, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
        hyp, ref = self._inputs(tmp_path)
        out = tmp_path / "seg.jsonl"
        out.write_text("earlier\n")
        code, _, _ = _run(capsys, str(ref), "-i", str(hyp), "--segments", str(out), "-b")
        assert code == 0
        rows = _jsonl(out)
        assert [r["line"] for r in rows] == list(range(1, self.N + 1))
        assert sorted(p.name for p in tmp_path.iterdir()) == ["hyp.txt", "ref.txt", "seg.jsonl"]

    def test_failed_run_leaves_the_earlier_file(self, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
        """Line counts differ (found at the end of the shorter file): exit 2, the earlier
        FILE as it was, no temporary file left."""
        hyp, ref = self._inputs(tmp_path)
        ref.write_text(ref.read_text() + "one more line\n")
        out = tmp_path / "seg.jsonl"
        out.write_text("earlier\n")
        code, _, err = _run(capsys, str(ref), "-i", str(hyp), "--segments", str(out), "-b")
        assert code == 2, err
        assert out.read_text() == "earlier\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["hyp.txt", "ref.txt", "seg.jsonl"]

    def test_a_symbolic_link_keeps_pointing_at_the_new_file(self, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
        hyp, ref = self._inputs(tmp_path)
        real = tmp_path / "real.jsonl"
        real.write_text("earlier\n")
        link = tmp_path / "link.jsonl"
        link.symlink_to(real)
        code, _, _ = _run(capsys, str(ref), "-i", str(hyp), "--segments", str(link), "-b")
        assert code == 0 and link.is_symlink()
        assert len(_lines(str(real))) == self.N
