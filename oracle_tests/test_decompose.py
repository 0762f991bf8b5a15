"""``score --compare``: the libraries as their users run them, and the gap decomposed (issue 13).

Expected values come from sacreBLEU and NLTK themselves, run here
independently of bleu_compat (their own functions and sacreBLEU's own
command line), from the bytes of the bundled files (which hypotheses are
shorter than 4 tokens), from the issue's published example (sacreBLEU's CLI
prints 38.0 for ``the cat sat on the mat`` against ``the cat is on the mat``)
or from exact rational arithmetic; never from the code under test.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from bleu_compat.cli import main

# pytest-xdist: one worker runs this module (the WMT17 --compare fixture is computed once)
pytestmark = pytest.mark.xdist_group("test_decompose")

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF = str(WMT17 / "ref.A.txt")
SYS = str(WMT17 / "sys.uedin-nmt.4722.txt")

sacrebleu = pytest.importorskip("sacrebleu")
nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")


def _lines(path: str) -> list[str]:
    """Lines as a user reads them (``for line in open(f)``), newline removed."""
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def wmt17_doc() -> dict:
    import contextlib

    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
        code = main(["score", REF, "-i", SYS, "--compare", "--format", "json"])
    assert code == 0
    return json.loads(stdout.getvalue())


@pytest.fixture(scope="module")
def library_values() -> dict[str, float]:
    """sacreBLEU's and NLTK's own numbers, run here the way their users run them."""
    hyps, refs = _lines(SYS), _lines(REF)
    return {
        "sacrebleu": sacrebleu.corpus_bleu(hyps, [refs]).score,  # 13a, exp, mixed case
        "nltk": nltk_bleu.corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps]),
    }


class TestWmt17:
    def test_each_number_is_the_librarys_own(self, wmt17_doc, library_values):
        """sacreBLEU 28.30 and NLTK 23.38, each the double its library gives run that way."""
        (row,) = wmt17_doc["systems"]
        configs = {c["name"]: c for c in row["compare"]["configurations"]}
        assert list(configs) == ["sacrebleu", "nltk", "card"]
        assert configs["sacrebleu"]["BLEU"] == library_values["sacrebleu"]
        assert configs["nltk"]["bleu"] == library_values["nltk"]
        assert f"{configs['sacrebleu']['BLEU']:.2f}" == "28.30"
        assert f"{100 * configs['nltk']['bleu']:.2f}" == "23.38"
        assert row["compare"]["unexpected"] is False

    def test_the_sacrebleu_command_line_prints_the_same(self, wmt17_doc):
        """`sacrebleu REF -i SYS -b -w 6` (its own CLI) prints the configuration's number."""
        exe = shutil.which("sacrebleu") or str(Path(sys.executable).parent / "sacrebleu")
        if not Path(exe).exists():
            pytest.skip("the sacrebleu command is not installed")
        proc = subprocess.run([exe, REF, "-i", SYS, "-b", "-w", "6"], capture_output=True,
                              text=True, timeout=300)
        (row,) = wmt17_doc["systems"]
        sacre = next(c for c in row["compare"]["configurations"] if c["name"] == "sacrebleu")
        assert proc.stdout.strip() == f"{sacre['BLEU']:.6f}" == "28.301225"

    def test_decomposition_adds_up_and_tokenization_is_largest(self, wmt17_doc, library_values):
        """sacrebleu -> nltk: steps chain from sacreBLEU's value to NLTK's, largest cause tokenization."""
        (row,) = wmt17_doc["systems"]
        dec = {(d["from"], d["to"]): d for d in row["compare"]["decomposition"]}
        d = dec["sacrebleu", "nltk"]
        assert d["start_bleu"] == library_values["sacrebleu"] / 100
        assert d["end_bleu"] == library_values["nltk"]
        before = d["start_bleu"]
        for c in d["causes"]:  # each step starts where the previous one ended
            assert c["bleu_before"] == before
            before = c["bleu_after"]
        assert before == d["end_bleu"]
        exact = sum(Fraction(c["bleu_after"]) - Fraction(c["bleu_before"]) for c in d["causes"])
        assert exact == Fraction(d["end_bleu"]) - Fraction(d["start_bleu"])
        largest = max(d["causes"], key=lambda c: abs(c["contribution"]))
        assert largest["cause"] == "tokenization"
        assert {c["cause"] for c in d["causes"]} >= {"tokenization", "NLTK-DENOMINATOR-FLOOR"}

    def test_floor_names_the_short_hypotheses_in_both_tokenizations(self, wmt17_doc):
        """On str.split() tokens 22 hypotheses are shorter than 4 tokens (258, 383, 398, ...);
        on 13a tokens five (398, 411, 727, 2223, 2987) — counted here from the file."""
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        hyps = _lines(SYS)
        split_short = [k + 1 for k, h in enumerate(hyps) if len(h.split()) < 4]
        tok = Tokenizer13a()
        short_13a = [k + 1 for k, h in enumerate(hyps) if len(tok(h).split()) < 4]
        assert len(split_short) == 22 and split_short[:3] == [258, 383, 398]
        assert short_13a == [398, 411, 727, 2223, 2987]
        (row,) = wmt17_doc["systems"]
        dec = {(d["from"], d["to"]): d for d in row["compare"]["decomposition"]}
        floor = next(c for c in dec["sacrebleu", "nltk"]["causes"]
                     if c["cause"] == "NLTK-DENOMINATOR-FLOOR")
        # evaluated after the tokenization step: on str.split() tokens
        assert floor["lines"] == split_short and "str.split()" in floor["lines_note"]
        assert list(floor["lines_other"].values()) == [short_13a]
        back = next(c for c in dec["nltk", "card"]["causes"] if c["cause"] == "NLTK-DENOMINATOR-FLOOR")
        assert back["lines"] == short_13a and "13a" in back["lines_note"]

    def test_text_ranks_the_lines_by_what_each_moves(self, capsys, wmt17_doc):
        """Issue 23: the lines behind a cause, the ones that move the score most first (never a
        bare list of every line), with the count; the floor's 22 str.split() lines ranked by
        an independent calculation (test_floor_lines_ranked_by_exact_effect)."""
        code, out, _ = _run(capsys, REF, "-i", SYS, "--compare")
        assert code == 0
        assert ("lines behind NLTK-DENOMINATOR-FLOOR (hypotheses shorter than 4 tokens on 13a "
                "tokens: 5 lines), those that move the score most first") in out
        assert ("lines behind NLTK-DENOMINATOR-FLOOR (hypotheses shorter than 4 tokens on "
                "str.split() tokens: 22 lines)") in out
        assert "lines behind tokenization (segments whose statistics change: 2956 lines)" in out
        assert "lines 1, 2, 3, 4, 5" not in out
        assert "sacrebleu -> nltk: 28.301225 -> 23.383356" in out
        assert "the steps add up to -4.917869 points exactly" in out

    def test_floor_lines_ranked_by_exact_effect(self, wmt17_doc):
        """Each floored line's effect, alone, at the floor's step (str.split() tokens, sacreBLEU's
        statistics, no smoothing, every order matched): BLEU with that line's totals floored
        minus BLEU, computed here at 50 digits from sacreBLEU's own statistics; the ranking
        (largest first, ties by line) and the values (points) agree."""
        import mpmath

        hyps, refs = _lines(SYS), _lines(REF)
        stats = sacrebleu.metrics.BLEU(tokenize="none").corpus_score(hyps, [refs])
        m, t, c, r = list(stats.counts), list(stats.totals), stats.sys_len, stats.ref_len

        def bleu(totals: list[int]) -> mpmath.mpf:
            with mpmath.workdps(50):
                bp = mpmath.mpf(1) if c > r else mpmath.exp(1 - mpmath.mpf(r) / c)
                return bp * mpmath.exp(mpmath.fsum(mpmath.log(mpmath.mpf(a) / b)
                                                   for a, b in zip(m, totals)) / 4)

        base = bleu(t)
        effects = {}
        for k, h in enumerate(hyps):
            n = len(h.split())
            if n < 4:
                floored = [x + (1 if order > n else 0) for order, x in enumerate(t, 1)]
                effects[k + 1] = float(100 * (bleu(floored) - base))
        want = sorted(effects, key=lambda line: (-abs(effects[line]), line))
        (row,) = wmt17_doc["systems"]
        dec = {(d["from"], d["to"]): d for d in row["compare"]["decomposition"]}
        floor = next(c for c in dec["sacrebleu", "nltk"]["causes"]
                     if c["cause"] == "NLTK-DENOMINATOR-FLOOR")
        assert [line for line, _ in floor["line_effects"]] == want
        for line, got in floor["line_effects"]:
            assert got == pytest.approx(effects[line], rel=1e-9)

    def test_causes_sorted_and_noise_folded(self, capsys):
        """The table lists tokenization then the floor (by |Shapley|); the float order's
        +5.6e-15-point step is folded into one line with the inert factors, and the JSON still
        has its exact value."""
        code, out, _ = _run(capsys, REF, "-i", SYS, "--compare")
        assert code == 0
        pair = out.split("sacrebleu -> nltk:")[1].split("\n\n")[0]
        table = [line.split()[0] for line in pair.splitlines()[2:4]]
        assert table == ["tokenization", "NLTK-DENOMINATOR-FLOOR"]
        folded = next(line for line in pair.splitlines() if "folded:" in line)
        assert "below 1e-9 points" in folded and "NLTK-FLOAT-ORDER" in folded
        assert "moving the score in no combination of the factors (exactly 0): smoothing" in folded
        assert not any(line.lstrip().startswith("SACREBLEU-FLOAT-ORDER") for line in pair.splitlines())


