"""Issue 23 item 5: NLTK as users run it (method0-method7, its own tokenizers) and sacreBLEU's
add-k with any k, in ``score --compare`` configurations.

Expected numbers come from NLTK 3.10.4 and sacreBLEU themselves, called here directly
(``corpus_bleu`` with ``SmoothingFunction().methodK``, ``BLEU(smooth_method='add-k',
smooth_value=k)``), never from bleu_compat. The decomposition must reproduce each of them
bit for bit (its end state is the dialect model's value; the pair is UNEXPECTED otherwise).
"""

from __future__ import annotations

import random
import re
import warnings
from fractions import Fraction
from pathlib import Path

import pytest

from bleu_compat.cli import main

nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
sacrebleu = pytest.importorskip("sacrebleu")

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"

WORDS = "the a cat dog sat on mat is was there here big small".split()


def _nltk(hyps: list[str], refs: list[str], method: str, **kw: float) -> float:
    sf = nltk_bleu.SmoothingFunction(**kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(nltk_bleu.corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps],
                                           smoothing_function=getattr(sf, method)))


def _corpus(rng: random.Random, n: int) -> tuple[list[str], list[str]]:
    refs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9))) for _ in range(n)]
    hyps = []
    for ref in refs:
        toks = ref.split()
        # mostly the reference with a few changes: some orders keep matches, some lose them
        toks = [t if rng.random() < 0.6 else rng.choice(WORDS) for t in toks]
        if rng.random() < 0.3:
            toks = toks[: rng.randint(1, len(toks))]
        hyps.append(" ".join(toks))
    return hyps, refs


def _write(tmp: Path, hyps: list[str], refs: list[str]) -> tuple[str, str]:
    h, r = tmp / "hyp.txt", tmp / "ref.txt"
    h.write_text("".join(x + "\n" for x in hyps), encoding="utf-8")
    r.write_text("".join(x + "\n" for x in refs), encoding="utf-8")
    return str(h), str(r)


def _check(result, expected: dict[str, float]) -> None:
    got = {run.config.name: run.bleu for run in result.runs}
    for name, value in expected.items():
        assert got[name] == value, (name, got[name], value)
    for d in result.decompositions:
        assert d.unexpected is None, (d.frm, d.to, d.unexpected)
        assert sum((c.contribution for c in d.causes), Fraction(0)) == d.difference


METHODS = ("method0", "method4", "method5", "method7")


@pytest.mark.parametrize("seed", range(6))
def test_methods_4_to_7_are_nltks_numbers_and_decompose(tmp_path: Path, seed: int) -> None:
    from bleu_compat.decompose import compare

    rng = random.Random(seed)
    hyps, refs = _corpus(rng, rng.randint(2, 5))
    h, r = _write(tmp_path, hyps, refs)
    specs = [f"nltk:smooth={m}" for m in METHODS]
    expected = {f"nltk:smooth={m}": _nltk(hyps, refs, m) for m in METHODS}
    _check(compare(h, [r], ["sacrebleu", *specs]), expected)


@pytest.mark.parametrize("seed", range(4))
def test_methods_with_two_references_and_other_max_orders(tmp_path: Path, seed: int) -> None:
    """Two references per segment and max order 2 or 3 (weights 1/N; method5's order-5 term
    is the last segment's whatever N is)."""
    from bleu_compat.decompose import compare

    rng = random.Random(100 + seed)
    hyps, refs = _corpus(rng, rng.randint(2, 5))
    _, refs2 = _corpus(rng, len(hyps))
    order = 2 + seed % 2
    h, r = _write(tmp_path, hyps, refs)
    r2 = tmp_path / "ref2.txt"
    r2.write_text("".join(x + "\n" for x in refs2), encoding="utf-8")
    expected = {}
    for m in ("method4", "method5", "method7"):
        sf = nltk_bleu.SmoothingFunction()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected[f"nltk:smooth={m},order={order}"] = float(nltk_bleu.corpus_bleu(
                [[a.split(), b.split()] for a, b in zip(refs, refs2)], [x.split() for x in hyps],
                weights=(1 / order,) * order, smoothing_function=getattr(sf, m)))
    _check(compare(h, [r, str(r2)], [f"sacrebleu:order={order}", *expected]), expected)


def test_method4_and_method7_with_a_zero_match_order_differ_from_method0(tmp_path: Path) -> None:
    # no 3-gram and no 4-gram match: method4 gives each its own small count
    hyps, refs = ["the cat is on mat", "hello there world"], ["the cat sat on a mat", "hello world"]
    h, r = _write(tmp_path, hyps, refs)
    from bleu_compat.decompose import compare

    expected = {f"nltk:smooth={m}": _nltk(hyps, refs, m) for m in ("method0", "method4", "method7")}
    assert len(set(expected.values())) == 3
    result = compare(h, [r], ["sacrebleu", *expected, "nltk:smooth=method4,value=2"])
    expected["nltk:smooth=method4,value=2"] = _nltk(hyps, refs, "method4", k=2)
    _check(result, expected)
    d = next(d for d in result.decompositions if d.to == "nltk:smooth=method4")
    smoothing = next(c for c in d.causes if c.cause == "smoothing")
    assert "method4" in smoothing.change and "outside the cards" in smoothing.change


