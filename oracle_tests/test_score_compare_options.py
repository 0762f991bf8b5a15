"""``score --compare`` runs the configuration the user asked for (issue 23, item 2).

Every option given on the command line (-tok, -lc, -s, -sv, --max-order)
applies to every compared configuration that can have it; a configuration that
cannot says so; an option no configuration can have is an error; ``--defaults``
keeps each library at its users' defaults. Expected numbers are the real
libraries' (sacreBLEU's ``BLEU(...).corpus_score``, NLTK's ``corpus_bleu``,
bleuscore's ``compute``), called here directly, never the code under test.
The corpora are the first 300 lines of the bundled WMT17 en-de and WMT22
en-zh files (real text, seconds per run).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from bleu_compat.cli import main

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
WMT22 = ROOT.parent / "shared" / "real" / "wmt22" / "en-zh"
LINES = 300

sacrebleu = pytest.importorskip("sacrebleu")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")


def _head(src: Path, dst: Path) -> list[str]:
    lines = src.read_text(encoding="utf-8").splitlines()[:LINES]
    dst.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return lines


@pytest.fixture(scope="module")
def en_de(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str], list[list[str]]]:
    d = tmp_path_factory.mktemp("wmt17")
    refs = [_head(WMT17 / "ref.A.txt", d / "ref.A.txt")]
    hyps = _head(WMT17 / "sys.uedin-nmt.4722.txt", d / "sys.txt")
    return [str(d / "ref.A.txt")], ["-i", str(d / "sys.txt")], [hyps, *refs]


@pytest.fixture(scope="module")
def en_zh(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str], list[list[str]]]:
    if not WMT22.is_dir():
        pytest.skip(f"{WMT22} is not here (the shared real corpora)")
    d = tmp_path_factory.mktemp("wmt22")
    refs = [_head(WMT22 / f"ref.{k}.txt", d / f"ref.{k}.txt") for k in "AB"]
    hyps = _head(WMT22 / "sys.Online-B.txt", d / "sys.txt")
    return [str(d / "ref.A.txt"), str(d / "ref.B.txt")], ["-i", str(d / "sys.txt")], [hyps, *refs]


def _compare_json(capsys: pytest.CaptureFixture[str], files: tuple, *argv: str) -> dict:
    refs, system, _ = files
    code = main(["score", *refs, *system, *argv, "-f", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _rows(doc: dict) -> dict[str, dict]:
    return {c["name"]: c for c in doc["systems"][0]["compare"]["configurations"]}


def _sacre(lines: list[list[str]], **kw: object) -> float:
    hyps, *refs = lines
    return sacrebleu.metrics.BLEU(**kw).corpus_score(hyps, refs).score


def _nltk(lines: list[list[str]], *, order: int = 4, lc: bool = False, tok=str.split,
          smoothing: str | None = None, epsilon: float | None = None) -> float:
    hyps, *refs = lines
    prep = (lambda s: tok(s.lower())) if lc else tok
    sf = nltk_bleu.SmoothingFunction(epsilon=epsilon) if epsilon is not None \
        else nltk_bleu.SmoothingFunction()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return 100 * nltk_bleu.corpus_bleu(
            [[prep(r) for r in seg] for seg in zip(*refs)], [prep(h) for h in hyps],
            weights=(1 / order,) * order,
            smoothing_function=None if smoothing is None else getattr(sf, smoothing))


def _zh_tokens(line: str) -> list[str]:
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    return TokenizerZh()(line).split()


def test_tok_zh_reaches_every_library(capsys, en_zh):
    """WMT22 en-zh with -tok zh: sacreBLEU's row is sacreBLEU with tokenize='zh', NLTK's is
    corpus_bleu on sacreBLEU's zh tokens (the issue's 48.09-with-13a row is gone)."""
    rows = _rows(_compare_json(capsys, en_zh, "-tok", "zh", "--compare"))
    assert rows["sacrebleu"]["tokenize"] == "zh" and rows["nltk"]["tokenize"] == "zh"
    assert rows["sacrebleu"]["BLEU"] == _sacre(en_zh[2], tokenize="zh")
    assert rows["nltk"]["BLEU"] == pytest.approx(_nltk(en_zh[2], tok=_zh_tokens), abs=0, rel=1e-15)
    assert rows["card"]["tokenize"] == "zh" and rows["card"]["smoothing"] == "method3"
    # the card row is the headline: sacreBLEU's exp on the same statistics
    assert rows["card"]["BLEU"] == pytest.approx(rows["sacrebleu"]["BLEU"], rel=1e-14)


def test_max_order_reaches_every_row(capsys, en_zh):
    """--max-order 3: every row at order 3, each the library's own order-3 number."""
    rows = _rows(_compare_json(capsys, en_zh, "--max-order", "3", "--compare"))
    assert {r["max_order"] for r in rows.values()} == {3}
    assert rows["sacrebleu"]["BLEU"] == _sacre(en_zh[2], max_ngram_order=3)
    assert rows["nltk"]["BLEU"] == pytest.approx(_nltk(en_zh[2], order=3), abs=0, rel=1e-15)


