"""The Moses/NIST Perl scripts (issue 22): multi-bleu.perl, multi-bleu-detok.perl, mteval-v13a.pl
and mteval-v14.pl; models against published outputs and the real scripts.

* The dialect models reproduce, with no Perl run, what the scripts printed in public:
  nltk_data's wmt15_eval (README: ``multi-bleu.perl ref.ru < google.ru`` ->
  ``BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, ratio=1.074, hyp_len=1989, ref_len=1852)``;
  ``mteval-13a.output``: mteval-v13a.pl on the SGML of the tokenized Google output and the
  raw reference) and sacreBLEU's test.sh MTEVAL table (mteval-v13a.pl -c on WMT17 en-de,
  2 decimals), both in ../shared/real (SOURCES.md cites them).
* Where ``$BLEU_COMPAT_MOSES_SCRIPTS`` names a directory holding the scripts, the real
  ones run too (``score --compare``: the printed number, the release, the decomposition);
  ``$BLEU_COMPAT_MOSES_HISTORY`` (a directory of historical versions, any file names) runs
  every known release found there against its model on generated files.
* Bad input, for each of the four: a missing path, a directory, another script's file, a
  file Perl cannot compile, a hang, nothing or something unreadable printed, a missing Perl
  module (named with its Debian package), a die: one line naming the file, exit 2, never a
  shell. An unknown file is refused unless both opt-ins are given (--allow-unknown-code and
  BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1; test_foreign_code.py tests the refusal); with them it is
  run and judged against every known release's model.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

import pytest

from bleu_compat.libraries.multi_bleu.model import DIALECTS as MB, multi_bleu_run, perl_fixed
from bleu_compat.libraries.mteval_v13a.model import DIALECTS as MT, mteval_run
from bleu_compat.libraries.multi_bleu_detok.model import DIALECTS as DT, detok_run
from bleu_compat.libraries.mteval_v14.model import mteval_v14_run, normalize_international

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = os.environ.get("BLEU_COMPAT_MOSES_SCRIPTS", "")
HISTORY = os.environ.get("BLEU_COMPAT_MOSES_HISTORY", "")
needs_scripts = pytest.mark.skipif(
    not SCRIPTS, reason="BLEU_COMPAT_MOSES_SCRIPTS (a directory with mosesdecoder's "
                        "scripts/generic Perl scripts) is not set")


def _lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


# ------------------------------------------------------------------ published outputs


def test_multi_bleu_model_gives_nltk_readme_line(shared_dir):
    """nltk_data wmt15_eval README.txt: the line multi-bleu.perl printed on the tokenized files
    (October 2016: the release of 2015-11-10, which chops; both files end with a newline)."""
    d = shared_dir / "real" / "nltk-wmt15-100" / "en-ru"
    readme = (d / "README.nltk_data.txt").read_text(encoding="utf-8")
    published = next(x.strip() for x in readme.splitlines() if x.strip().startswith("BLEU = "))
    hyp = (d / "sys.google.tok.txt").read_bytes()
    ref = (d / "ref.A.tok.txt").read_bytes()
    for dialect in ("2012-10-04", "2018-07-03"):
        out = multi_bleu_run(MB[dialect], hyp, plain=ref)
        assert out.stdout == published, (dialect, out.stdout)


def test_mteval_model_gives_nltk_mteval_output(shared_dir):
    """nltk_data wmt15_eval mteval-13a.output: mteval-v13a.pl (no -c) on the tokenized Google
    output and the raw reference: the length line, BLEU 0.2318 and both 9-order BLEU rows."""
    d = shared_dir / "real" / "nltk-wmt15-100" / "en-ru"
    published = (d / "mteval-13a.output").read_text(encoding="utf-8").splitlines()
    out = mteval_run(MT["v13a"], _lines(d / "sys.google.tok.txt"), [_lines(d / "ref.A.txt")],
                     preserve_case=False)
    got = out.stdout.splitlines()
    assert got[0] in published  # length ratio: 1.07303974221267 (1998/1862), penalty (log): 0
    assert re.search(r"BLEU score = (\S+)", next(x for x in published if "BLEU score" in x)).group(1) \
        == got[1].split()[-1] == "0.2318"
    rows = [x.rsplit('"', 2)[0].rstrip() for x in published if x.startswith(" BLEU:")]
    assert [g.rstrip() for g in got[2:]] == rows


@pytest.mark.parametrize("system", ["uedin-nmt.4722", "online-A.0", "PROMT-Rule-based.4735"])
def test_mteval_model_gives_wmt17_published(shared_dir, system):
    """sacreBLEU test.sh's MTEVAL table (mteval-v13a.pl -c, 2 decimals) for the three systems
    bundled in ../shared/real/wmt17/en-de."""
    d = shared_dir / "real" / "wmt17" / "en-de"
    rows = [line.split("\t") for line in
            (d / "published-mteval-v13a.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    published = next(Decimal(r[4]) for r in rows if r[2] == system)
    out = mteval_run(MT["v13a"], _lines(d / f"sys.{system}.txt"), [_lines(d / "ref.A.txt")],
                     preserve_case=True)
    printed = Decimal(out.stdout.splitlines()[1].split()[-1])
    assert printed * 100 == published, (system, printed, published)


WMT17_SYSTEMS = ("uedin-nmt.4722", "online-A.0", "PROMT-Rule-based.4735")


def _published_mteval(shared_dir) -> dict[str, Decimal]:
    d = shared_dir / "real" / "wmt17" / "en-de"
    rows = [line.split("\t") for line in
            (d / "published-mteval-v13a.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    return {r[2]: Decimal(r[4]) for r in rows}


@pytest.mark.parametrize("system", WMT17_SYSTEMS)
def test_detok_model_gives_the_published_mteval_c_figure(shared_dir, system):
    """multi-bleu-detok.perl is multi-bleu.perl's counting on mteval-v13a's tokenizer without
    lowercasing (its header says so; both read here): with no zero precision on these corpora
    (no smoothing to tell them apart), the 2019-02-27 release prints sacreBLEU test.sh's
    published mteval-v13a.pl -c figure for each bundled WMT17 system, to its 2 decimals."""
    d = shared_dir / "real" / "wmt17" / "en-de"
    out = detok_run(DT["2019-02-27"], (d / f"sys.{system}.txt").read_bytes(),
                    plain=(d / "ref.A.txt").read_bytes())
    printed = Decimal(re.match(r"BLEU = (\S+),", out.stdout).group(1))
    assert printed == _published_mteval(shared_dir)[system], (system, out.stdout)


def test_detok_2017_reads_bytes_so_unicode_spaces_stay_in_tokens(shared_dir):
    """The 2017-10-20 release reads undecoded bytes: its whitespace is ASCII only, so a
    Unicode space (here in PROMT's output) joins two words into one token, where mteval and
    the 2019-02-27 release split there: 65307 hypothesis tokens instead of mteval's 65316,
    16.59 printed instead of the published 16.61. On the other two systems, no difference."""
    d = shared_dir / "real" / "wmt17" / "en-de"
    ref = (d / "ref.A.txt").read_bytes()
    published = _published_mteval(shared_dir)
    for system in WMT17_SYSTEMS:
        hyp = (d / f"sys.{system}.txt").read_bytes()
        old, new = (detok_run(DT[k], hyp, plain=ref) for k in ("2017-10-20", "2019-02-27"))
        spaces = {ch for ch in hyp.decode("utf-8") if ch.isspace() and ord(ch) > 127}
        if spaces:
            assert old.stats["hyp_len"] < new.stats["hyp_len"], system
            assert Decimal(old.stdout.split()[2].rstrip(",")) != published[system]
        else:
            assert old.stdout == new.stdout, system
    assert any(ch.isspace() and ord(ch) > 127
               for ch in (d / "sys.PROMT-Rule-based.4735.txt").read_text(encoding="utf-8"))


def test_moses_186_multi_bleu_against_detok_is_the_tokenizer(shared_dir):
    """mosesdecoder #186 ("multi-bleu 19.71 vs multi-bleu-detok 24.01"): multi-bleu.perl on
    detokenized text splits on whitespace only, multi-bleu-detok.perl tokenizes first. On
    WMT17 uedin the two models print 23.39 and 28.30; the card on the same two kinds of tokens
    (ASCII-whitespace split, and our 13a tokenizer without lowercasing), printed as the
    scripts print, gives the same two numbers: the whole gap is the tokenizer."""
    import math
    from collections import Counter

    from bleu_compat.tokenizers import get_tokenizer

    d = shared_dir / "real" / "wmt17" / "en-de"
    hyp_b, ref_b = (d / "sys.uedin-nmt.4722.txt").read_bytes(), (d / "ref.A.txt").read_bytes()
    mb = multi_bleu_run(MB["2018-07-03"], hyp_b, plain=ref_b).stdout
    dt = detok_run(DT["2019-02-27"], hyp_b, plain=ref_b).stdout
    assert mb.startswith("BLEU = 23.39,") and dt.startswith("BLEU = 28.30,"), (mb, dt)

    def bleu(pairs):  # an independent count: one reference, clipped matches, BP, 4 orders
        m, t, c, r = [0] * 4, [0] * 4, 0, 0
        for h, ref in pairs:
            c, r = c + len(h), r + len(ref)
            for n in range(1, 5):
                hg = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
                rg = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
                t[n - 1] += sum(hg.values())
                m[n - 1] += sum(min(k, rg[g]) for g, k in hg.items())
        return math.exp(min(0, 1 - r / c)) * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4)

    ascii_ws = re.compile(r"[\t\n\x0b\x0c\r ]+")
    tok13a = get_tokenizer("13a")
    hyp, ref = _lines(d / "sys.uedin-nmt.4722.txt"), _lines(d / "ref.A.txt")
    for tokens, printed in ((lambda x: [t for t in ascii_ws.split(x) if t], "23.39"),
                            (lambda x: list(tok13a(x)), "28.30")):
        assert perl_fixed(100 * bleu([(tokens(h), tokens(r)) for h, r in zip(hyp, ref)]), 2) == printed


@pytest.mark.parametrize("system", WMT17_SYSTEMS)
def test_mteval_v14_model_gives_the_published_v13a_c_figure(shared_dir, system):
    """v14's default tokenizer, counts and smoothing are v13a's (both scripts read): on WMT17
    it prints sacreBLEU test.sh's published mteval-v13a.pl -c figure, without v13a's length line."""
    d = shared_dir / "real" / "wmt17" / "en-de"
    out = mteval_v14_run(_lines(d / f"sys.{system}.txt"), [_lines(d / "ref.A.txt")], True)
    first = out.stdout.splitlines()[0]
    assert first.startswith("BLEU score = ") and "length ratio" not in out.stdout
    assert Decimal(first.split()[-1]) * 100 == _published_mteval(shared_dir)[system]


def test_mteval_v14_model_gives_nltk_mteval_rows(shared_dir):
    """The 9-order rows of nltk_data's mteval-13a.output (v13a, no -c) are v14's too."""
    d = shared_dir / "real" / "nltk-wmt15-100" / "en-ru"
    published = (d / "mteval-13a.output").read_text(encoding="utf-8").splitlines()
    out = mteval_v14_run(_lines(d / "sys.google.tok.txt"), [_lines(d / "ref.A.txt")], False)
    rows = [x.rsplit('"', 2)[0].rstrip() for x in published if x.startswith(" BLEU:")]
    assert [g.rstrip() for g in out.stdout.splitlines()[1:]] == rows


@pytest.mark.parametrize("text, preserve_case, expect", [
    # punctuation splits unless a number is on both sides; a final "." after a digit has no
    # second character to match, so "2." stays whole
    ("a,b 3,5 x.y 2.", True, "a , b 3,5 x . y 2."),
    ("$10 a+b", True, "$ 10 a + b"),
    # the entities, &apos; included (the default tokenizer leaves &apos;)
    ("&quot;q&quot; &apos;s &amp; &lt;", True, "\" q \" ' s & <"),
    # Perl's lc on every character (the default tokenizer lowercases A-Z only)
    ("ÜBER İ ΑΣ", False, "über i\u0307 ασ"),
    # non-ASCII punctuation and symbols are classes too: « » € split
    ("«x» 5€", True, "« x » 5 €"),
    # each substitution consumes two characters: "a.," gets ". ," then ", " -> one space each
    ("a.,b", True, "a . , b"),
])
def test_international_tokenization_facts(text, preserve_case, expect):
    """--international-tokenization, from the rules read in tokenization_international (each
    case was also checked against the real script's ``-d 3`` listing of the tokenized segment)."""
    assert normalize_international(text, preserve_case) == expect


def test_mteval_v14_scores_where_v13a_dies():
    """v14 has no length line: an empty reference side gives a score (exp(min(0, 1 - 0/c)) = 1,
    the unigram order smoothed to 1/2, the others log 1: exp(log(1/2) / 4) = 0.8409), where
    v13a dies dividing by r = 0; empty hypotheses print 0.0000 where v13a dies on log 0."""
    v13 = mteval_run(MT["v13a"], ["a"], [[""]], True)
    v14 = mteval_v14_run(["a"], [[""]], True)
    assert v13.error == "Illegal division by zero" and v14.status == 0
    assert v14.stdout.splitlines()[0] == "BLEU score = 0.8409"
    assert mteval_v14_run([""], [["a"]], True).stdout.splitlines()[0] == "BLEU score = 0.0000"


def test_perl_fixed_rounds_ties_to_even():
    """printf's %.Nf: the exact binary value, an exact tie to even (0.125 -> 0.12), unlike
    toFixed (0.13)."""
    assert perl_fixed(0.125, 2) == "0.12" and perl_fixed(0.375, 2) == "0.38"
    assert perl_fixed(1.005, 2) == "1.00" and perl_fixed(2.5, 0) == "2"
    assert perl_fixed(float("inf"), 2) == "Inf"


def test_release_tables_are_consistent():
    """Every release's dialect exists; hashes are unique across the family; labels as reports
    show them."""
    from bleu_compat.libraries.multi_bleu import entries as mb
    from bleu_compat.libraries.multi_bleu_detok import entries as dt
    from bleu_compat.libraries.mteval_v13a import entries as mt

    assert len(mb.RELEASES) == 29 and len(mt.RELEASES) == 8 and len(dt.RELEASES) == 2
    shas = [r.sha256 for r in (*mb.RELEASES, *mt.RELEASES, *dt.RELEASES)]
    assert len(set(shas)) == len(shas) and all(re.fullmatch("[0-9a-f]{64}", s) for s in shas)
    assert all(r.dialect in MB for r in mb.RELEASES) and all(r.dialect in MT for r in mt.RELEASES)
    assert all(r.dialect in DT for r in dt.RELEASES)
    assert dt.RELEASES[-1].label == "2019-02-27-fdb7384"
    assert mb.RELEASES[-1].label == "2018-09-16-48fa6e9"
    assert {"RELEASE-4.0"} <= set(next(r for r in mt.RELEASES if r.blob.startswith("92afcbd")).moses_releases)


# ------------------------------------------------------------------ configuration and bad input


def _score(*args, env=None, timeout=300, unknown=False):
    """``bleu-compat score ARGS``; ``unknown``: with both opt-ins to unknown code (the tests'
    planted scripts are no known release: without them they are refused, never run)."""
    e = dict(os.environ, **(env or {}))
    e.pop("BLEU_COMPAT_ALLOW_UNKNOWN_CODE", None)
    if unknown:
        e["BLEU_COMPAT_ALLOW_UNKNOWN_CODE"] = "1"
        args = (*args, "--allow-unknown-code")
    return subprocess.run([sys.executable, "-m", "bleu_compat", "score", *args],
                          capture_output=True, text=True, timeout=timeout, env=e)


@pytest.fixture()
def small(tmp_path):
    (tmp_path / "ref.txt").write_text("the cat sat on the mat\na b c d\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("the cat sat on a mat\na b c d\n", encoding="utf-8")
    return tmp_path


def test_the_old_multi_bleu_name_is_refused_with_both_names(small):
    p = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare", "multi-bleu")
    assert p.returncode == 2
    assert "card-split" in p.stderr and "multi-bleu.perl:path=FILE" in p.stderr


@pytest.mark.parametrize("make, expect", [
    (lambda d: d / "missing.perl", "no such file"),
    (lambda d: d, "not a regular file"),
])
def test_a_bad_script_path_is_a_clear_error(small, make, expect):
    path = make(small)
    p = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
               f"multi-bleu.perl:path={path}")
    assert p.returncode == 2, p.stderr
    assert str(path) in p.stderr and expect in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("body, expect", [
    (b"this is not perl {{{\n", "cannot compile"),
    (b"print 'hello';\n", "printed no 'BLEU = ...' line"),
    (b"print \"BLEU = x, y\\n\";\n", "cannot read its line"),
    (b"use Some::Missing::Module;\n", "needs the Perl module Some::Missing::Module"),
    (b"1 while 1;\n", "still running after"),
])
def test_an_unknown_script_that_fails_is_a_clear_error(small, body, expect):
    """An unknown file run with the opt-in (and judged); when it gives no number the error
    names it."""
    script = small / "mine.perl"
    script.write_bytes(body)
    p = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
               f"multi-bleu.perl:path={script}", env={"BLEU_COMPAT_PERL_TIMEOUT": "3"}, unknown=True)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert str(script) in p.stderr and expect in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_a_missing_xml_twig_names_its_debian_package(allow_unknown_code):
    from bleu_compat.libraries.perl_runner import ScriptError, run_perl

    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "s.pl"
        script.write_text("use XML::TwigNotThere;\n", encoding="utf-8")
        with pytest.raises(ScriptError, match="XML::TwigNotThere"):
            run_perl(script, [], cwd=d)
    from bleu_compat.libraries.perl_runner import DEBIAN_PACKAGES

    assert DEBIAN_PACKAGES["XML::Twig"] == "libxml-twig-perl"


@pytest.mark.parametrize("body, timeout, expect", [
    # waits 2.5 s using no processor time: the 1 s limit is CPU time, so it finishes
    # (a wall-clock limit stopped it, and on a loaded machine stopped slow real runs)
    (b"select(undef, undef, undef, 2.5); print qq(done\\n);\n", 1, None),
    (b"1 while 1;\n", 1, "still running after 1 s of CPU time"),
    # never computes: stopped by the wall-clock bound, WALL_FACTOR (10) times the limit
    (b"sleep 100;\n", 0.3, "still running after 3 s of wall-clock time"),
])
def test_the_limit_is_the_scripts_cpu_time(body, timeout, expect, monkeypatch, allow_unknown_code):
    from bleu_compat.libraries import perl_runner
    from bleu_compat.libraries.perl_runner import ScriptError, run_perl

    if b"while" in body:  # the loop reaches its CPU limit however starved it is (nice, load)
        monkeypatch.setattr(perl_runner, "WALL_FACTOR", 300)
    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "s.pl"
        script.write_bytes(body)
        if expect is None:
            assert run_perl(script, [], cwd=d, timeout=timeout).stdout == "done\n"
        else:
            with pytest.raises(ScriptError, match=re.escape(expect)):
                run_perl(script, [], cwd=d, timeout=timeout)


_FAKE_LINE = (b'print "BLEU = 50.00, 80.0/60.0/40.0/20.0 (BP=1.000, ratio=1.000, hyp_len=10, '
              b'ref_len=10)\\n";\n')


@pytest.mark.parametrize("given", ["fake.perl", "./fake.perl", "sub/../fake.perl"])
def test_a_relative_script_path_is_the_users(small, given):
    """``path=`` relative to the directory score runs in: the script perl is given is that file
    (it was passed as given to a perl running in a temporary directory: "Can't open perl
    script", after the existence check had passed)."""
    (small / "fake.perl").write_bytes(_FAKE_LINE)
    (small / "sub").mkdir()
    p = subprocess.run([sys.executable, "-m", "bleu_compat", "score", "ref.txt", "-i", "hyp.txt",
                        "--compare", f"multi-bleu.perl:path={given}", "--allow-unknown-code"],
                       capture_output=True, text=True, timeout=300, cwd=small,
                       env=dict(os.environ, BLEU_COMPAT_ALLOW_UNKNOWN_CODE="1"))
    # 1: the fake's number is reproduced by no model (UNEXPECTED); it was 2, the script not run
    assert p.returncode == 1, p.stderr
    assert "printed 50.00" in p.stdout + p.stderr and "Can't open" not in p.stdout + p.stderr


@pytest.mark.parametrize("value", ["abc", "-1", "0", "nan", "inf", "1e400", ""])
def test_a_bad_timeout_in_the_environment_is_one_clear_error(small, value):
    """A BLEU_COMPAT_PERL_TIMEOUT that is not a number of seconds above 0: importing never fails
    (``abc`` made every command that loads the plug-ins exit 3), and a script is not run but
    refused naming the variable (``nan`` was "cannot convert float NaN to integer", ``-1``
    "still running after -10 s")."""
    env = dict(os.environ, BLEU_COMPAT_PERL_TIMEOUT=value)
    probe = subprocess.run([sys.executable, "-c", "import bleu_compat.libraries.perl_runner as p; "
                            "print(repr(p.TIMEOUT))"], capture_output=True, text=True, env=env)
    assert probe.returncode == 0 and probe.stdout.strip() == repr(value), probe.stderr
    (small / "fake.perl").write_bytes(_FAKE_LINE)
    p = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
               f"multi-bleu.perl:path={small / 'fake.perl'}", env={"BLEU_COMPAT_PERL_TIMEOUT": value},
               unknown=True)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert f"BLEU_COMPAT_PERL_TIMEOUT={value!r} is not a number of seconds above 0" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


