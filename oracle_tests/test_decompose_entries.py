"""``score --compare``: one factor per catalog entry, on corpora where each entry moves the score.

Issue 13, "each library quirk of the catalog": the decomposition's arithmetic
is split into the catalog's entries. Each test builds a tiny corpus whose
statistics make one entry matter, and takes its expected values from the
libraries themselves (sacreBLEU's ``corpus_score``, NLTK's ``corpus_bleu``),
from the card's formula evaluated here in plain doubles in the card's order
(SPEC.md §2), or from a transcription of NLTK's last step written here
(``bp * exp(math.fsum(w_i * log(p_i)))``, ``nltk/translate/bleu_score.py``);
never from the code under test.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from bleu_compat.cli import main

# The tests call NLTK's corpus_bleu themselves for expected values; its zero-overlap UserWarning is
# the library talking to the test, not the product's output (which keeps NLTK's warnings out).
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:nltk.translate.bleu_score")

sacrebleu = pytest.importorskip("sacrebleu")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")


def _files(tmp_path: Path, hyps: list[str], refs: list[str]) -> tuple[str, str]:
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    ref.write_text("".join(r + "\n" for r in refs), encoding="utf-8")
    return str(hyp), str(ref)


def _compare(capsys: pytest.CaptureFixture[str], *argv: str, command: str = "score") -> dict:
    code = main([command, *argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (row,) = json.loads(out)["systems"]
    return row["compare"]


def _card_bleu(matches: list[int], totals: list[int], c: int, r: int) -> float:
    """bleu-corpus-compute in card order: bp * exp((1/N) * sum(ln(m_n / l_n))), 0 on a zero match."""
    if any(m == 0 for m in matches):
        return 0.0
    bp = 1.0 if c > r else math.exp(1 - r / c)
    log_sum = 0.0
    for m, t in zip(matches, totals):
        log_sum += math.log(m / t)
    return bp * math.exp((1 / len(matches)) * log_sum)


def _nltk_last_step(precisions: list[float], bp: float) -> float:
    """NLTK corpus_bleu's last step, transcribed: bp * exp(fsum(w_i * log p_i for p_i > 0))."""
    w = 1 / len(precisions)
    return bp * math.exp(math.fsum(w * math.log(p) for p in precisions if p > 0))


def _check_chain(d: dict) -> None:
    """Each step starts where the previous ended; the steps and the Shapley values add up exactly."""
    before = d["start_bleu"]
    for c in d["causes"]:
        assert c["bleu_before"] == before
        before = c["bleu_after"]
    assert before == d["end_bleu"]
    exact = sum((Fraction(c["bleu_after"]) - Fraction(c["bleu_before"]) for c in d["causes"]),
                Fraction(0))
    assert exact == Fraction(d["end_bleu"]) - Fraction(d["start_bleu"])


#: one segment whose 4-grams never match (a b c d, b c d e against a b c x e f): clipped
#: precisions 4/5 (a b c e), 2/4 (a b, b c), 1/3 (a b c), 0/2; c = 5, r = 6
ZERO_4GRAM = (["a b c d e"], ["a b c x e f"])


class TestNltkZeroMatchTiny:
    def test_the_tiny_value_is_the_only_cause(self, capsys, tmp_path):
        """nltk -> card: NLTK's sys.float_info.min precision gives 6.04e-78 (0-1 scale) where the card gives 0."""
        hyp, ref = _files(tmp_path, *ZERO_4GRAM)
        own = nltk_bleu.corpus_bleu([[r.split()] for r in ZERO_4GRAM[1]],
                                    [h.split() for h in ZERO_4GRAM[0]])
        # counted by hand: unigrams a b c e of 5; bigrams a b, b c of 4; trigram a b c of 3
        bp = math.exp(1 - 6 / 5)
        independent = _nltk_last_step([4 / 5, 2 / 4, 1 / 3, sys.float_info.min], bp)
        assert own == independent > 0
        cmp = _compare(capsys, hyp, ref, "--compare", "nltk", "card", command="card-score")
        (d,) = cmp["decomposition"]
        assert d["start_bleu"] == own and d["end_bleu"] == 0.0
        assert [c["cause"] for c in d["causes"]] == ["NLTK-ZERO-MATCH-TINY"]
        (c,) = d["causes"]
        assert (c["bleu_before"], c["bleu_after"]) == (own, 0.0)
        assert c["shapley"] == float(-100 * Fraction(own))  # the only mover: its whole step
        # the floor is switched on at NLTK's end but no hypothesis is shorter than 4 tokens
        assert "NLTK-DENOMINATOR-FLOOR" in d["inert"]
        _check_chain(d)

    def test_against_sacrebleu_unsmoothed_the_tiny_value_still_explains_it(self, capsys, tmp_path):
        """sacrebleu (smooth none) -> nltk: sacreBLEU's my_log(0) gives 0; NLTK's tiny value
        is the one factor that moves the score, the float orders move nothing here."""
        hyp, ref = _files(tmp_path, *ZERO_4GRAM)
        sacre = sacrebleu.corpus_bleu(ZERO_4GRAM[0], [ZERO_4GRAM[1]], smooth_method="none").score
        own = nltk_bleu.corpus_bleu([[r.split()] for r in ZERO_4GRAM[1]],
                                    [h.split() for h in ZERO_4GRAM[0]])
        assert sacre == 0.0
        cmp = _compare(capsys, ref, "-i", hyp, "--compare", "sacrebleu:smooth=none", "nltk")
        (d,) = cmp["decomposition"]
        assert (d["start_bleu"], d["end_bleu"]) == (0.0, own)
        assert [c["cause"] for c in d["causes"]] == ["NLTK-ZERO-MATCH-TINY"]
        assert "SACREBLEU-FLOAT-ORDER / NLTK-FLOAT-ORDER" in d["inert"]
        assert d["causes"][0]["shapley"] == float(100 * Fraction(own))
        _check_chain(d)


