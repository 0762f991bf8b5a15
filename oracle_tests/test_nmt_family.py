"""Issue 22, the nmt family: HF evaluate's ``bleu``, bleuscore and tensor2tensor's ``bleu_hook``.

Expected values come from the real implementations (bleuscore 0.2.0 from PyPI; tensor2tensor
1.15.7's own ``bleu_hook.py``, loaded without TensorFlow; the cached HF ``bleu`` module when
this machine has one) and from the examples published in evaluate's documentation
(huggingface/evaluate ``metrics/bleu/README.md`` and the ``bleu.py`` docstring, commit
a7dd338), never from the models under test. The HF module exists only where
``evaluate.load("bleu")`` once ran online: elsewhere (CI) its tests skip, saying so; a test
builds the cache layout evaluate writes from the module's three files when
``BLEU_COMPAT_HF_BLEU_FILES`` names a folder holding them.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from bleu_compat.libraries.hf_bleu import cache
from bleu_compat.libraries.hf_bleu.model import (
    BP_RATIO, FLOAT, RETOKENIZES, SHORTEST, ZERO_RAISES, tokenize_13a_copy,
)
from bleu_compat.libraries.hf_bleu.model import evaluate as hf_model
from bleu_compat.libraries.hf_bleu.realize import Unrealizable, realize

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF, SYS = WMT17 / "ref.A.txt", WMT17 / "sys.uedin-nmt.4722.txt"
HF_AS_CALLED = frozenset({RETOKENIZES, SHORTEST, BP_RATIO, FLOAT, ZERO_RAISES})


def _hf_module() -> None:
    if cache.find() is None:
        pytest.skip("no cached HF evaluate 'bleu' module under "
                    f"{cache.modules_cache()} (evaluate.load('bleu') needs the network once; "
                    "set HF_MODULES_CACHE to a cache that has it)")


def _t2t():  # noqa: ANN202
    pytest.importorskip("numpy")
    from bleu_compat.errors import OracleUnavailableError
    from bleu_compat.libraries.t2t.adapter import load_bleu_hook

    try:
        return load_bleu_hook()
    except OracleUnavailableError as exc:
        pytest.skip(f"{exc} (.ci/run installs it)")


# ----------------------------------------------------------- evaluate's published examples

#: (predictions, references, the printed result) from huggingface/evaluate a7dd338,
#: metrics/bleu/README.md ("How to Use", "Examples") and metrics/bleu/bleu.py (the docstring,
#: which prints results["bleu"] only: 1.0)
_FULL = {"bleu": 1.0, "precisions": [1.0, 1.0, 1.0, 1.0], "brevity_penalty": 1.0,
         "length_ratio": 1.1666666666666667, "translation_length": 7, "reference_length": 6}
PUBLISHED = [
    pytest.param(["hello there general kenobi", "foo bar foobar"],
                 [["hello there general kenobi", "hello there !"], ["foo bar foobar"]], _FULL,
                 id="README-how-to-use"),
    pytest.param(["hello there general kenobi", "foo bar foobar"],
                 [["hello there general kenobi"], ["foo bar foobar"]],
                 {"bleu": 1.0, "precisions": [1.0, 1.0, 1.0, 1.0], "brevity_penalty": 1.0,
                  "length_ratio": 1.0, "translation_length": 7, "reference_length": 7},
                 id="README-one-reference"),
    pytest.param(["hello there general kenobi", "foo bar foobar"],
                 [["hello there general kenobi", "hello there!"], ["foo bar foobar"]], _FULL,
                 id="README-first-has-two-references"),
    pytest.param(["hello there general kenobi", "foo bar foobar"],
                 [["hello there general kenobi", "hello there!"], ["foo bar foobar"]], {"bleu": 1.0},
                 id="bleu.py-docstring"),
]


def _model_result(predictions: list[str], references: list[list[str]]) -> dict:
    """The hf-bleu model's dict for evaluate's call on strings (its tokens are the strings'
    whitespace tokens, tokenized again by the modelled 13a copy)."""
    request = {"hypotheses": [p.split() for p in predictions],
               "references": [[r.split() for r in refs] for refs in references]}
    out = hf_model("bleu-corpus-compute", "as_called", request, HF_AS_CALLED, {})
    return {"bleu": out["bleu"], "precisions": [m / t for m, t in zip(out["matches"], out["totals"])],
            "brevity_penalty": out["brevity_penalty"],
            "length_ratio": out["candidate_length"] / out["reference_length"],
            "translation_length": out["candidate_length"], "reference_length": out["reference_length"]}


@pytest.mark.parametrize("predictions, references, printed", PUBLISHED)
def test_model_gives_the_published_results(predictions, references, printed) -> None:
    got = _model_result(predictions, references)
    assert {k: got[k] for k in printed} == printed


@pytest.mark.parametrize("predictions, references, printed", PUBLISHED)
def test_bleuscore_gives_the_published_results(predictions, references, printed) -> None:
    bleuscore = pytest.importorskip("bleuscore")
    got = bleuscore.compute(references, predictions)
    assert {k: got[k] for k in printed} == printed


@pytest.mark.parametrize("predictions, references, printed", PUBLISHED)
def test_cached_module_gives_the_published_results(predictions, references, printed) -> None:
    _hf_module()
    got = cache.compute(predictions, references)
    assert {k: got[k] for k in printed} == printed


def test_published_word_tokenize_example() -> None:
    """README's example with NLTK's word_tokenize prints the same dict; the model, given the
    tokens word_tokenize makes, reproduces it (skips without NLTK's punkt data)."""
    from nltk.tokenize import word_tokenize

    try:
        word_tokenize("hello there!")
    except LookupError as exc:
        pytest.skip(f"NLTK's tokenizer data is not installed: {str(exc).splitlines()[1:2]}")
    preds = ["hello there general kenobi", "foo bar foobar"]
    refs = [["hello there general kenobi", "hello there!"], ["foo bar foobar"]]
    request = {"hypotheses": [word_tokenize(p) for p in preds],
               "references": [[word_tokenize(r) for r in seg] for seg in refs]}
    out = hf_model("bleu-corpus-compute", "mapped", request, HF_AS_CALLED - {RETOKENIZES}, {})
    assert (out["bleu"], out["candidate_length"], out["reference_length"]) == (1.0, 7, 6)


# ----------------------------------------------------------- tokenizers: model against the real ones

_PIECES = ["a", "Z", "7", "1,000.5", "3-4", "x-", "-\n", "\n", "&quot;", "&amp;", "&lt;", "&gt;",
           "&amp;quot;", "<skipped>", ".", ",", "'", '"', "(", ")", "$", "%", "/", "\\", "^", "_",
           "`", "{", "}", "~", "@", "?", "!", "-", "—", "«", "»", "€", "°", "²", "٣", "½", "é",
           "Straße", "東京", "😀", " ", "  ", "\t", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0",
           "\u2028", "\u3000", "\u200b", "\ufeff", "2017.", "U.S.", "e.g.,", "a.b", ".5", "5."]


def _strings(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12))) for _ in range(count)]