@pytest.mark.parametrize("value, expect", [("7", 7.0), ("0.5", 0.5), (None, 120.0)])
def test_a_good_timeout_in_the_environment_is_taken(value, expect):
    env = {k: v for k, v in os.environ.items() if k != "BLEU_COMPAT_PERL_TIMEOUT"}
    if value is not None:
        env["BLEU_COMPAT_PERL_TIMEOUT"] = value
    probe = subprocess.run([sys.executable, "-c", "import bleu_compat.libraries.perl_runner as p; "
                            "print(repr(p.TIMEOUT))"], capture_output=True, text=True, env=env)
    assert probe.stdout.strip() == repr(expect), probe.stderr


# ------------------------------------------------------------------ the real scripts


def _script(name: str) -> Path:
    return Path(SCRIPTS) / name


@needs_scripts
def test_real_mteval_prints_the_wmt17_published_figure(shared_dir):
    """mteval-v13a.pl (-c) through the adapter on the three WMT17 systems: sacreBLEU's table."""
    from bleu_compat.libraries.mteval_v13a.adapter import run_mteval

    d = shared_dir / "real" / "wmt17" / "en-de"
    for system, published in (("uedin-nmt.4722", "28.3"), ("online-A.0", "20.8"),
                              ("PROMT-Rule-based.4735", "16.61")):
        res = run_mteval(str(_script("mteval-v13a.pl")), _lines(d / f"sys.{system}.txt"),
                         [_lines(d / "ref.A.txt")], preserve_case=True)
        assert Decimal(str(res["bleu_printed"])) * 100 == Decimal(published)