def test_method6_on_wmt17_is_nltks_number(tmp_path: Path) -> None:
    # method6 reads the last segment's n-gram counts (corpus_bleu hands it its loop variable)
    from bleu_compat.decompose import compare

    hyp, ref = str(WMT17 / "sys.uedin-nmt.4722.txt"), str(WMT17 / "ref.A.txt")
    hyps = Path(hyp).read_text(encoding="utf-8").splitlines()
    refs = Path(ref).read_text(encoding="utf-8").splitlines()
    expected = {"nltk:smooth=method6": _nltk(hyps, refs, "method6"),
                "nltk:smooth=method5": _nltk(hyps, refs, "method5")}
    _check(compare(hyp, [ref], ["nltk", *expected]), expected)


def test_method6_without_a_trigram_match_is_a_row_saying_why(tmp_path: Path, capsys) -> None:
    """NLTK's method6 raises AssertionError without a trigram match. Alone, one line naming
    it, exit 2; beside sacreBLEU, its row says so and has no number, and sacreBLEU's is
    compared (issue 34: it was the end of the run, exit 2)."""
    h, r = _write(tmp_path, ["the cat is on mat", "hello there world"],
                  ["the cat sat on a mat", "hello world"])
    with pytest.raises(AssertionError):
        _nltk(["the cat is on mat", "hello there world"], ["the cat sat on a mat", "hello world"],
              "method6")
    code = main(["score", r, "-i", h, "--compare", "nltk:smooth=method6"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "AssertionError" in err and "Traceback" not in err
    code = main(["score", r, "-i", h, "--compare", "sacrebleu", "nltk:smooth=method6"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert re.search(r"\n  nltk:smooth=method6 +no number ", out), out
    assert "nltk:smooth=method6: no number: NLTK" in out and "AssertionError" in out
    assert "Traceback" not in err


@pytest.mark.parametrize("k", (0.5, 2.0, 0.0))
def test_sacrebleu_add_k_any_k(tmp_path: Path, k: float) -> None:
    from sacrebleu.metrics import BLEU

    from bleu_compat.decompose import compare

    rng = random.Random(int(k * 10))
    hyps, refs = _corpus(rng, 4)
    h, r = _write(tmp_path, hyps, refs)
    spec = f"sacrebleu:smooth=add-k,value={k:g}"
    want = BLEU(smooth_method="add-k", smooth_value=k).corpus_score(hyps, [refs]).score / 100
    _check(compare(h, [r], ["sacrebleu", spec, "nltk"]), {spec: want})


def test_treebank_is_nltks_tokenizer_run(tmp_path: Path) -> None:
    from nltk.tokenize import TreebankWordTokenizer

    from bleu_compat.decompose import compare

    hyps = ['He said, "don\'t go."', "It costs $5 (ok)."]
    refs = ['He said: "do not go."', "It costs $5, ok."]
    h, r = _write(tmp_path, hyps, refs)
    tb = TreebankWordTokenizer().tokenize
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = float(nltk_bleu.corpus_bleu([[tb(x)] for x in refs], [tb(x) for x in hyps],
                                           smoothing_function=nltk_bleu.SmoothingFunction().method4))
    _check(compare(h, [r], ["sacrebleu", "nltk:tok=treebank,smooth=method4"]),
           {"nltk:tok=treebank,smooth=method4": want})


def test_word_tokenize_needs_punkt(tmp_path: Path, capsys) -> None:
    import nltk

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
    except LookupError:
        pass
    else:
        pytest.skip("punkt_tab is installed here: the refusal cannot be seen")
    h, r = _write(tmp_path, ["a b"], ["a b"])
    code = main(["score", r, "-i", h, "--compare", "nltk:tok=word_tokenize"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "punkt_tab" in err


@pytest.mark.parametrize("spec, says", [
    ("nltk:smooth=method8", "method0, method1, method2, method3, method4, method5, method6, method7"),
    ("nltk:smooth=method5,value=2", "value=2 is used only with smooth=method1 or method4 or "
                                    "method6 or method7"),
    ("nltk:smooth=method4,value=0", "must be above 0"),
    ("sacrebleu:smooth=add-k,value=-1", "0 or more"),
    ("nltk:tok=mosesx", "treebank, word_tokenize"),
])
def test_refusals_name_what_the_implementation_has(spec: str, says: str) -> None:
    from bleu_compat.decompose import parse_config

    with pytest.raises(ValueError) as info:
        parse_config(spec)
    assert says in str(info.value)
