"""score: outputs that would destroy an input, cluster addresses, configuration values, and the
card configurations with method2/method3 (a fresh tester's findings; each with its neighbours).

Expected numbers come from the harness's independent truth (its own n-gram counting and card
formula) on sacreBLEU's own 13a tokens; refusals are checked through ``main`` as a user runs it.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import os
from pathlib import Path

import pytest

from bleu_compat.cli import main
from bleu_compat.harness.truth import segment_truth_stats, truth

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF = str(WMT17 / "ref.A.txt")
SYS = str(WMT17 / "sys.uedin-nmt.4722.txt")


def _score(*argv: str, command: str = "score") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([command, *argv])
    return code, out.getvalue(), err.getvalue()


def _card(*argv: str) -> tuple[int, str, str]:
    """``card-score HYP REF ...`` (``score HYP REF`` before issue 34)."""
    return _score(*argv, command="card-score")


@pytest.fixture()
def corpus(tmp_path: Path) -> tuple[Path, Path]:
    hyp, ref = tmp_path / "h.txt", tmp_path / "r.txt"
    hyp.write_text("a b c d\ne f g\n", encoding="utf-8")
    ref.write_text("a b c d\ne f h\n", encoding="utf-8")
    return hyp, ref


class TestOutputIsAnInput:
    @pytest.mark.parametrize("form", ["card-score", "-i"])
    @pytest.mark.parametrize("spelling", ["same", "dot", "link"])
    @pytest.mark.parametrize("flag", ["--segments", "--html"])
    def test_refused_and_the_input_intact(self, corpus, tmp_path, form, spelling, flag):
        hyp, ref = corpus
        before = hyp.read_bytes(), ref.read_bytes()
        target = {"same": str(hyp), "dot": os.path.join(str(tmp_path), ".", "h.txt"),
                  "link": str(tmp_path / "link.txt")}[spelling]
        if spelling == "link":
            os.symlink(hyp, target)
        files = [str(hyp), str(ref)] if form == "card-score" else [str(ref), "-i", str(hyp)]
        extra = ["--compare"] if flag == "--html" else []
        code, out, err = (_card if form == "card-score" else _score)(*files, *extra, flag, target)
        assert code == 2 and out == "", err
        assert "is an input file of this run" in err and flag in err
        assert (hyp.read_bytes(), ref.read_bytes()) == before

    def test_reference_as_segments_output(self, corpus):
        hyp, ref = corpus
        before = ref.read_bytes()
        code, _, err = _score(str(ref), "-i", str(hyp), "--segments", str(ref))
        assert code == 2 and "is an input file" in err and ref.read_bytes() == before

    def test_both_outputs_on_one_path(self, corpus, tmp_path):
        hyp, ref = corpus
        target = str(tmp_path / "x.out")
        code, _, err = _score(str(ref), "-i", str(hyp), "--compare", "--segments", target, "--html", target)
        assert code == 2 and "the other output's path" in err and not os.path.exists(target)

    @pytest.mark.parametrize("target, words", [("", "an empty file name"),
                                               ("-", "standard output")])
    def test_empty_and_dash(self, corpus, tmp_path, monkeypatch, target, words):
        hyp, ref = corpus
        monkeypatch.chdir(tmp_path)
        code, _, err = _score(str(ref), "-i", str(hyp), "--segments", target)
        assert code == 2 and words in err and "--segments" in err
        assert not (tmp_path / "-").exists()

    def test_a_new_output_still_works(self, corpus, tmp_path):
        hyp, ref = corpus
        code, _, _ = _score(str(ref), "-i", str(hyp), "--segments", str(tmp_path / "s.jsonl"))
        assert code == 0 and len((tmp_path / "s.jsonl").read_text("utf-8").splitlines()) == 2


class TestClusterAddresses:
    @pytest.mark.parametrize("address, words", [
        ("bogus", "missing port"), ("tcp://", "missing port"), ("inproc://x", "inside one process"),
        ("bogus://x", "not a scheme"), ("local:99999999999", "1 to 256"), ("local:0", "local"),
    ])
    def test_refused_before_any_work(self, corpus, address, words):
        hyp, ref = corpus
        code, out, err = _card("--cluster", address, str(hyp), str(ref))
        assert code == 2 and out == "" and words in err and "internal error" not in err, err


class TestConfigurationValues:
    @pytest.mark.parametrize("spec, words", [
        ("nltk:smooth=method1,value=nan", "finite"),
        ("nltk:smooth=method1,value=inf", "finite"),
        ("sacrebleu:smooth=floor,value=inf", "finite"),
        ("nltk:smooth=method1,value=-1", "[0, 1]"),
        ("nltk:smooth=method1,value=2", "[0, 1]"),
        ("nltk:smooth=method1,value=1e308", "[0, 1]"),
        ("card:smooth=method1,value=1.0000001", "[0, 1]"),
        ("nltk:value=0.2", "used only with smooth=method1"),
        ("sacrebleu:smooth=exp,value=0.5", "used only with smooth=floor or add-k"),
        ("card:smooth=method3,value=0.5", "used only with smooth=method1"),
        ("nltk:order=100000", "1 to 8"), ("nltk:order=9", "1 to 8"), ("nltk:order=0", "1 to 8"),
        ("nltk:order=٣", "1 to 8"),
    ])
    def test_refused_like_the_flags(self, corpus, spec, words):
        hyp, ref = corpus
        code, out, err = _score(str(ref), "-i", str(hyp), "--compare", spec)
        assert code == 2 and out == "" and words in err, err
        assert "put --compare after the files" not in err  # the spec is no file name

    @pytest.mark.parametrize("spec", ["nltk:smooth=method1,value=0", "nltk:smooth=method1,value=1",
                                      "nltk:value=0.2,smooth=method1", "nltk:order=8"])
    def test_edges_accepted(self, corpus, spec):
        hyp, ref = corpus
        code, _, err = _score(str(ref), "-i", str(hyp), "--compare", spec)
        assert code in (0, 1) and "must" not in err, err

    def test_a_swallowed_file_gets_the_hint(self, corpus):
        hyp, ref = corpus
        code, _, err = _score(str(ref), "-i", str(hyp), "--config", str(ref))
        assert code == 2 and "put --compare after the files" in err and "--config" in err


class TestCardSmoothingConfigurations:
    """card:smooth=method2 and method3 were refused (an epsilon was passed with them)."""

    @staticmethod
    def _truth_bleu(method: str) -> float:
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        tok = Tokenizer13a()
        m, t, c, r = [0] * 4, [0] * 4, 0, 0
        with open(SYS, encoding="utf-8") as hs, open(REF, encoding="utf-8") as rs:
            for h, ref in zip(hs, rs):
                sm, st, sc, sr = segment_truth_stats(tok(h.rstrip("\n")).split(),
                                                     [tok(ref.rstrip("\n")).split()], 4)
                m = [a + b for a, b in zip(m, sm)]
                t = [a + b for a, b in zip(t, st)]
                c, r = c + sc, r + sr
        request = {"matches": m, "totals": t, "candidate_length": c, "reference_length": r,
                   "smoothing": method}
        return truth("bleu-smoothing-compute", request).expected["bleu"]

    @pytest.mark.parametrize("method", ["method2", "method3", "method1"])
    def test_the_cards_number(self, method):
        code, out, err = _score(REF, "-i", SYS, "--compare", f"card:smooth={method}", "-f", "json")
        assert code == 0, err
        config = json.loads(out)["systems"][0]["compare"]["configurations"][0]
        assert config["smoothing"] == method
        assert config["bleu"] == self._truth_bleu(method)


def test_compare_before_the_files_says_it_took_them(corpus):
    """``score --compare REF -i SYS``: --compare's CONFIG list swallowed REF; say so."""
    hyp, ref = corpus
    code, out, err = _score("--compare", str(ref), "-i", str(hyp))
    assert code == 2 and out == ""
    assert f"took {str(ref)!r} as a configuration" in err and "put --compare after the files" in err