def test_lowercase_and_floor_with_value(capsys, en_de):
    """-lc -s floor -sv 0.2: sacreBLEU floor 0.2 lowercased; NLTK method1 epsilon 0.2
    lowercased (the same computation in NLTK's name); the card the same as the headline."""
    doc = _compare_json(capsys, en_de, "-lc", "-s", "floor", "-sv", "0.2", "--compare")
    rows = _rows(doc)
    assert rows["sacrebleu"]["BLEU"] == _sacre(en_de[2], lowercase=True, smooth_method="floor",
                                               smooth_value=0.2)
    assert (rows["nltk"]["smoothing"], rows["nltk"]["smooth_value"]) == ("method1", 0.2)
    assert rows["nltk"]["BLEU"] == pytest.approx(
        _nltk(en_de[2], lc=True, smoothing="method1", epsilon=0.2), abs=0, rel=1e-15)
    assert (rows["card"]["smoothing"], rows["card"]["smooth_value"], rows["card"]["lowercase"]) \
        == ("method1", 0.2, True)
    assert doc["options_not_applied"] == {"sacrebleu": [], "nltk": [], "card": []}


def test_a_spec_key_wins_and_the_row_says_so(capsys, en_de):
    refs, system, lines = en_de
    code = main(["score", *refs, *system, "-s", "floor", "--compare", "sacrebleu",
                 "nltk:smooth=method3", "card"])
    out, err = capsys.readouterr()
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.strip().startswith("nltk:smooth=method3 "))
    assert "smooth:method3" in row
    assert f"{_nltk(lines, smoothing='method3'):.6f}" in row
    assert "nltk:smooth=method3: -s floor not applied: the configuration sets smooth= itself" in out


def test_a_configuration_that_cannot_have_an_option_says_so(capsys, en_de):
    """bleuscore's call takes no tokenizer and has no floor: its row keeps its own settings
    and names both options; sacreBLEU takes them."""
    pytest.importorskip("bleuscore")
    refs, system, lines = en_de
    code = main(["score", *refs, *system, "-tok", "intl", "-s", "floor", "--compare",
                 "sacrebleu", "bleuscore"])
    out, err = capsys.readouterr()
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.strip().startswith("bleuscore "))
    assert row.rstrip().endswith("-tok intl, -s floor")
    assert "bleuscore: -tok intl not applied: tok= cannot be set on bleuscore" in out
    assert "bleuscore: -s floor not applied: bleuscore has no smoothing computing sacreBLEU's " \
           "floor" in out
    sacre_row = next(line for line in out.splitlines() if line.strip().startswith("sacrebleu "))
    assert f"{_sacre(lines, tokenize='intl', smooth_method='floor'):.6f}" in sacre_row