class TestNltkMethod1ZeroEpsilon:
    def test_a_zero_precision_left_out_of_the_sum(self, capsys, tmp_path):
        """method1 with epsilon 0: NLTK skips the 0.0 precision (49.47), the card's score is 0."""
        hyp, ref = _files(tmp_path, *ZERO_4GRAM)
        sf = nltk_bleu.SmoothingFunction(epsilon=0.0)
        own = nltk_bleu.corpus_bleu([[r.split()] for r in ZERO_4GRAM[1]],
                                    [h.split() for h in ZERO_4GRAM[0]], smoothing_function=sf.method1)
        independent = _nltk_last_step([4 / 5, 2 / 4, 1 / 3, 0.0], math.exp(1 - 6 / 5))
        assert own == independent and f"{100 * own:.6f}" == "49.473859"
        cmp = _compare(capsys, hyp, ref, "--compare", "nltk:smooth=method1,value=0",
                       "card:smooth=method1,value=0", command="card-score")
        (d,) = cmp["decomposition"]
        assert [c["cause"] for c in d["causes"]] == ["NLTK-METHOD1-ZERO-EPSILON"]
        (c,) = d["causes"]
        assert (c["bleu_before"], c["bleu_after"]) == (own, 0.0)
        assert c["shapley"] == float(-100 * Fraction(own))
        _check_chain(d)


#: two segments whose corpus score sacreBLEU computes one ULP away from the card's order
#: (found by a search over random six-word corpora against the card's formula)
FLOAT_CORPUS = (["d f e c e c a", "a b b f d b"], ["b d e e c e c e", "f c c a b a e a"])


class TestSacrebleuFloatOrder:
    def test_one_ulp_from_the_order_of_operations(self, capsys, tmp_path):
        """sacrebleu (smooth none) -> card: SACREBLEU-FLOAT-ORDER is the whole gap, one ULP."""
        hyp, ref = _files(tmp_path, *FLOAT_CORPUS)
        s = sacrebleu.corpus_bleu(FLOAT_CORPUS[0], [FLOAT_CORPUS[1]], tokenize="none",
                                  smooth_method="none")
        card = _card_bleu(list(s.counts), list(s.totals), s.sys_len, s.ref_len)
        assert s.score / 100 == 0.2304910377472154 and card == 0.23049103774721538
        assert math.ulp(card) == abs(s.score / 100 - card)
        cmp = _compare(capsys, ref, "-i", hyp, "-tok", "none", "--compare",
                       "sacrebleu:smooth=none,tok=none", "card")
        (d,) = cmp["decomposition"]
        assert (d["start_bleu"], d["end_bleu"]) == (s.score / 100, card)
        assert [c["cause"] for c in d["causes"]] == ["SACREBLEU-FLOAT-ORDER"]
        assert Fraction(d["causes"][0]["bleu_after"]) - Fraction(d["causes"][0]["bleu_before"]) \
            == Fraction(card) - Fraction(s.score / 100)
        _check_chain(d)

    def test_with_exp_smoothing_the_smoothing_entry_is_named(self, capsys, tmp_path):
        """sacreBLEU's default exp: no order without a match, so smoothing is inert and the
        float order carries its -SMOOTHING id (against the unsmoothed card, asked for by its own
        key: the card follows the command's exp otherwise, issue 23)."""
        hyp, ref = _files(tmp_path, *FLOAT_CORPUS)
        cmp = _compare(capsys, ref, "-i", hyp, "-tok", "none", "--compare", "sacrebleu:tok=none",
                       "card:smooth=none")
        (d,) = cmp["decomposition"]
        assert [c["cause"] for c in d["causes"]] == ["SACREBLEU-FLOAT-ORDER-SMOOTHING"]
        assert "smoothing" in d["inert"]