@pytest.mark.parametrize("spec, words", [
    ("nltk:", "nothing after ':'"), ("nltk:,", "nothing after ':'"), ("card: ", "nothing after ':'"),
    (":", "nothing after ':'"), ("nltk:lc,", "empty item"), ("nltk:lc,,tok=split", "empty item"),
])
def test_cut_off_compare_spec_is_refused(corpus, spec: str, words: str) -> None:
    """A configuration spec cut off after ':' or holding an empty item is a one-line refusal
    (exit 2), not taken silently as the library's defaults; its complete neighbour runs."""
    hyp, ref = corpus
    code, out, err = _score(str(ref), "-i", str(hyp), "--compare", spec)
    assert code == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1, err
    code, out, err = _score(str(ref), "-i", str(hyp), "--compare", spec.split(":")[0] or "card")
    assert code == 0, err


def test_add_k_other_than_one_in_compare_names_the_configuration_that_has_it(corpus) -> None:
    """``-s add-k -sv 2 --compare``: the card (add-k is its method2 only with k = 1) cannot be
    the headline, so it is refused in one line naming the spec that compares sacreBLEU's
    add-k with k = 2; that spec runs and its row carries sacreBLEU's signature for k = 2."""
    hyp, ref = corpus
    code, out, err = _score(str(ref), "-i", str(hyp), "-s", "add-k", "-sv", "2", "--compare")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    suggested = err.split("--compare ")[-1].strip()
    assert suggested == "sacrebleu:smooth=add-k,value=2", err
    code, out, err = _score(str(ref), "-i", str(hyp), "--compare", suggested)
    assert code == 0, err
    assert "smooth:add-k[2.00]|version:" in out