class TestShapley:
    def test_shapley_values_add_up_exactly(self):
        """Efficiency: the Shapley values sum to the difference, in rational arithmetic; a
        smoothing that changes nothing (no order without a match on the WMT17 corpus) is
        named inert, not stepped."""
        from bleu_compat.decompose import compare

        res = compare(SYS, [REF])
        for d in res.decompositions:
            assert sum((c.shapley for c in d.causes), Fraction(0)) == d.difference
            assert sum((c.contribution for c in d.causes), Fraction(0)) == d.difference
        d = res.decompositions[0]
        assert "smoothing" in d.inert and "smoothing" not in [c.cause for c in d.causes]


class TestIssueExample:
    def test_sacrebleu_default_smoothing_is_shown(self, capsys, tmp_path):
        """`sacrebleu ref -i hyp -b` prints 38.0 here (exp smoothing); the card's 0 differs by smoothing.

        The card follows the command's settings (exp in sacreBLEU's form, issue 23), so the
        unsmoothed card is asked for by its own key, which wins over the command's."""
        hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
        hyp.write_text("the cat sat on the mat\n", encoding="utf-8")
        ref.write_text("the cat is on the mat\n", encoding="utf-8")
        own = sacrebleu.corpus_bleu(["the cat sat on the mat"], [["the cat is on the mat"]]).score
        assert f"{own:.1f}" == "38.0"
        code, out, _ = _run(capsys, str(ref), "-i", str(hyp), "--compare", "sacrebleu",
                            "card:smooth=none", "--format", "json")
        assert code == 0
        cmp = json.loads(out)["systems"][0]["compare"]
        configs = {c["name"]: c for c in cmp["configurations"]}
        assert configs["sacrebleu"]["BLEU"] == own and configs["card:smooth=none"]["bleu"] == 0.0
        (d,) = cmp["decomposition"]
        causes = {c["cause"]: c for c in d["causes"]}
        assert causes["smoothing"]["bleu_before"] == own / 100
        assert causes["smoothing"]["bleu_after"] == 0.0


