"""``bleu-compat identify``: which configurations produce a given number (issue 23 item 7).

Expected numbers come from sacreBLEU and NLTK called here directly (``BLEU().corpus_score``,
``corpus_bleu`` on ``str.split()`` tokens), never from bleu_compat; the search must list
those configurations, with exactly the libraries' numbers, and answer "none" (exit 0) for a
number no configuration gives.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from bleu_compat.cli import main

# pytest-xdist: one worker runs this module (the WMT17 search fixture is computed once)
pytestmark = pytest.mark.xdist_group("test_identify")

sacrebleu = pytest.importorskip("sacrebleu")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF = str(WMT17 / "ref.A.txt")
SYS = str(WMT17 / "sys.uedin-nmt.4722.txt")


def _lines(path: str) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def wmt17():
    """One search of WMT17 en-de uedin (every configuration evaluated once)."""
    from bleu_compat.identify import search

    return search(SYS, [REF])


def test_23_38_is_nltk_on_split_tokens(wmt17) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nltk_value = float(nltk_bleu.corpus_bleu([[r.split()] for r in _lines(REF)],
                                                 [h.split() for h in _lines(SYS)]))
    assert f"{100 * nltk_value:.2f}" == "23.38"
    result = wmt17.matching("23.38")
    assert result.scale == "0-100" and result.decimals == 2
    first = result.matches[0]
    assert (first.config.implementation, first.config.tokenize, first.config.smoothing,
            first.config.max_order, first.config.lowercase) == ("nltk", "split", "none", 4, False)
    assert first.bleu == nltk_value  # the library's number, bit for bit
    assert first.differences == 0 and "3.10.4" in first.releases
    assert "tok:split" in first.signature() and "impl:nltk" in first.signature()
    # no sacreBLEU 13a configuration gives it
    assert not any(m.config.implementation == "sacrebleu" and m.config.tokenize == "13a"
                   for m in result.matches)


def test_28_3_is_sacrebleu_13a(wmt17) -> None:
    from sacrebleu.metrics import BLEU

    score = BLEU().corpus_score(_lines(SYS), [_lines(REF)]).score
    assert f"{score:.1f}" == "28.3"
    result = wmt17.matching("28.3")
    first = result.matches[0]
    assert (first.config.implementation, first.config.tokenize, first.config.smoothing,
            first.config.max_order) == ("sacrebleu", "13a", "exp", 4)
    assert first.bleu == score / 100 and first.differences == 0
    assert "2.6.0" in first.releases
    # the NLTK number is not among them at one decimal (23.4)
    assert not any(m.config.name == "nltk" for m in result.matches)


def test_the_0_1_scale_is_assumed_for_a_value_at_most_1(wmt17) -> None:
    result = wmt17.matching("0.2338")
    assert result.scale == "0-1" and "0-1" in result.scale_note
    assert result.matches[0].config.name == "nltk"
    assert wmt17.matching("0.2338", "0-100").matches == ()  # 0.2338 points: nothing gives it


@pytest.mark.parametrize("score", ["99.99", "0.01", "77.7"])
def test_a_number_no_configuration_gives_is_none(wmt17, score: str) -> None:
    assert all(not 0.0001 <= m.points <= 99.99 or f"{m.points:.{len(score.split('.')[1])}f}" != score
               for m in wmt17.values)  # checked on every value, independently of matching()
    assert wmt17.matching(score).matches == ()


@pytest.mark.parametrize("sig, real", [
    ("case:lc|eff:no|tok:13a|smooth:exp|order:3|impl:sacrebleu",
     dict(lowercase=True, max_ngram_order=3)),
    ("case:mixed|eff:no|tok:intl|smooth:floor[0.01]|order:4|impl:sacrebleu",
     dict(tokenize="intl", smooth_method="floor", smooth_value=0.01)),
    ("case:mixed|eff:yes|tok:char|smooth:add-k|order:2|impl:sacrebleu",
     dict(tokenize="char", smooth_method="add-k", effective_order=True, max_ngram_order=2)),
    ("case:mixed|eff:no|tok:split|smooth:method2|order:2|impl:nltk", ("method2", 2, False)),
    ("case:lc|eff:no|tok:split|smooth:method7|order:4|impl:nltk", ("method7", 4, True)),
    ("case:mixed|eff:no|tok:split|smooth:method1|order:1|impl:nltk", ("method1", 1, False)),
])
def test_searched_values_are_the_libraries_numbers(wmt17, sig: str, real) -> None:
    """A sample of the grid, each against the library run here on the same files."""
    from sacrebleu.metrics import BLEU

    found = [m for m in wmt17.values if m.config.signature() == sig]
    assert len(found) >= 1, sig
    if isinstance(real, dict):
        want = BLEU(**real).corpus_score(_lines(SYS), [_lines(REF)]).score / 100
    else:
        method, order, lc = real

        def tok(line: str) -> list[str]:
            return (line.lower() if lc else line).split()

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = float(nltk_bleu.corpus_bleu(
                [[tok(r)] for r in _lines(REF)], [tok(h) for h in _lines(SYS)],
                weights=(1 / order,) * order,
                smoothing_function=getattr(nltk_bleu.SmoothingFunction(), method)))
    newest = [m for m in found if m.releases[-1] in ("2.6.0", "3.10.4")]
    assert newest and newest[0].bleu == want, (sig, [m.bleu for m in found], want)


@pytest.mark.parametrize("tokenize, lowercase, eff", [
    ("13a", False, True), ("13a", False, False), ("intl", True, True), ("char", False, True),
])
def test_a_mean_of_sentence_bleu_is_found(wmt17, tokenize: str, lowercase: bool, eff: bool) -> None:
    """``sacrebleu-sentence-avg`` (the mean of ``sacrebleu.sentence_bleu``, what many papers
    report) is searched: the mean computed here with sacreBLEU, printed with 2 decimals, is
    identified as that configuration (on 2.x), and as no sentence mean of another effective
    order, case or tokenizer unless that one rounds the same."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(tokenize=tokenize, lowercase=lowercase, effective_order=eff)
    scores = [metric.sentence_score(h, [r]).score for h, r in zip(_lines(SYS), _lines(REF))]
    mean = sum(scores) / len(scores)
    printed = f"{mean:.2f}"
    rows = [m for m in wmt17.matching(printed).matches
            if m.config.aggregation == "sentence-mean" and "2.6.0" in m.releases]
    assert rows, printed
    assert any((m.config.tokenize, bool(m.config.lowercase), m.config.effective_order)
               == (tokenize, lowercase, eff) for m in rows)
    for m in rows:  # every row listed is a sentence mean that rounds to the printed number
        assert f"{m.points:.2f}" == printed
        assert abs(m.points - mean) < 1e-9 or (m.config.tokenize, bool(m.config.lowercase),
                                               m.config.effective_order) != (tokenize, lowercase, eff)