@pytest.mark.parametrize("flag", ["-b", "--score-only"])
def test_score_only_with_compare_is_refused(corpus, flag: str) -> None:
    """-b prints the score alone: with --compare the comparison would run and never be shown
    (a fresh tester's find). One line, exit 2, nothing on standard output."""
    hyp, ref = corpus
    code, out, err = _score(str(ref), "-i", str(hyp), flag, "--compare", "nltk")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--compare" in err and flag.lstrip("-")[:1] in err
    assert _score(str(ref), "-i", str(hyp), flag)[0] == 0  # -b alone still prints the score


def test_a_spec_glued_with_colons_says_how_items_are_separated(corpus) -> None:
    """``nltk:smooth=method1:value=nan`` (':' where ',' belongs) once listed method1 among the
    methods NLTK has, as if it were refused; the message now says items are separated by ','."""
    hyp, ref = corpus
    code, out, err = _score(str(ref), "-i", str(hyp), "--compare", "nltk:smooth=method1:value=nan")
    assert code == 2 and out == "" and "separated by ','" in err
    code, _, err = _score(str(ref), "-i", str(hyp), "--compare", "nltk:smooth=method9")
    assert code == 2 and "separated by" not in err and "nltk has none, method0" in err


class TestANumberThatIsNotFinite:
    """A configuration whose library's own arithmetic gives no finite BLEU (sacreBLEU's add-k
    with value=1e308 gives inf). Alone, it is one line naming it and its number, exit 2,
    nothing on standard output and no output file touched (it printed half the text report
    then "internal error (ValueError: x=inf must be finite)", exit 3; an existing --segments
    file was replaced by rows of empty causes). Beside other configurations it is a row
    saying why it has no number, and the others are compared (issue 34: one refusal aborted
    everything)."""

    INF = "sacrebleu:smooth=add-k,value=1e308"

    @pytest.mark.parametrize("fmt", ["text", "json"])
    def test_alone_it_is_refused_before_any_output(self, corpus, tmp_path, fmt):
        hyp, ref = corpus
        keep = tmp_path / "keep.jsonl"
        keep.write_text('{"kept": true}\n', encoding="utf-8")
        argv = [str(ref), "-i", str(hyp), "-f", fmt, "--segments", str(keep),
                "--html", str(tmp_path / "page.html"), "--compare", self.INF]
        code, out, err = _score(*argv)
        assert code == 2, (out, err)
        assert out == "" and err.count("\n") == 1, (out, err)
        assert f"{self.INF}: sacreBLEU gives BLEU = inf on these files" in err
        assert "no configuration gives a number" in err and "internal error" not in err
        assert keep.read_text(encoding="utf-8") == '{"kept": true}\n'
        assert not (tmp_path / "page.html").exists()

    @pytest.mark.parametrize("configs", [[INF, "nltk"], ["nltk", INF, "card"]])
    def test_beside_others_it_is_a_row_saying_why(self, corpus, tmp_path, configs):
        hyp, ref = corpus
        argv = [str(ref), "-i", str(hyp)]
        for c in configs:
            argv += ["--compare", c]
        code, out, err = _score(*argv, "-f", "json")
        assert code == 0, err
        rows = json.loads(out)["systems"][0]["compare"]["configurations"]
        by_name = {r["name"]: r for r in rows}
        assert set(by_name) == set(configs)
        assert by_name[self.INF]["BLEU"] is None
        assert "sacreBLEU gives BLEU = inf on these files" in by_name[self.INF]["no_number"]
        assert all(isinstance(r["BLEU"], float) for n, r in by_name.items() if n != self.INF)
        code, out, err = _score(*argv)
        assert code == 0, err
        assert re.search(rf"\n  {re.escape(self.INF)} +no number ", out), out
        assert f"{self.INF}: no number: sacreBLEU gives BLEU = inf on these files" in out

    def test_a_large_finite_value_still_compares(self, corpus):
        """The neighbour: value=1e300 gives a finite number, compared as any other. sacreBLEU's
        add-k smooths orders 2 and up only (sacrebleu/metrics/bleu.py, ``compute_bleu``: ``if
        smooth_method == 'add-k' and n > 1``), where (m + 1e300)/(t + 1e300) rounds to 1, so its
        BLEU is 100 × (6/7)^(1/4) here (unigrams 6 of 7, equal lengths: BP = 1)."""
        hyp, ref = corpus
        code, out, err = _score(str(ref), "-i", str(hyp), "-f", "json",
                                "--compare", "sacrebleu:smooth=add-k,value=1e300", "--compare", "nltk")
        assert code in (0, 1), err
        runs = json.loads(out)["systems"][0]["compare"]["configurations"]
        assert [r["name"] for r in runs] == ["sacrebleu:smooth=add-k,value=1e300", "nltk"]
        assert abs(runs[0]["BLEU"] - 100 * (6 / 7) ** 0.25) < 1e-9, runs[0]