def test_an_option_no_configuration_can_have_is_an_error(capsys, en_de):
    refs, system, _ = en_de
    code = main(["score", *refs, *system, "-sv", "0.2", "--compare"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1
    assert "-sv 0.2: no configuration compared (sacrebleu, nltk, card) can have it" in err
    for why in ("sacrebleu: sacreBLEU's smoothing exp takes no value",
                "nltk: NLTK's smoothing none takes no value", "card: the card's method3"):
        assert why in err


def test_defaults_keeps_each_library_at_its_defaults(capsys, en_zh):
    """--defaults: the libraries as their users run them (13a, split), the card and the
    headline at -tok zh, every row at --max-order."""
    rows = _rows(_compare_json(capsys, en_zh, "-tok", "zh", "--max-order", "3", "--compare",
                               "--defaults"))
    assert rows["sacrebleu"]["tokenize"] == "13a" and rows["nltk"]["tokenize"] == "split"
    assert rows["sacrebleu"]["BLEU"] == _sacre(en_zh[2], max_ngram_order=3)
    assert rows["card"]["tokenize"] == "zh" and {r["max_order"] for r in rows.values()} == {3}


def test_defaults_needs_compare(capsys, en_de):
    refs, system, _ = en_de
    assert main(["score", *refs, *system, "--defaults"]) == 2
    assert "--defaults is --compare's" in capsys.readouterr().err


def test_rows_name_the_library_signature_and_call(capsys, en_de):
    """sacreBLEU's row carries the signature sacreBLEU itself prints; NLTK's the call."""
    refs, system, lines = en_de
    code = main(["score", *refs, *system, "--compare"])
    out, err = capsys.readouterr()
    assert code == 0, err
    hyps, *ref_lines = lines
    real = sacrebleu.metrics.BLEU()
    real.corpus_score(hyps, ref_lines)
    assert f"sacrebleu: signature {real.get_signature()}" in out
    assert ("nltk: call nltk.translate.bleu_score.corpus_bleu(refs, hyps, weights=(0.25, 0.25, "
            "0.25, 0.25)) on str.split() tokens") in out


# ------------------------------------------------------------------ what to report (item 3)


def test_to_report_is_sacrebleus_number_and_signature(capsys, en_zh):
    """Above the decomposition: sacreBLEU's own number (as `sacrebleu` prints it, one decimal)
    and the signature sacreBLEU itself gives for that configuration."""
    refs, system, lines = en_zh
    code = main(["score", *refs, *system, "-tok", "zh", "--compare"])
    out, err = capsys.readouterr()
    assert code == 0, err
    hyps, *ref_lines = lines
    real = sacrebleu.metrics.BLEU(tokenize="zh")
    score = real.corpus_score(hyps, ref_lines).score
    head, _, rest = out.partition("To report")
    assert "The configurations compared" in rest and "The configurations compared" not in head
    assert f"BLEU = {score:.1f}  {real.get_signature()}  (sacreBLEU" in rest
    assert "WARNING" not in out and "warning" not in err


def test_chinese_references_with_13a_warn(capsys, en_zh):
    """The en-zh default run (13a) warns on standard error, naming zh; standard output stays
    the bytes `sacrebleu -b` prints."""
    refs, system, lines = en_zh
    code = main(["score", *refs, *system, "-b"])
    out, err = capsys.readouterr()
    assert code == 0
    hyps, *ref_lines = lines
    assert out == f"{sacrebleu.corpus_bleu(hyps, ref_lines).score:.1f}\n"
    assert "warning: the references are Chinese" in err and "-tok zh" in err
    code = main(["score", *refs, *system, "--compare", "-f", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert "-tok zh" in doc["systems"][0]["compare"]["to_report"]["warning"]
    assert main(["score", *refs, *system, "-b", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_german_references_do_not_warn(capsys, en_de):
    refs, system, _ = en_de
    assert main(["score", *refs, *system, "-b"]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize(("text", "language", "tokenizer"), [
    ("我们今天去学校。他说：“好的。”", "zh", "zh"),
    ("今日は学校に行きます。私はそれが好きです。", "ja", "ja-mecab"),
    ("저는 오늘 학교에 갑니다. 감사합니다.", "ko", "ko-mecab"),
    ("Wir gehen heute zur Schule. 東京 is a city.", None, None),
    ("", None, None),
])
def test_the_script_decides(text, language, tokenizer):
    """Hand-written lines of each script (and a German one with two Han characters)."""
    from bleu_compat.cli.score.script_check import advice

    found = advice(text)
    assert (found and found.language, found and found.tokenizer) == (language, tokenizer) \
        if language else found is None
    if found is not None:
        assert found.warning(tokenizer) is None and found.warning("spm") is None
        assert f"-tok {tokenizer}" in found.warning("13a")


# ------------------------------------------------------------------ causes explained (item 4)


def test_a_step_and_a_shapley_value_disagreeing_in_sign_are_explained(capsys, tmp_path):
    """nltk -> sacrebleu where every 4-gram is missed on str.split() tokens and none on 13a:
    the tokenization step comes first, so smoothing's step is +0; its Shapley value is half
    its effect made first (two factors; the others move the score by < 1e-13 points), which
    is sacreBLEU's exp on str.split() tokens minus NLTK's unsmoothed 0. Both from sacreBLEU."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat, on the mat.\nthe dog ran, to the park.\n", encoding="utf-8")
    ref.write_text("the cat sat , on the mat .\nthe dog ran , to the park .\n", encoding="utf-8")
    hyps, refs = hyp.read_text().splitlines(), ref.read_text().splitlines()
    split_exp = sacrebleu.metrics.BLEU(tokenize="none").corpus_score(hyps, [refs]).score
    assert sacrebleu.metrics.BLEU(tokenize="none", smooth_method="none").corpus_score(
        hyps, [refs]).score == 0
    code = main(["score", str(ref), "-i", str(hyp), "--compare", "nltk", "sacrebleu"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert (f"smoothing: its step (+0) and its Shapley value ({split_exp / 2:+.6f}) disagree in "
            f"sign: it interacts most with tokenization: made first it moves the score by "
            f"{split_exp:+.6f} points, right after tokenization by +0.") in out


def test_effective_order_as_sacrebleu_computes_it(capsys, tmp_path):
    """--effective-order: sacreBLEU's BLEU(effective_order=True) on a corpus without 4-grams
    (its number and signature, run here); with --compare NLTK's row says it has none."""
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat\na dog\n", encoding="utf-8")
    ref.write_text("the cat sat\nthe dog\n", encoding="utf-8")
    real = sacrebleu.metrics.BLEU(effective_order=True)
    score = real.corpus_score(["the cat sat", "a dog"], [["the cat sat", "the dog"]]).score
    assert main(["score", str(ref), "-i", str(hyp), "--effective-order", "-b"]) == 0
    assert capsys.readouterr().out == f"{score:.1f}\n"
    assert main(["score", str(ref), "-i", str(hyp), "--effective-order"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["signature"].startswith(f"{real.get_signature()}|bleu-compat:")
    code = main(["score", str(ref), "-i", str(hyp), "--effective-order", "--compare", "-f", "json"])
    doc = json.loads(capsys.readouterr().out)
    rows = _rows(doc)
    assert rows["sacrebleu"]["BLEU"] == score and rows["sacrebleu"]["effective_order"] is True
    assert rows["card"]["effective_order"] is True and rows["nltk"]["effective_order"] is False
    assert doc["options_not_applied"]["nltk"] == [
        {"option": "--effective-order", "why": "NLTK's corpus_bleu has no effective order"}]


QUIRKS = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "quirks"


@pytest.fixture(scope="module")
def zh_bundled() -> tuple[list[str], list[str], list[list[str]]]:
    """A bundled Chinese reference and system (WMT22 en-zh, one segment: SOURCE.md)."""
    ref, hyp = QUIRKS / "zwsp.ref.A.zh.txt", QUIRKS / "zwsp.sys.Online-B.txt"
    lines = [p.read_text(encoding="utf-8").splitlines() for p in (hyp, ref)]
    return [str(ref)], ["-i", str(hyp)], lines


@pytest.mark.parametrize("corpus", ["zh_bundled", "en_zh"])
def test_language_pair_tokenizer_reaches_every_configuration(capsys, request, corpus):
    """issue 34: `-l en-zh --compare` makes zh the tokenizer wherever -tok would be: the
    sacrebleu row, NLTK's, the card's and To report (they said tok:13a, and the warning told
    the user to pass -l xx-zh, which they had); the numbers are those of -tok zh."""
    files = request.getfixturevalue(corpus)
    doc = _compare_json(capsys, files, "-l", "en-zh", "--compare")
    rows = _rows(doc)
    assert {rows[n]["tokenize"] for n in ("sacrebleu", "nltk", "card")} == {"zh"}
    assert rows["sacrebleu"]["BLEU"] == _sacre(files[2], tokenize="zh")
    assert rows["nltk"]["BLEU"] == pytest.approx(_nltk(files[2], tok=_zh_tokens), abs=0,
                                                 rel=1e-15)
    report = doc["systems"][0]["compare"]["to_report"]
    assert "|tok:zh|" in report["signature"] and "warning" not in report
    assert _rows(_compare_json(capsys, files, "-tok", "zh", "--compare")) == rows
    refs, system, _ = files
    code = main(["score", *refs, *system, "-l", "en-zh", "--compare"])
    out, err = capsys.readouterr()
    assert code == 0, err
    to_report = out.split("To report", 1)[1].split("\n\n", 1)[0]
    assert "|tok:zh|" in to_report and "tok:13a" not in out and "-l xx-zh" not in out + err