def _tiny(tmp_path: Path) -> tuple[str, str]:
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on a mat\nhello world\n", encoding="utf-8")
    hyp.write_text("the cat is on mat\nhello there world\n", encoding="utf-8")
    return str(ref), str(hyp)


def test_cli_lists_nltk_method4_on_a_corpus_with_zero_match_orders(tmp_path: Path, capsys) -> None:
    ref, hyp = _tiny(tmp_path)
    sf = nltk_bleu.SmoothingFunction()
    want = float(nltk_bleu.corpus_bleu([[r.split()] for r in _lines(ref)],
                                       [h.split() for h in _lines(hyp)], smoothing_function=sf.method4))
    printed = f"{100 * want:.2f}"
    code = main(["identify", printed, ref, "-i", hyp, "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = out["results"][0]["matches"]
    hit = [r for r in rows if r["spec"] == "nltk:smooth=method4"]
    assert hit and hit[0]["bleu"] == want


def test_cli_none_is_exit_0(tmp_path: Path, capsys) -> None:
    ref, hyp = _tiny(tmp_path)
    code = main(["identify", "99.99", ref, "-i", hyp])
    out = capsys.readouterr().out
    assert code == 0 and "none: no configuration searched gives 99.99" in out


@pytest.mark.parametrize("argv, says", [
    (["abc"], "not a number"),
    (["100.5"], "[0, 100]"),
    (["-1"], "[0, 100]"),
    (["inf"], "not a plain decimal number"),
    (["1e1"], "not a plain decimal number"),
    (["\uff12\uff13.\uff13\uff18"], "not a plain decimal number"),  # full-width digits
    (["\u0662\u0663.\u0663\u0668"], "not a plain decimal number"),  # Arabic-Indic digits
])
def test_bad_score_is_one_line_exit_2(tmp_path: Path, capsys, argv: list[str], says: str) -> None:
    ref, hyp = _tiny(tmp_path)
    code = main(["identify", *argv, ref, "-i", hyp])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and says in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_missing_file_is_one_line_exit_2(tmp_path: Path, capsys) -> None:
    ref, _ = _tiny(tmp_path)
    code = main(["identify", "23.4", ref, "-i", str(tmp_path / "absent.txt")])
    captured = capsys.readouterr()
    assert code == 2 and "absent.txt" in captured.err and captured.err.count("\n") == 1


def test_every_sacrebleu_and_nltk_value_of_the_grid_is_the_librarys(tmp_path: Path) -> None:
    """On a small corpus where some orders have no match (so every smoothing matters), each
    searched configuration of an installed implementation (at its installed release: sacreBLEU,
    NLTK and whichever others are here) is the library's own number, run as its users run it
    (the adapters' ``score_lines``), bit for bit."""
    from bleu_compat.decompose import library_points
    from bleu_compat.identify import search

    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("The cat sat on the mat, didn't it?\nHello world.\nA B C D E F\n", encoding="utf-8")
    hyp.write_text("the cat is on the mat, did it?\nhello there world.\nA B X D E\n", encoding="utf-8")
    refs, hyps = _lines(str(ref)), _lines(str(hyp))
    from bleu_compat.libraries.registry import libraries

    installed = {}
    for lib in libraries():
        try:
            installed[lib.name] = (lib, lib.installed_version())
        except Exception:  # noqa: BLE001 - not installed here
            continue
    s = search(str(hyp), [str(ref)])
    checked: dict[str, int] = {}
    for m in s.values:
        impl = m.config.implementation
        if impl not in installed or installed[impl][1] not in m.releases or "path" in \
                installed[impl][0].config_keys:
            continue
        lib = installed[impl][0]
        points = library_points(m.config, hyps, [refs])
        real = points / 100 if lib.native.scale == "0-100" else points
        assert m.bleu == real, (m.config.name, m.config.signature(), m.bleu, real)
        checked[impl] = checked.get(impl, 0) + 1
    assert checked.get("sacrebleu", 0) > 300 and checked.get("nltk", 0) > 200, checked


def test_files_of_different_lengths_are_one_line_exit_2(tmp_path: Path, capsys) -> None:
    ref, _ = _tiny(tmp_path)  # two lines
    one = tmp_path / "one.txt"
    one.write_text("the cat\n", encoding="utf-8")
    code = main(["identify", "23.4", ref, "-i", str(one)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and "line counts differ" in captured.err
    assert captured.err.count("\n") == 1