def test_13a_copy_model_is_bleuscores_tokenizer() -> None:
    """The modelled 13a copy with Rust's whitespace gives bleuscore's own tokens (U+001C..U+001F
    are not whitespace there), on 3,000 strings made to hit every rule, and WMT17's lines."""
    bleuscore = pytest.importorskip("bleuscore")
    lines = _strings(22, 3000) + REF.read_text(encoding="utf-8").splitlines()[:800]
    wrong = [s for s in lines if tokenize_13a_copy(s, "rust") != bleuscore.tokenizer_13a(s)]
    assert not wrong, [(s, tokenize_13a_copy(s, "rust"), bleuscore.tokenizer_13a(s)) for s in wrong[:3]]
    # the one difference from evaluate's: an information separator is whitespace to Python only
    assert bleuscore.tokenizer_13a("a\x1cb") == ["a\x1cb"] and tokenize_13a_copy("a\x1cb") == ["a", "b"]


def test_13a_copy_model_is_the_cached_modules_tokenizer() -> None:
    _hf_module()
    _, tokenizer, _ = cache.load()
    lines = _strings(23, 3000) + REF.read_text(encoding="utf-8").splitlines()[:800]
    wrong = [s for s in lines if tokenize_13a_copy(s) != tokenizer(s)]
    assert not wrong, wrong[:3]


def test_13a_copy_does_not_rstrip() -> None:
    """evaluate's copy never strips the string: a trailing '-\\n' is removed with its dash, which
    sacreBLEU (rstrip first) keeps. On lines read from a file (no '\\n') both agree."""
    from bleu_compat.tokenizers import get_tokenizer

    sacre = get_tokenizer("13a")
    assert tokenize_13a_copy("well-\n") == ["well"] and sacre("well-\n") == ["well-"]
    for line in REF.read_text(encoding="utf-8").splitlines()[:500]:
        assert tokenize_13a_copy(line) == sacre(line)