@needs_scripts
@pytest.mark.parametrize("config, script", [("multi-bleu.perl", "multi-bleu.perl"),
                                            ("mteval-v13a", "mteval-v13a.pl"),
                                            ("mteval-v14", "mteval-v14.pl"),
                                            ("mteval-v14:tok=intl", "mteval-v14.pl")])
def test_score_compare_prints_the_script_number_and_release(shared_dir, config, script, tmp_path):
    """score --compare with the script's path: its number (to its decimals) equals what the
    script prints when run by hand, the release is named, the steps add up exactly."""
    import json

    from bleu_compat.libraries.multi_bleu.entries import by_sha256 as mb
    from bleu_compat.libraries.mteval_v13a.entries import by_sha256 as mt
    from bleu_compat.libraries.mteval_v14.entries import by_sha256 as m14

    d = shared_dir / "real" / "wmt17" / "en-de"
    path = _script(script)
    known = {"multi-bleu.perl": mb, "mteval-v13a.pl": mt, "mteval-v14.pl": m14}[script]
    rel = known(hashlib.sha256(path.read_bytes()).hexdigest())
    spec = f"{config}{',' if ':' in config else ':'}path={path}"
    p = _score(str(d / "ref.A.txt"), "-i", str(d / "sys.PROMT-Rule-based.4735.txt"), "--compare",
               "sacrebleu", spec, "--format", "json", timeout=600)
    assert p.returncode == 0, p.stderr
    cmp = json.loads(p.stdout)["systems"][0]["compare"]
    run = next(c for c in cmp["configurations"] if c["name"] == spec)
    if rel is not None:
        assert f"release:{rel.label}" in run["settings"]
    # by hand
    if script.startswith("multi"):
        with open(d / "sys.PROMT-Rule-based.4735.txt", "rb") as fin:
            out = subprocess.run(["perl", str(path), str(d / "ref.A.txt")], stdin=fin,
                                 capture_output=True, text=True).stdout
        printed = Decimal(re.match(r"BLEU = (\S+),", out).group(1))
        got = Decimal(str(run["BLEU"]))  # its own scale: 0-100
    else:
        from bleu_compat.libraries.mteval_v13a.adapter import run_mteval

        options = ["--international-tokenization"] if "tok=intl" in config else []
        res = run_mteval(str(path), _lines(d / "sys.PROMT-Rule-based.4735.txt"),
                         [_lines(d / "ref.A.txt")], preserve_case=False, options=options)
        printed = Decimal(str(res["bleu_printed"]))
        got = Decimal(str(run["bleu"]))  # its own scale: 0-1
    assert got == printed, (got, printed)
    assert all(x["unexpected"] is None for x in cmp["decomposition"]) and not cmp["unexpected"]