class TestConfigurations:
    def test_user_configuration_runs_the_library_that_way(self, capsys):
        """`nltk:tok=13a` is NLTK's corpus_bleu on 13a tokens (reproduction.tsv's NLTK column
        for this system, 28.300568314755747), run here with NLTK itself."""
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        tok = Tokenizer13a()
        expected = nltk_bleu.corpus_bleu([[tok(r).split()] for r in _lines(REF)],
                                         [tok(h).split() for h in _lines(SYS)])
        assert 100 * expected == 28.300568314755747
        code, out, _ = _run(capsys, REF, "-i", SYS, "--compare", "nltk:tok=13a", "nltk",
                            "--format", "json")
        assert code == 0
        cmp = json.loads(out)["systems"][0]["compare"]
        assert cmp["configurations"][0]["bleu"] == expected
        (d,) = cmp["decomposition"]
        assert [c["cause"] for c in d["causes"]] == ["tokenization"]

    def test_method1_configuration(self, capsys):
        hyps, refs = _lines(SYS), _lines(REF)
        sf = nltk_bleu.SmoothingFunction()
        expected = nltk_bleu.corpus_bleu([[r.split()] for r in refs], [h.split() for h in hyps],
                                         smoothing_function=sf.method1)
        code, out, _ = _run(capsys, REF, "-i", SYS, "--config", "nltk-method1", "--format", "json")
        cmp = json.loads(out)["systems"][0]["compare"]
        assert code == 0
        assert cmp["configurations"][-1]["name"] == "nltk-method1"
        assert cmp["configurations"][-1]["bleu"] == expected

    @pytest.mark.parametrize("spec, message", [
        ("perl", "unknown configuration 'perl'"),
        ("nltk:tok=mosesx", "tok=mosesx"),
        ("nltk:eff=yes", "no effective order"),
        ("sacrebleu:smooth=method1", "sacrebleu has none, floor, add-k, exp"),
        ("nltk:colour=red", "unknown key 'colour'"),
        # issue 23: add-k with any k is accepted (sacreBLEU computes it); a negative k is not
        ("sacrebleu:smooth=add-k,value=-1", "0 or more"),
    ])
    def test_bad_configuration_is_exit_2(self, capsys, spec, message):
        code, out, err = _run(capsys, REF, "-i", SYS, "--compare", spec)
        assert code == 2 and out == "" and message in err and "Traceback" not in err

    def test_parse_config_fields(self):
        from bleu_compat.decompose import parse_config

        cfg = parse_config("nltk:tok=13a,smooth=method1,value=0.2,lc")
        assert (cfg.implementation, cfg.tokenize, cfg.smoothing, cfg.smooth_value, cfg.lowercase) \
            == ("nltk", "13a", "method1", 0.2, True)
        assert parse_config("sacrebleu").card_smoothing == ("method3", 0.1)

    def test_unreproduced_number_is_unexpected(self, capsys, monkeypatch):
        """A model that does not give NLTK's number: UNEXPECTED, no decomposition, exit 1."""
        from bleu_compat.libraries.nltk import model

        monkeypatch.setattr(model, "nltk_score", lambda *a, **k: 0.5)
        code, out, _ = _run(capsys, REF, "-i", SYS, "--compare", "sacrebleu", "nltk")
        assert code == 1
        assert "UNEXPECTED sacrebleu -> nltk" in out and "not reproduced" in out