def test_t2t_tokenizer_model_is_bleu_tokenize() -> None:
    """The modelled bleu_tokenize (classes from this Python's unicodedata) gives t2t's own
    tokens on 3,000 strings and on 600 WMT17 lines of each side, cased and lowercased (the
    WMT17 test below runs every line through both)."""
    from bleu_compat.libraries.t2t.model import t2t_tokenize

    hook = _t2t()
    lines = _strings(24, 3000)
    for path in (REF, SYS):
        text = path.read_text(encoding="utf-8").splitlines()[:600]
        lines += text + [x.lower() for x in text]
    wrong = [s for s in lines if t2t_tokenize(s) != hook.bleu_tokenize(s)]
    assert not wrong, wrong[:3]
    assert hook.bleu_tokenize("in 2017.") == ["in", "2017."]  # mteval-v14's own number-dot rule


# ----------------------------------------------------------- the realized smoothing corpora


def test_realized_corpus_has_the_requested_statistics() -> None:
    """Statistics of random prefix-segment corpora are realized by a corpus whose statistics,
    counted by the truth, are exactly those."""
    from bleu_compat.harness.truth import corpus_truth_stats

    rng = random.Random(5)
    for _ in range(300):
        n = rng.randint(1, 5)
        segs = [(length, rng.randint(0, length)) for length in
                (rng.randint(0, 9) for _ in range(rng.randint(1, 4)))]
        m = [sum(max(0, k - o + 1) for _, k in segs) for o in range(1, n + 1)]
        t = [sum(max(0, length - o + 1) for length, _ in segs) for o in range(1, n + 1)]
        r = sum(k for _, k in segs) + rng.randint(0, 5)
        hyps, refs = realize(m, t, t[0], r)
        assert corpus_truth_stats(hyps, refs, n) == (m, t, t[0], r)


@pytest.mark.parametrize("m, t, c, r", [
    ([1, 1], [2, 1], 3, 2),        # c is not the unigram total
    ([2, 2], [3, 1], 3, 3),        # more bigram matches than bigram... differences increase
    ([1, 0, 0], [3, 2, 3], 3, 3),  # totals whose differences increase
    ([3], [3], 3, 2),              # fewer reference tokens than unigram matches
])
def test_unrealizable_statistics_are_refused(m, t, c, r) -> None:
    with pytest.raises(Unrealizable):
        realize(m, t, c, r)


# ----------------------------------------------------------- adapters against their models


def _crosscheck(library: str, tool_id: str, cases: int, seed: int) -> dict[str, int]:
    from bleu_compat.harness.classify import evaluate
    from bleu_compat.harness.generate import generate_case
    from bleu_compat.libraries.registry import library as declared

    counts = {"agree": 0, "explained": 0, "not_representable": 0}
    lib = declared(library)
    for k in range(cases):
        case = generate_case(seed, tool_id, k)
        result = evaluate(tool_id, case.case_id, case.request, implementations=lib.implementation_ids)
        unexpected = [d for d in result.discrepancies if not d.entries]
        assert not unexpected, (case.request, unexpected[:2])
        for impl in lib.implementation_ids:
            if impl in result.not_representable:
                counts["not_representable"] += 1
            elif impl in result.reproductions:
                counts["explained"] += 1
            else:
                counts["agree"] += 1
    return counts


def test_bleuscore_outputs_are_reproduced_by_its_model() -> None:
    pytest.importorskip("bleuscore")
    counts = _crosscheck("bleuscore", "bleu-corpus-compute", 60, 2201)
    assert counts["explained"] > 0 and counts["not_representable"] == 0, counts


def test_t2t_outputs_are_reproduced_by_its_model() -> None:
    _t2t()
    counts = _crosscheck("t2t", "bleu-corpus-compute", 120, 2202)
    assert counts["explained"] > 0 and counts["agree"] + counts["explained"] > 0, counts


def test_cached_module_outputs_are_reproduced_by_its_model() -> None:
    _hf_module()
    counts = _crosscheck("hf-bleu", "bleu-corpus-compute", 60, 2203)
    assert counts["explained"] > 0, counts