@needs_scripts
def test_multi_bleu_against_detok_on_real_scripts(shared_dir):
    """mosesdecoder #186's kind of gap with the real scripts: score --compare with both paths on
    WMT17 uedin prints each script's own number (as run by hand), names each release, and
    decomposes multi-bleu.perl -> multi-bleu-detok.perl into the tokenizer alone, exactly."""
    import json

    from bleu_compat.libraries.multi_bleu_detok.entries import by_sha256 as dt

    d = shared_dir / "real" / "wmt17" / "en-de"
    mb_path, dt_path = _script("multi-bleu.perl"), _script("multi-bleu-detok.perl")
    p = _score(str(d / "ref.A.txt"), "-i", str(d / "sys.uedin-nmt.4722.txt"), "--compare",
               f"multi-bleu.perl:path={mb_path}", f"multi-bleu-detok.perl:path={dt_path}",
               "--format", "json", timeout=600)
    assert p.returncode == 0, p.stderr
    cmp = json.loads(p.stdout)["systems"][0]["compare"]
    by_hand = {}
    for path in (mb_path, dt_path):
        with open(d / "sys.uedin-nmt.4722.txt", "rb") as fin:
            out = subprocess.run(["perl", str(path), str(d / "ref.A.txt")], stdin=fin,
                                 capture_output=True, text=True).stdout
        by_hand[str(path)] = Decimal(re.match(r"BLEU = (\S+),", out).group(1))
    runs = {c["name"].split("path=")[1]: c for c in cmp["configurations"] if "path=" in c["name"]}
    for path, printed in by_hand.items():
        assert Decimal(str(runs[path]["BLEU"])) == printed
    rel = dt(hashlib.sha256(dt_path.read_bytes()).hexdigest())
    if rel is not None:
        assert f"release:{rel.label}" in runs[str(dt_path)]["settings"]
    dec = next(x for x in cmp["decomposition"] if "multi-bleu-detok" in x["to"]
               and "multi-bleu.perl" in x["from"])
    moving = {c["cause"]: c["contribution"] for c in dec["causes"] if c["contribution"]}
    assert dec["unexpected"] is None and "tokenization" in moving, dec
    # the rest is each script's printf (2 decimals off, then on): under a hundredth together
    assert all("PRINTS-2-DECIMALS" in c for c in moving if c != "tokenization"), moving
    gap = dec["end"] - dec["start"]
    assert abs(moving["tokenization"] - gap) < 0.01 and abs(gap) > 4.9