class TestSacrebleuOptions:
    def test_score_only_lowercase_and_smoothing_match_sacrebleu(self, capsys):
        """-b -lc -s exp -w 6 gives sacreBLEU's own corpus_bleu(lowercase, exp) to 6 decimals."""
        own = sacrebleu.corpus_bleu(_lines(SYS), [_lines(REF)], lowercase=True).score
        code, out, _ = _run(capsys, REF, "-i", SYS, "-b", "-lc", "-s", "exp", "-w", "6")
        assert code == 0 and out == f"{own:.6f}\n"

    @pytest.mark.parametrize("opener, suffix", [(gzip.open, ".gz"), (lzma.open, ".xz"),
                                                (bz2.open, ".bz2")])
    def test_compressed_files_are_read(self, capsys, tmp_path, opener, suffix):
        packed = tmp_path / f"ref{suffix}"
        with opener(packed, "wb") as handle:
            handle.write(Path(REF).read_bytes())
        _, plain, _ = _run(capsys, REF, "-i", SYS, "-b", "-w", "10")
        code, out, _ = _run(capsys, str(packed), "-i", SYS, "-b", "-w", "10")
        assert code == 0 and out == plain

    @staticmethod
    def _corrupt(kind: str) -> tuple[str, bytes]:
        data = Path(REF).read_bytes()
        packed = {"gz": gzip.compress, "xz": lzma.compress, "bz2": bz2.compress}[kind.split("-")[0]](data)
        if kind.endswith("truncated"):
            return kind.split("-")[0], packed[:500]
        if kind.endswith("flipped"):  # the compressed stream's own bits damaged (zlib.error for gzip)
            damaged = bytearray(packed)
            for i in range(30, 40):
                damaged[i] ^= 0xFF
            return kind.split("-")[0], bytes(damaged)
        return kind.split("-")[0], packed[:10] + bytes(range(256)) * 8  # a header, then garbage

    @pytest.mark.parametrize("kind", ["gz-truncated", "gz-flipped", "gz-garbage", "xz-flipped",
                                      "bz2-flipped"])
    @pytest.mark.parametrize("form", ["REF -i SYS", "--compare", "card-score HYP REF"])
    def test_corrupt_compressed_file_is_named(self, capsys, tmp_path, kind, form):
        suffix, body = self._corrupt(kind)
        bad = tmp_path / f"ref.{suffix}"
        bad.write_bytes(body)
        args = {"REF -i SYS": [str(bad), "-i", SYS], "--compare": [str(bad), "-i", SYS, "--compare"],
                "card-score HYP REF": [SYS, str(bad)]}[form]
        if form.startswith("card-score"):
            code = main(["card-score", *args])
            out, err = capsys.readouterr()
        else:
            code, out, err = _run(capsys, *args)
        assert code == 2, (code, err)
        assert str(bad) in err and "corrupt or truncated" in err and "Traceback" not in err

    def test_dash_is_standard_input(self, capsys, monkeypatch):
        _, plain, _ = _run(capsys, REF, "-i", SYS, "-b", "-w", "10")
        stdin = io.TextIOWrapper(io.BytesIO(Path(SYS).read_bytes()), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", stdin)
        code, out, _ = _run(capsys, REF, "-i", "-", "-b", "-w", "10")
        assert code == 0 and out == plain

    def test_test_set_name_says_there_is_no_download(self, capsys):
        code, out, err = _run(capsys, REF, "-t", "wmt17", "-i", SYS)
        assert code == 2 and out == ""
        assert "downloads nothing" in err and "REF" in err and "-i SYS" in err

    def test_every_format_carries_the_signature(self, capsys):
        import bleu_compat

        v = bleu_compat.__version__
        card = f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|bleu-compat:{v}"
        sacre = f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0|bleu-compat:{v}"
        for fmt in ("line", "table", "markdown", "csv"):  # bleu-compat's formats: the card's
            code, out, _ = _run(capsys, REF, "-i", SYS, "-f", fmt)
            assert code == 0 and card in out, fmt
        for fmt in ("json", "text"):  # sacreBLEU's formats: its signature, bleu-compat named
            code, out, _ = _run(capsys, REF, "-i", SYS, "-f", fmt)
            assert code == 0 and sacre in out, fmt


def test_api_is_lazy_and_documented():
    """`bleu_compat.compare` is exported without importing the module at `import bleu_compat`."""
    code = ("import sys, bleu_compat; assert 'bleu_compat.decompose' not in sys.modules; "
            "f = bleu_compat.compare; assert f.__doc__ and 'Returns' in f.__doc__; "
            "assert 'bleu_compat.decompose' in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("whitespace, expected", [
    ("ascii", [3, 2]),   # U+00A0 is not ASCII whitespace: "a\u00a0b" stays one token
    ("python", [4, 2]),  # Python's str.split() splits at U+00A0
])
def test_library_tokenizer_under_a_scripts_text_rules(tmp_path, whitespace, expected):
    """A decomposition between a library with a tokenizer of its own (tensor2tensor's
    bleu_tokenize) and a Perl script passes through states that combine that tokenizer with
    the script's case, whitespace and chop rules; their statistics and reference lengths are
    counted under those rules (once an UNEXPECTED "tokenize='t2t' must be one of ..." or
    "invalid literal for int(): 'ascii'" on bleuscore/t2t -> multi-bleu.perl/mteval-v13a).
    Expected lengths by hand: bleu_tokenize splits ',' off; ASCII lowercasing only."""
    from bleu_compat.decompose import _Statistics

    ref, hyp = tmp_path / "r.txt", tmp_path / "h.txt"
    ref.write_text("A\u00a0B, c\nD E\n", encoding="utf-8")
    hyp.write_text("a\u00a0b, c\nd e\n", encoding="utf-8")
    stats = _Statistics(str(hyp), [str(ref)], 4)
    try:
        lengths = stats.ref_lengths("t2t", "ascii", whitespace, "off")
        assert [seg[0] for seg in lengths] == expected
        total, rows = stats.get("t2t", "ascii", whitespace, "off")
        # hypothesis == reference after ASCII lowercasing: every n-gram matches
        assert total.hyp_len == total.ref_len == sum(expected)
        assert list(total.matches) == list(total.totals)
        assert [row[-1] for row in rows] == expected  # each segment's reference length
        hyp_tokens, ref_tokens = stats.last_segment("t2t", "ascii", whitespace, "off")
        assert hyp_tokens == ["d", "e"] and ref_tokens == [["d", "e"]]
    finally:
        stats.close()