def test_t2t_all_short_corpus_scores_100() -> None:
    """An order without n-grams counts as precision 1: one-token hypotheses equal to their
    references score 1.0 in t2t (sacreBLEU: 0)."""
    from bleu_compat.libraries.t2t.model import evaluate as t2t_model

    hook = _t2t()
    assert float(hook.compute_bleu([["a"], ["b"]], [["a"], ["b"]])) == 1.0
    request = {"hypotheses": [["a"], ["b"]], "references": [[["a"]], [["b"]]]}
    on = frozenset({"T2T-ALWAYS-SMOOTHED", "T2T-EMPTY-ORDER-PRECISION-ONE", "T2T-FLOAT32-RESULT"})
    assert t2t_model("bleu-corpus-compute", "as_called", request, on, {}) == {"bleu": 1.0}


# ----------------------------------------------------------- the WMT17 command


def _t2t_wrapper(hook, ref: Path, hyp: Path, case_sensitive: bool = False) -> float:  # noqa: ANN001
    """t2t's own ``bleu_wrapper`` on the files, its ``tf.gfile.Open`` and ``native_to_unicode``
    given plain-Python stand-ins (UTF-8, no newline translation, as TensorFlow's GFile)."""
    hook.tf.gfile = SimpleNamespace(Open=lambda f, mode: open(f, mode, encoding="utf-8", newline=""))
    hook.text_encoder.native_to_unicode = lambda s: s
    try:
        return float(hook.bleu_wrapper(str(ref), str(hyp), case_sensitive=case_sensitive))
    finally:
        del hook.tf.gfile, hook.text_encoder.native_to_unicode


def test_wmt17_numbers_are_the_libraries_own_and_the_gaps_add_up() -> None:
    """`score ref.A.txt -i sys.uedin-nmt.4722.txt --compare hf-bleu bleuscore t2t-bleu`: each
    number is what the library gives when called directly (bleuscore.compute on the lines,
    t2t's bleu_wrapper on the files, the cached module), each is reproduced by its model (no
    UNEXPECTED), and each gap to sacreBLEU is a chain of named factors that adds up exactly."""
    bleuscore = pytest.importorskip("bleuscore")
    hook = _t2t()
    from bleu_compat.decompose import compare

    names = ["sacrebleu", "bleuscore", "t2t-bleu"] + (["hf-bleu"] if cache.find() else [])
    result = compare(str(SYS), [str(REF)], names)
    runs = {run.config.name: run for run in result.runs}
    hyps = SYS.read_text(encoding="utf-8").splitlines()
    refs = [[x] for x in REF.read_text(encoding="utf-8").splitlines()]
    assert runs["bleuscore"].bleu == bleuscore.compute(refs, hyps)["bleu"]
    assert runs["t2t-bleu"].bleu == _t2t_wrapper(hook, REF, SYS)
    if "hf-bleu" in runs:
        assert runs["hf-bleu"].bleu == cache.compute(hyps, refs)["bleu"]
    assert not result.unexpected, [d.unexpected for d in result.decompositions]
    for d in result.decompositions:
        if d.not_decomposable:
            continue
        assert sum((c.contribution for c in d.causes), Fraction(0)) == d.difference, (d.frm, d.to)
    t2t = next(d for d in result.decompositions if (d.frm, d.to) == ("sacrebleu", "t2t-bleu"))
    named = [c.cause for c in t2t.causes]
    assert named[:2] == ["case", "tokenization"] and "T2T-FLOAT32-RESULT-SMOOTHING" in named[2], named


# ----------------------------------------------------------- bad input


def _cli(args: list[str], env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], capture_output=True,
                          text=True, timeout=300, env=env, cwd=cwd)