@pytest.mark.skipif(not HISTORY, reason="BLEU_COMPAT_MOSES_HISTORY (every historical version of "
                                        "the scripts, extracted from mosesdecoder) is not set")
def test_every_historical_release_against_its_model():
    """Each known release found in $BLEU_COMPAT_MOSES_HISTORY, on 12 generated file sets
    (Unicode spaces, U+001C, final newline or not, empty lines, several references, ties):
    the printed line and the exit equal the model's."""
    from bleu_compat.libraries.multi_bleu.adapter import run_on_files
    from bleu_compat.libraries.multi_bleu.entries import by_sha256 as mb
    from bleu_compat.libraries.multi_bleu_detok.entries import by_sha256 as dt

    rng = random.Random(22)
    words = ["a", "b", "A", "Über", "д", "x.y", "3,5", "&amp;", "ΑΣ", "\u200b"]
    seps = [" ", " ", "  ", "\t", "\xa0", "\x1c", "\u3000"]

    def line():
        return "".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(0, 6))).rstrip(" ")

    found = 0
    for f in sorted(Path(HISTORY).iterdir()):
        sha = hashlib.sha256(f.read_bytes()).hexdigest()
        rel, model_run, dialects = mb(sha), multi_bleu_run, MB
        if rel is None:
            rel, model_run, dialects = dt(sha), detok_run, DT
        if rel is None:
            continue
        found += 1
        for _ in range(12):
            with tempfile.TemporaryDirectory() as d:
                n = rng.randint(1, 4)
                hyp = Path(d) / "h"
                hyp.write_bytes(("\n".join(line() for _ in range(n)) + rng.choice(["", "\n"])).encode())
                ref = Path(d) / "r"
                ref.write_bytes(("\n".join(line() for _ in range(n)) + rng.choice(["", "\n"])).encode())
                real = run_on_files(f, hyp, [ref])
                model = model_run(dialects[rel.dialect], hyp.read_bytes(), plain=ref.read_bytes())
                if "error" in real:
                    assert model.error and real["error"].startswith(model.error), (f, real, model)
                else:
                    assert real["line"] == model.stdout, (f.name, real["line"], model.stdout)
    assert found, "no known release in BLEU_COMPAT_MOSES_HISTORY"