class TestNltkFloatOrder:
    def test_wmt17_last_step_is_nltks_order(self):
        """WMT17 nltk -> card: after tokenization and the floor, NLTK-FLOAT-ORDER moves
        the score from NLTK's order (transcribed here) to the card's, on 13a statistics."""
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        from bleu_compat.decompose import compare

        root = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
        hyp_path, ref_path = root / "sys.uedin-nmt.4722.txt", root / "ref.A.txt"
        res = compare(str(hyp_path), [str(ref_path)])
        d = next(x for x in res.decompositions if (x.frm, x.to) == ("nltk", "card"))
        names = [c.cause for c in d.causes]
        assert names == ["tokenization", "NLTK-DENOMINATOR-FLOOR", "NLTK-FLOAT-ORDER"]
        tok = Tokenizer13a()
        read = lambda p: [line.rstrip("\n") for line in p.open(encoding="utf-8")]  # noqa: E731
        s = sacrebleu.corpus_bleu(read(hyp_path), [read(ref_path)], smooth_method="none")
        nltk_order = _nltk_last_step([m / t for m, t in zip(s.counts, s.totals)],
                                     1.0 if s.sys_len > s.ref_len else math.exp(1 - s.ref_len / s.sys_len))
        card = _card_bleu(list(s.counts), list(s.totals), s.sys_len, s.ref_len)
        last = d.causes[-1]
        assert (last.start, last.end) == (nltk_order, card) and nltk_order != card
        assert tok  # the 13a tokenizer is sacreBLEU's own (its statistics above)


class TestInertEntries:
    def test_entries_whose_conditions_hold_but_move_nothing(self, capsys, tmp_path):
        """All hypotheses shorter than 4 tokens: a zero 4-gram total (SACREBLEU-SMOOTHING-STOPS-
        AT-ZERO-TOTAL's condition). Unsmoothed, every dialect scores 0 (the card's zero-match
        branch, sacreBLEU's my_log(0), NLTK's ZeroDivision guard): nothing to step."""
        hyp, ref = _files(tmp_path, ["a b c", "a b"], ["a b c", "a b"])
        s = sacrebleu.corpus_bleu(["a b c", "a b"], [["a b c", "a b"]], smooth_method="none")
        assert s.totals[3] == 0 and s.score == 0.0
        cmp = _compare(capsys, ref, "-i", hyp, "-tok", "none", "--compare",
                       "sacrebleu:smooth=none,tok=none", "card")
        (d,) = cmp["decomposition"]
        assert d["causes"] == []
        assert "SACREBLEU-SMOOTHING-STOPS-AT-ZERO-TOTAL" in d["inert"]
        assert "SACREBLEU-FLOAT-ORDER" in d["inert"]


class TestShapleyLimit:
    def test_more_factors_than_the_limit_says_so(self, capsys, monkeypatch):
        """Above MAX_SHAPLEY factors that move the score, no Shapley values, and the output says so."""
        from bleu_compat import decompose

        monkeypatch.setattr(decompose, "MAX_SHAPLEY", 1)
        root = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
        code = main(["score", str(root / "ref.A.txt"), "-i", str(root / "sys.uedin-nmt.4722.txt"),
                     "--compare", "sacrebleu", "nltk"])
        out, _ = capsys.readouterr()
        assert code == 0
        assert "3 factors move the score: more than 1, no Shapley values" in out


class TestSentenceAverage:
    def test_the_mean_of_sentence_bleu_and_no_fake_decomposition(self, capsys):
        """sacrebleu-sentence-avg is the plain mean of sacrebleu.sentence_bleu (its defaults:
        13a, exp, effective order) over the segments, called here one by one; its gap to a
        corpus BLEU is 'not decomposable: different aggregation', and that is not UNEXPECTED."""
        root = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
        read = lambda p: [line.rstrip("\n") for line in p.open(encoding="utf-8")]  # noqa: E731
        hyps, refs = read(root / "sys.uedin-nmt.4722.txt"), read(root / "ref.A.txt")
        scores = [sacrebleu.sentence_bleu(h, [r]).score for h, r in zip(hyps, refs)]
        own = sum(scores) / len(scores)
        assert f"{own:.2f}" == "26.83"
        code = main(["score", str(root / "ref.A.txt"), "-i", str(root / "sys.uedin-nmt.4722.txt"),
                     "--compare", "sacrebleu", "sacrebleu-sentence-avg", "--format", "json"])
        out, _ = capsys.readouterr()
        assert code == 0
        cmp = json.loads(out)["systems"][0]["compare"]
        configs = {c["name"]: c for c in cmp["configurations"]}
        avg = configs["sacrebleu-sentence-avg"]
        assert avg["BLEU"] == own and avg["aggregation"] == "sentence-mean"
        assert "agg:sentence-mean" in avg["settings"] and avg["effective_order"] is True
        (d,) = cmp["decomposition"]
        assert d["causes"] == [] and d["unexpected"] is None
        assert "different aggregation" in d["not_decomposable"]
        assert cmp["unexpected"] is False