def test_t2t_with_two_reference_files_is_a_row_saying_why(tmp_path: Path) -> None:
    """issue 34: t2t's bleu_wrapper takes one reference file; with two, its row says so and
    the run goes on (sacreBLEU's row, exit 0), where it was exit 2 and every number lost."""
    _t2t()
    proc = _cli(["score", str(REF), str(REF), "-i", str(SYS), "--compare", "sacrebleu", "t2t-bleu"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\n  sacrebleu +\d+\.\d{6}  sacreBLEU ", proc.stdout), proc.stdout
    assert re.search(r"\n  t2t-bleu +no number  tensor2tensor ", proc.stdout), proc.stdout
    assert "t2t-bleu: no number: t2t-bleu takes one reference file" in proc.stdout
    assert "UNEXPECTED" not in proc.stdout and "Traceback" not in proc.stderr
    proc = _cli(["score", str(REF), str(REF), "-i", str(SYS), "--compare", "sacrebleu",
                 "t2t-bleu", "-f", "json"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads(proc.stdout)["systems"][0]["compare"]["configurations"]
    assert [(r["name"], r["BLEU"] is None) for r in rows] == [("sacrebleu", False),
                                                              ("t2t-bleu", True)]
    assert "takes one reference file" in rows[1]["no_number"]


def test_hf_bleu_without_a_cached_module_is_not_installed(tmp_path: Path) -> None:
    env = dict(os.environ, HF_MODULES_CACHE=str(tmp_path / "empty"), HF_HOME=str(tmp_path / "home"))
    proc = _cli(["score", str(REF), "-i", str(SYS), "--compare", "hf-bleu"], env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "hf-bleu is not installed" in proc.stderr and "Traceback" not in proc.stderr


def test_a_library_exception_is_a_row_saying_why(tmp_path: Path) -> None:
    """An empty system output: HF's compute_bleu divides by its length 0 (ZeroDivisionError):
    its row names the exception and has no number, the reference configuration is compared
    (issue 34: it was the end of the run, exit 2)."""
    _hf_module()
    hyp = tmp_path / "empty.txt"
    hyp.write_text("\n" * len(REF.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    proc = _cli(["score", str(REF), "-i", str(hyp), "--compare", "hf-bleu"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\n  hf-bleu +no number ", proc.stdout), proc.stdout
    assert "hf-bleu: no number:" in proc.stdout and "ZeroDivisionError" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_bleuscore_panic_is_an_error_not_a_crash() -> None:
    pytest.importorskip("bleuscore")
    from bleu_compat.libraries.bleuscore.adapter import compute

    with pytest.raises(ValueError, match="at least one segment"):
        compute([], [])


def test_t2t_adapter_says_why_it_cannot_take_two_references() -> None:
    _t2t()
    from bleu_compat.libraries import run_adapter

    result = run_adapter("t2t", "as_called", "bleu-corpus-compute",
                         {"hypotheses": [["a"]], "references": [[["a"], ["b"]]]})
    assert result.output is None and "one reference per hypothesis" in result.not_representable


# ----------------------------------------------------------- where the HF module is looked up


def _module_files(folder: Path, bleu: bytes = b"# bleu\n") -> None:
    folder.mkdir(parents=True)
    (folder / "bleu.py").write_bytes(bleu)
    (folder / "nmt_bleu.py").write_bytes(b"# nmt\n")
    (folder / "tokenizer_13a.py").write_bytes(b"# tok\n")


def test_module_cache_is_found_as_evaluate_finds_it(tmp_path: Path, monkeypatch) -> None:
    """HF_MODULES_CACHE first, else HF_HOME/modules, else XDG_CACHE_HOME/huggingface/modules;
    among several hash folders the one whose bleu.py is newest (evaluate's offline fallback);
    an unknown content is named by its digest."""
    for var in ("HF_MODULES_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.modules_cache() == tmp_path / "xdg" / "huggingface" / "modules"
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert cache.modules_cache() == tmp_path / "hf" / "modules"
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "mods"))
    assert cache.find() is None
    base = tmp_path / "mods" / "evaluate_modules" / "metrics" / "evaluate-metric--bleu"
    old, new = base / ("a" * 64), base / ("b" * 64)
    _module_files(old, b"# old\n")
    _module_files(new, b"# new\n")
    (base / ("c" * 63)).mkdir()  # not a hash folder
    os.utime(old / "bleu.py", (1, 1))
    found = cache.find()
    assert found is not None and found.folder == new
    assert found.version.startswith("unknown-")
    os.utime(new / "bleu.py", (0, 0))  # now the other folder is the newest
    other = cache.find()
    assert other is not None and other.folder == old and other.version != found.version


def test_cache_layout_from_the_published_files(tmp_path: Path, monkeypatch) -> None:
    """With the module's three published files (BLEU_COMPAT_HF_BLEU_FILES: a folder holding
    evaluate's metrics/bleu/bleu.py and tokenizer_13a.py and nmt's bleu.py as nmt_bleu.py),
    a cache laid out as evaluate lays it out is found, named 2022.7.5, and scores the
    README's example."""
    files = os.environ.get("BLEU_COMPAT_HF_BLEU_FILES")
    if not files:
        pytest.skip("BLEU_COMPAT_HF_BLEU_FILES names no folder with the module's files "
                    "(they are published on the Hugging Face Hub and GitHub, not in a package)")
    target = tmp_path / "modules" / "evaluate_modules" / "metrics" / "evaluate-metric--bleu" / ("0" * 64)
    target.mkdir(parents=True)
    for name in cache.FILES:
        shutil.copy(Path(files) / name, target / name)
    monkeypatch.setenv("HF_MODULES_CACHE", str(tmp_path / "modules"))
    assert cache.version() == "2022.7.5"
    assert cache.compute(["hello there general kenobi", "foo bar foobar"],
                         [["hello there general kenobi", "hello there !"], ["foo bar foobar"]]) == _FULL


# ----------------------------------------------------------- bleuscore against HF's module


def test_information_separator_gap_is_the_tokenization_factor(tmp_path: Path) -> None:
    """A line holding U+001C: bleuscore keeps 'a\\x1cb' one token (Rust's whitespace), the
    fast path's 13a splits it; the gap to sacreBLEU is the factor 'tokenization' (13a ->
    bleuscore-13a) and adds up, never UNEXPECTED."""
    bleuscore = pytest.importorskip("bleuscore")
    from bleu_compat.decompose import compare

    hyp, ref = tmp_path / "sys.txt", tmp_path / "ref.txt"
    hyp.write_text("a\x1cb c d e f\nthe cat sat on the mat\n", encoding="utf-8")
    ref.write_text("a b c d e f\nthe cat sat on a mat\n", encoding="utf-8")
    result = compare(str(hyp), [str(ref)], ["sacrebleu", "bleuscore"])
    real = bleuscore.compute([["a b c d e f"], ["the cat sat on a mat"]],
                             ["a\x1cb c d e f", "the cat sat on the mat"])["bleu"]
    assert result.runs[1].bleu == real
    (d,) = result.decompositions
    assert d.unexpected is None and d.causes[0].cause == "tokenization"
    assert d.causes[0].change == "13a -> bleuscore-13a" and d.causes[0].lines == (1,)
    assert sum((c.contribution for c in d.causes), Fraction(0)) == d.difference


def test_bleuscore_is_hf_bleu_but_where_the_models_say() -> None:
    """Called directly, bleuscore and the cached HF module give the same numbers on WMT17's
    lines, and differ exactly where their catalogs say: U+001C..U+001F, N = 3 (HF weights each
    log, bleuscore the sum), and an empty output (HF raises)."""
    bleuscore = pytest.importorskip("bleuscore")
    _hf_module()
    hyps = SYS.read_text(encoding="utf-8").splitlines()[:400]
    refs = [[x] for x in REF.read_text(encoding="utf-8").splitlines()[:400]]
    for order in (1, 2, 4):
        assert cache.compute(hyps, refs, max_order=order) == bleuscore.compute(refs, hyps, max_order=order)
    p, r = ["b e e c b", "c d e e e c b c"], [["c d d b b"], ["c b c d b d"]]
    assert cache.compute(p, r, max_order=3)["bleu"] != bleuscore.compute(r, p, max_order=3)["bleu"]
    assert cache.compute(["a\x1cb c"], [["a b c"]])["translation_length"] == 3
    assert bleuscore.compute([["a b c"]], ["a\x1cb c"])["translation_length"] == 2
    with pytest.raises(ZeroDivisionError):
        cache.compute([""], [["a"]])
    assert bleuscore.compute([["a"]], [""])["bleu"] == 0.0


def test_bleuscore_after_a_fork_does_not_wait_forever(tmp_path: Path) -> None:
    """bleuscore sums on rayon's thread pool; a process forked after the pool started (a
    crosscheck's workers after an in-process run: test_cluster.py did this) has no pool threads,
    and bleuscore.compute there waits forever. The adapter's compute runs such calls in a
    helper interpreter: the forked workers finish, with the parent's numbers."""
    pytest.importorskip("bleuscore")
    script = tmp_path / "fork.py"
    script.write_text(
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from bleu_compat.libraries.bleuscore.adapter import compute\n"
        "refs = [['a b c %d' % i] for i in range(2000)]\n"
        "hyps = ['a b c %d x' % i for i in range(2000)]\n"
        "def child(_):\n"
        "    return compute(refs, hyps)['bleu']\n"
        "if __name__ == '__main__':\n"
        "    parent = compute(refs, hyps)['bleu']\n"
        "    with ProcessPoolExecutor(2) as pool:\n"
        "        print(parent, sorted(set(pool.map(child, range(4)))))\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    parent, children = proc.stdout.split(" ", 1)
    assert children.strip() == f"[{parent}]"