@pytest.mark.skipif(not HISTORY, reason="BLEU_COMPAT_MOSES_HISTORY (every historical version of "
                                        "the scripts, extracted from mosesdecoder) is not set")
def test_every_historical_mteval_release_against_its_model():
    """Each known mteval-v13a.pl and mteval-v14.pl release in $BLEU_COMPAT_MOSES_HISTORY, on
    generated segments (punctuation, entities, Unicode letters and spaces, empty lines, one or
    two references; v14 also with --international-tokenization): the printed score and the
    cumulative 9-order row equal the model's; a death (and the two releases Perl 5.30+ cannot
    compile) the model's message."""
    from bleu_compat.libraries.mteval_v13a.adapter import run_mteval
    from bleu_compat.libraries.mteval_v13a.entries import by_sha256 as mt
    from bleu_compat.libraries.mteval_v14.entries import by_sha256 as m14

    rng = random.Random(14)
    pieces = ["a", "b", "A", "Über", "д", "x.y", "3,5", "1-2", "&amp;", "&apos;", "«q»", "$5",
              "ΑΣ", "İ", "!", "\u200b", "\u3000", "\xa0"]

    def line():
        return " ".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))

    found = 0
    for f in sorted(Path(HISTORY).iterdir()):
        sha = hashlib.sha256(f.read_bytes()).hexdigest()
        rel, v14 = mt(sha), False
        if rel is None:
            rel, v14 = m14(sha), True
        if rel is None:
            continue
        found += 1
        for k in range(8 if v14 else 3):
            n = rng.randint(1, 4)
            hyp = [line() for _ in range(n)]
            refs = [[h if rng.random() < 0.4 else line() for h in hyp]
                    for _ in range(rng.choice([1, 2]))]
            pc, intl = rng.random() < 0.5, v14 and k % 2 == 1
            real = run_mteval(str(f), hyp, refs, pc,
                              options=["--international-tokenization"] if intl else [])
            model = (mteval_v14_run(hyp, refs, pc, intl) if v14
                     else mteval_run(MT[rel.dialect], hyp, refs, pc))
            if "error" in real:
                assert model.error and real["error"].startswith(model.error), (f, real, model)
                continue
            lines = model.stdout.splitlines()
            score = next(x for x in lines if x.startswith("BLEU score"))
            assert f"{real['bleu_printed']:.4f}" == score.split()[-1], (f.name, hyp, refs, real, score)
            cum = [float(x) for x in lines[-1].split(":")[1].split()]
            assert real["cumulative"] == cum, (f.name, hyp, refs, pc, intl)
    assert found, "no known mteval release in BLEU_COMPAT_MOSES_HISTORY"


# ------------------------------------------------------------------ bad input, all four scripts

FOUR = ("multi-bleu.perl", "multi-bleu-detok.perl", "mteval-v13a", "mteval-v14")
#: a line each script family cannot read: (multi-bleu's, mteval's)
_UNREADABLE = {True: b'print "BLEU = x, y\\n";\n', False: b'print "BLEU score = x for system\\n";\n'}
#: what Perl prints for a module that is not installed, made by an @INC hook (the machine
#: that runs the tests may have the module)
_MISSING = ('BEGIN {{ unshift @INC, sub {{ die "Can\'t locate $_[1] in \\@INC (you may need to '
            'install the {m} module)\\n" if $_[1] eq "{f}"; return }} }}\nuse {m};\n')


def _api_error(spec: str, small: Path) -> str:
    """What parse_config and the run raise for ``spec`` on the small files (the message)."""
    from bleu_compat.decompose import library_points, parse_config

    hyp, ref = small / "hyp.txt", small / "ref.txt"
    try:
        cfg = parse_config(spec)
        library_points(cfg, _lines(hyp), [_lines(ref)], paths=(str(hyp), [str(ref)]))
    except Exception as exc:  # ValueError (a usage error) or ScriptError
        return f"{type(exc).__name__}: {exc}"
    raise AssertionError(f"{spec}: no error")


@pytest.fixture()
def short_timeout(monkeypatch):
    from bleu_compat.libraries import perl_runner

    monkeypatch.setattr(perl_runner, "TIMEOUT", 2.0)
    # a script that loops is stopped by its 2 s of CPU time however slowly it gets them (a
    # starved process, nice 10 beside a CI run, reached the 20 s wall-clock bound first)
    monkeypatch.setattr(perl_runner, "WALL_FACTOR", 300)


@pytest.mark.parametrize("config", FOUR)
@pytest.mark.parametrize("case", ["missing", "directory", "not perl", "hangs", "says nothing",
                                  "unreadable", "missing module", "xml twig", "dies"])
def test_bad_scripts_of_the_four_are_one_clear_error(small, config, case, short_timeout,
                                                    allow_unknown_code):
    """Each kind of bad script, for each of the four: an error naming the file and the fault,
    one line, no traceback; what is not a script is never run."""
    multi = config.startswith("multi")
    script = small / f"my {case}; $(touch pwned).pl"  # shell metacharacters: run with arguments
    body = {"not perl": b"this is not perl {{{\n", "hangs": b"1 while 1;\n",
            "says nothing": b"print 'hello';\n", "unreadable": _UNREADABLE[multi],
            "missing module": b"use Some::Missing::Module;\n",
            "xml twig": _MISSING.format(m="XML::Twig", f="XML/Twig.pm").encode(),
            "dies": b"die 'no reference file here';\n"}.get(case)
    if case == "directory":
        script = small
    elif body is not None:
        script.write_bytes(body)
    expect = {"missing": "no such file", "directory": "not a regular file",
              "not perl": "cannot compile", "hangs": "still running after 2 s",
              "says nothing": "printed no", "unreadable": "cannot read its",
              "missing module": "needs the Perl module Some::Missing::Module, which is not installed (cpan Some::Missing::Module)",
              "xml twig": "needs the Perl module XML::Twig, which is not installed (Debian: "
                          "apt-get install libxml-twig-perl)",
              "dies": "the script died: no reference file here"}[case]
    message = _api_error(f"{config}:path={script}", small)
    assert str(script) in message and expect in message, message
    assert "\n" not in message and "Traceback" not in message
    assert not (small / "pwned").exists() and not Path("pwned").exists()


@pytest.mark.parametrize("config", FOUR)
def test_bad_script_on_the_command_line_is_exit_2_one_line(small, config):
    """The command line: exit 2, one line on standard error naming the file, nothing on stdout."""
    script = small / "mine.pl"
    script.write_bytes(_UNREADABLE[config.startswith("multi")])
    p = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
               f"{config}:path={script}", unknown=True)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and str(script) in lines[0] and "cannot read its" in lines[0], p.stderr
    assert not p.stdout.strip()


@pytest.mark.parametrize("config, module, package", [
    ("mteval-v13a", "XML::Twig", "libxml-twig-perl"),
    ("mteval-v14", "Sort::Naturally", "libsort-naturally-perl")])
def test_missing_perl_module_is_named_on_the_command_line(small, config, module, package):
    script = small / "needs.pl"
    script.write_bytes(_MISSING.format(m=module, f=module.replace("::", "/") + ".pm").encode())
    p = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
               f"{config}:path={script}", unknown=True)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert module in p.stderr and package in p.stderr and str(script) in p.stderr


@needs_scripts
@pytest.mark.parametrize("config, script", [("multi-bleu.perl", "multi-bleu.perl"),
                                            ("multi-bleu-detok.perl", "multi-bleu-detok.perl"),
                                            ("mteval-v13a", "mteval-v13a.pl"),
                                            ("mteval-v14", "mteval-v14.pl")])
def test_unknown_copy_is_run_and_judged_against_every_release(small, tmp_path, config, script):
    """A copy with one more line is no known release: refused without the opt-in (naming both
    halves); with it, run, its number printed, and a note says which known releases' models
    print the same number on these files."""
    import json

    copy = tmp_path / f"local-{script}"
    copy.write_bytes(_script(script).read_bytes() + b"\n# a local copy\n")
    refused = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
                     f"{config}:path={copy}", "--format", "json")
    assert refused.returncode == 2 and "--allow-unknown-code" in refused.stderr, refused.stderr
    assert "BLEU_COMPAT_ALLOW_UNKNOWN_CODE=1" in refused.stderr and not refused.stdout
    p = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
               f"{config}:path={copy}", "--format", "json", unknown=True)
    assert p.returncode == 0, p.stderr
    note = next(x for x in p.stderr.splitlines() if x.startswith("note: "))
    assert f"{copy} is not a known" in note and "known releases print the same" in note, note
    run = next(c for c in json.loads(p.stdout)["systems"][0]["compare"]["configurations"]
               if "path=" in c["name"])
    assert "unknown file, sha256" in run["settings"]


@needs_scripts
def test_another_scripts_file_is_refused_naming_it(small):
    p = _score(str(small / "ref.txt"), "-i", str(small / "hyp.txt"), "--compare",
               f"mteval-v14:path={_script('multi-bleu-detok.perl')}")
    assert p.returncode == 2 and "multi-bleu-detok.perl" in p.stderr and "give it as" in p.stderr


# ------------------------------------------------- statistics side (issue 36, item 2)

#: one segment whose first L tokens match (the adapters' one_segment text), every shape with
#: c <= 4 and r in {0, L, L + 1, L + 3}: each zero-length branch, no unigram match, orders
#: without n-grams (c < 4), and the ordinary case
_ONE_SEGMENT = sorted({(c, L, r) for c in range(5) for L in range(c + 1)
                       for r in (0, L, L + 1, L + 3) if r >= L})


def _one_segment_request(c: int, L: int, r: int, method: str) -> dict:
    return {"matches": [max(0, L - n + 1) for n in range(1, 5)],
            "totals": [max(0, c - n + 1) for n in range(1, 5)],
            "candidate_length": c, "reference_length": r, "smoothing": method}


def test_statistics_side_models_where_the_card_gives_0():
    """Without Perl: mteval's smoothing-tool model on bleu-smoothing-compute#154's kind (one
    hypothesis token, no match, orders 2-4 empty) gives the script's bleu_score, not the card's
    0: order 1 smoothed to 1/(2 * 1), orders 2-4 log 1, so exp(ln(1/2) / 4) = 2^(-1/4), printed
    %.4f (0.8409; the real script prints it: test_statistics_side_against_the_real_scripts);
    with only one of the two entries behind it on, the card's 0 stands."""
    from bleu_compat.harness.dialect import same_value
    from bleu_compat.libraries.mteval_v13a import model as v13a
    from bleu_compat.libraries.mteval_v14 import model as v14

    request = _one_segment_request(1, 0, 1, "method3")
    for module, evaluate in ((v13a, v13a.evaluate), (v14, v14.evaluate)):
        both = frozenset({module.NO_MATCH_SMOOTHED_SMOOTHING, module.EMPTY_ORDER_LOG_1_SMOOTHING})
        out = evaluate("bleu-smoothing-compute", "as_called", request, both, {})
        assert same_value(out["bleu"], 2 ** -0.25), out
        printed = evaluate("bleu-smoothing-compute", "as_called", request,
                           both | {module.PRINTS_SMOOTHING}, {})
        assert printed["bleu"] == 0.8409
        for one in both:
            assert evaluate("bleu-smoothing-compute", "as_called", request, frozenset({one}),
                            {})["bleu"] == 0.0
    dies = v13a.evaluate("bleu-smoothing-compute", "as_called", _one_segment_request(1, 0, 0, "method3"),
                         frozenset({v13a.ZERO_LENGTH_DIES_SMOOTHING}), {})
    assert dies == {"error": "PerlDie: Illegal division by zero"}


@needs_scripts
@pytest.mark.parametrize("library, method", [("mteval-v13a", "method3"), ("mteval-v14", "method3"),
                                             ("multi-bleu", "none"), ("multi-bleu-detok", "none")])
def test_statistics_side_against_the_real_scripts(library, method, monkeypatch):
    """Each script, through its adapter, on every one-segment statistics shape of _ONE_SEGMENT
    (the kinds bleu-smoothing-compute#154 and the decompositions ending at a script meet): its
    printed output is reproduced bit for bit by its dialect, in both modes, and the smallest
    reproducing set is the entries that name what the script does there."""
    from bleu_compat import catalog
    from bleu_compat.harness.truth import truth
    from bleu_compat.libraries import run_adapter
    from bleu_compat.libraries.multi_bleu.adapter import Script

    monkeypatch.setattr(Script, "_configured", {})  # the scripts of $BLEU_COMPAT_MOSES_SCRIPTS

    prefix = library.upper()
    seen: set[str] = set()
    for c, L, r in _ONE_SEGMENT:
        request = _one_segment_request(c, L, r, method)
        for mode in ("as_called", "mapped"):
            result = run_adapter(library, mode, "bleu-smoothing-compute", request)
            assert result.not_representable is None, (request, result.not_representable)
            output = result.output if result.output is not None else {"error": result.error}
            rep = catalog.classify(library, mode, "bleu-smoothing-compute", request,
                                   truth("bleu-smoothing-compute", request).expected, output)
            assert rep.explained, (library, mode, request, output, rep.nearest_output)
            seen.update(rep.entries or ())
    if library.startswith("mteval"):
        assert {f"{prefix}-NO-MATCH-SMOOTHED-SMOOTHING", f"{prefix}-EMPTY-ORDER-LOG-1-SMOOTHING",
                f"{prefix}-PRINTS-4-DECIMALS-SMOOTHING"} <= seen, seen
        assert (f"{prefix}-ZERO-LENGTH-DIES-SMOOTHING" in seen) == (library == "mteval-v13a")
    else:
        assert {f"{prefix}-EMPTY-REFERENCES-SMOOTHING", f"{prefix}-EMPTY-HYPOTHESES-SMOOTHING",
                f"{prefix}-PRINTS-2-DECIMALS-SMOOTHING"} <= seen, seen


@needs_scripts
def test_decompositions_ending_at_mteval_on_short_hypotheses(tmp_path, monkeypatch):
    """The crosscheck's 23-33 failed decomposition checks with the scripts present ("the
    mteval-v13a model gives 0.0 ..., the library 0.6181"): on a corpus whose hypotheses have
    no 4-gram (and one no matching unigram), every pair of sacreBLEU, NLTK and both mteval
    scripts is decomposed, and each decomposition passes the independent check."""
    from bleu_compat.decompose import compare, parse_config
    from bleu_compat.harness.decomposition_check import check_compare
    from bleu_compat.libraries.multi_bleu.adapter import Script

    monkeypatch.setattr(Script, "_configured", {})  # the scripts of $BLEU_COMPAT_MOSES_SCRIPTS
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat\na b\nzz yy\n", encoding="utf-8")
    ref.write_text("the cat sat on\na b c\nno match here\n", encoding="utf-8")
    configs = [parse_config(n) for n in ("sacrebleu", "nltk", "mteval-v13a", "mteval-v14")]
    result = compare(str(hyp), [str(ref)], configs)
    checked, failures = check_compare(result, str(hyp), [str(ref)], configs)
    assert checked == 6 and failures == [], failures
    ends = {d.to: d for d in result.decompositions if d.frm == "sacrebleu"}
    assert ends["mteval-v13a"].end > 0 and ends["mteval-v13a"].unexpected is None


@needs_scripts
def test_the_issue_reproduction_is_clean_with_the_scripts(tmp_path, monkeypatch):
    """Issue 36's reproduction, `crosscheck --cases 160 --tools bleu-smoothing-compute --invalid 0
    --no-real` with the four scripts present: exit 0 (it gave 4 UNEXPECTED on #154, mteval-v13a
    and -v14 as called and mapped), each script's one-segment cases reproduced."""
    import json

    from bleu_compat.cli import main
    from bleu_compat.libraries.multi_bleu.adapter import Script

    monkeypatch.setattr(Script, "_configured", {})
    out = tmp_path / "out"
    code = main(["crosscheck", "--cases", "160", "--tools", "bleu-smoothing-compute", "--invalid", "0",
                 "--no-real", "--workers", "1", "--no-progress", "--no-html", "--out", str(out)])
    report = json.loads((out / "crosscheck.json").read_text())
    assert code == 0, report["unexpected"][:2]
    rows = report["summary"]["bleu-smoothing-compute"]
    for impl in ("mteval-v13a/as_called", "mteval-v13a/mapped", "mteval-v14/as_called", "mteval-v14/mapped"):
        assert rows[impl]["explained"] >= 1 and rows[impl]["unexpected"] == 0, (impl, rows[impl])
