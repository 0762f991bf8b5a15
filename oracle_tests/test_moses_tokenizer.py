"""Our Moses tokenizer (issue 32 item 3) against the real ``tokenizer.perl``.

The expected outputs are the real script's, never ours:

* ``data/moses/golden-crafted.json.xz`` and ``golden-wmt17.json.xz``: what
  ``perl tokenizer.perl -q -l LANG [-a] [-no-escape]`` (mosesdecoder ``75d4c672``, Perl
  5.36.0) printed, written by ``scripts/make_moses_golden.py`` (the command, the script's
  SHA-256 and the Perl release are in the files): a crafted corpus of what the rules act on
  under 21 configurations, every code point next to a range boundary of each Perl class the
  script uses in the contexts where that class decides, every nonbreaking prefix of every
  language, and the WMT17 en-de reference and online-B output (-l de, with and without -a);
* where ``$BLEU_COMPAT_MOSES_SCRIPTS`` names a Moses copy (mosesdecoder's
  ``scripts/generic``), the user's own tokenizer.perl on the same inputs, on Hypothesis text
  built from the risky characters, and on every file of ``../shared/real``;
* where ``perl`` is on PATH with the Unicode version of our tables, Perl's own classes for
  all 1,112,064 scalar values (``scripts/make_moses_tables.py --check``).

The tables are also set against Python's ``unicodedata`` (the documented gap), and the bad
input of the issue: a language without a prefix file behaves as tokenizer.perl does.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bleu_compat.errors import ConfigError
from bleu_compat.tokenizers import get_tokenizer, is_moses
from bleu_compat.tokenizers import moses_tables as tables
from bleu_compat.tokenizers.moses import (
    LANGUAGES, MOSES_COMMIT, PREFIX_DIR, TOKENIZER_PERL_SHA256, MosesTokenizer, load_prefixes,
    parse_name, tokenize_text, tokenizer_for,
)

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "moses"
SCRIPTS = os.environ.get("BLEU_COMPAT_MOSES_SCRIPTS", "")


@lru_cache(maxsize=None)
def _golden(name: str) -> dict:
    return json.loads(lzma.decompress((DATA / name).read_bytes()))


def _tokenizer(args: list[str]) -> MosesTokenizer:
    lang = args[args.index("-l") + 1]
    return MosesTokenizer(lang, aggressive="-a" in args, escape="-no-escape" not in args)


def _first_difference(inputs: list[str], ours: list[str], theirs: list[str]) -> str | None:
    if len(ours) != len(theirs):
        return f"{len(ours)} lines, tokenizer.perl printed {len(theirs)}"
    for k, (line, a, b) in enumerate(zip(inputs, ours, theirs)):
        if a != b:
            return f"line {k + 1} {line!r}: ours {a!r}, tokenizer.perl {b!r}"
    return None


def _inputs(data: dict, run: dict) -> list[str]:
    source = data["inputs"][run["input"]]
    if isinstance(source, str):  # a file of the repository
        return (REPO / source).read_text(encoding="utf-8").split("\n")[:-1]
    return source


CRAFTED_RUNS = [r["name"] for r in _golden("golden-crafted.json.xz")["runs"]]
WMT17_RUNS = [r["name"] for r in _golden("golden-wmt17.json.xz")["runs"]]


# ------------------------------------------------------------------ the golden outputs


def test_golden_files_record_the_release_our_rules_follow():
    """The goldens were made by the tokenizer.perl our module names (its SHA-256 and commit)."""
    for name in ("golden-crafted.json.xz", "golden-wmt17.json.xz"):
        data = _golden(name)
        assert data["tokenizer_perl_sha256"] == TOKENIZER_PERL_SHA256
        assert data["moses_commit"] == MOSES_COMMIT
        assert data["perl"] == tables.PERL_RELEASE


@pytest.mark.parametrize("run_name", CRAFTED_RUNS)
def test_crafted_corpus_as_tokenizer_perl_prints_it(run_name):
    """Every line of the crafted corpora, each configuration: ours = the real script's."""
    data = _golden("golden-crafted.json.xz")
    run = next(r for r in data["runs"] if r["name"] == run_name)
    tok = _tokenizer(run["args"])
    inputs = _inputs(data, run)
    problem = _first_difference(inputs, [tok.line(x) for x in inputs], run["output"])
    assert problem is None, f"{run_name} ({' '.join(run['args'])}): {problem}"
    # tokenizer.perl's warning for a language without prefixes is ours, word for word
    said = [x for x in run["stderr"].splitlines() if x.startswith("WARNING: No known")]
    assert said == ([tok.warning] if tok.warning else [])


@pytest.mark.parametrize("run_name", WMT17_RUNS)
def test_wmt17_as_tokenizer_perl_prints_it(run_name):
    """The WMT17 en-de reference and online-B output, -l de with and without -a, byte for byte
    (the whole file through :func:`tokenize_text`, as tokenizer.perl reads it)."""
    data = _golden("golden-wmt17.json.xz")
    run = next(r for r in data["runs"] if r["name"] == run_name)
    path = REPO / data["inputs"][run["input"]]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == data["inputs_sha256"][run["input"]]
    inputs = _inputs(data, run)
    ours = tokenize_text(path.read_text(encoding="utf-8"), _tokenizer(run["args"]))
    assert ours.endswith("\n")
    problem = _first_difference(inputs, ours[:-1].split("\n"), run["output"])
    assert problem is None, f"{run_name}: {problem}"


def test_every_prefix_file_is_exercised_and_shipped_as_recorded():
    """Each shipped prefix file is the one SOURCE.md records (SHA-256), and each has its run."""
    source = (PREFIX_DIR / "SOURCE.md").read_text(encoding="utf-8")
    recorded = dict(re.findall(r"\| `(nonbreaking_prefix\.\w+)` \| `([0-9a-f]{64})` \|", source))
    shipped = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
               for p in PREFIX_DIR.glob("nonbreaking_prefix.*")}
    assert shipped == recorded
    assert len(LANGUAGES) == len(shipped) == 38
    assert {f"prefix-{lang}" for lang in LANGUAGES} <= set(CRAFTED_RUNS)


# ------------------------------------------------------------------ the rules, directly


def test_prefix_files_are_read_as_load_prefixes_reads_them():
    """Perl's reading, on the quirks of the real files and made-up lines: ``0`` and empty
    lines are false, ``#`` starts a comment, the greedy ``(.*)\\s+#NUMERIC_ONLY#``, trailing
    spaces kept, a later line overrides."""
    es = load_prefixes((PREFIX_DIR / "nonbreaking_prefix.es").read_text(encoding="utf-8"))
    assert "Fil " in es and "Fil" not in es
    en = load_prefixes((PREFIX_DIR / "nonbreaking_prefix.en").read_text(encoding="utf-8"))
    assert en["No"] == 2 and en["Mr"] == 1
    made = load_prefixes("0\n\n#x\nA  #NUMERIC_ONLY#\nB #NUMERIC_ONLY# #NUMERIC_ONLY#\nC\nC #NUMERIC_ONLY#\n#\n")
    assert made == {"A ": 2, "B #NUMERIC_ONLY#": 2, "C": 2}


def test_language_without_prefix_file_falls_back_as_tokenizer_perl():
    """tokenizer.perl -l xx: its warning, the English prefixes, and the code as given for its
    language rules (no en apostrophe rule: every apostrophe separated)."""
    xx = MosesTokenizer("xx")
    assert xx.warning == ("WARNING: No known abbreviations for language 'xx', attempting "
                          "fall-back to English version...")
    assert xx.prefixes == MosesTokenizer("en").prefixes
    assert xx.line("Mr. Smith's dog.") == "Mr. Smith &apos; s dog ."
    assert MosesTokenizer("en").line("Mr. Smith's dog.") == "Mr. Smith &apos;s dog ."
    assert MosesTokenizer("de").warning is None


@pytest.mark.parametrize("bad", ["EN", "e", "../x", "", "de-a", "d e", "englisch", 5])
def test_bad_language_is_refused_in_one_line(bad):
    with pytest.raises(ConfigError) as info:
        MosesTokenizer(bad)
    assert "\n" not in str(info.value) and "language" in str(info.value)


@pytest.mark.parametrize("name, language, aggressive", [
    ("moses", None, False), ("moses-a", None, True), ("moses-de", "de", False),
    ("moses-a-de", "de", True), ("moses-tdt", "tdt", False), ("moses-a-yue", "yue", True)])
def test_names(name, language, aggressive):
    parsed = parse_name(name)
    assert (parsed.language, parsed.aggressive) == (language, aggressive)
    assert is_moses(name)
    assert parsed.resolved("fr") == f"moses-{'a-' if aggressive else ''}{language or 'fr'}"


@pytest.mark.parametrize("name", ["moses-", "moses-DE", "moses-a-", "moses-aa-de", "moses-b",
                                  "moses-de-a", "moses-english"])
def test_bad_names(name):
    with pytest.raises(ConfigError):
        parse_name(name)


def test_lowercasing_comes_after_the_tokenizer():
    """tokenizer.perl has no -lc: a run's -lc lowercases its output (``Zz. Der`` keeps its
    period apart; lowercased first, ``zz. der`` would keep ``zz.`` whole)."""
    assert get_tokenizer("moses-de", lowercase=True)("Zz. Der Hund.") == ["zz", ".", "der",
                                                                         "hund", "."]
    assert MosesTokenizer("de").line("zz. der hund.") == "zz. der hund ."


def test_long_runs_of_periods_in_linear_time():
    """tokenizer.perl peels a run of periods one per pass over the line (quadratic); ours
    makes the same text in one pass unless the line names its placeholder."""
    line = "a" + "." * 200_000 + "b"
    assert MosesTokenizer("en").line(line) == "a " + "." * 200_000 + " b"
    assert MosesTokenizer("en").line("." * 100_000) == "." * 100_000


def test_whitespace_only_lines_are_printed_as_read():
    """``/^\\s*$/`` lines are printed untouched (Perl's \\s: NBSP and U+3000 too, not U+001C)."""
    tok = MosesTokenizer("en")
    for line in ("", " ", "\t", "\u00a0", "\u3000 \u2009"):
        assert tok.line(line) == line
    assert tok.line("\x1c") == ""
    assert tokenize_text("a\n\u00a0", tok) == "a\n\u00a0"
    assert tokenize_text("a\nb", tok) == "a\nb\n"


# ------------------------------------------------------------------ the Unicode classes


@pytest.mark.skipif(shutil.which("perl") is None, reason="no perl on PATH")
def test_tables_are_the_classes_perl_matches():
    """All 1,112,064 scalar values against the perl on PATH (when its Unicode version is the
    tables': another Perl's classes differ on the code points assigned since)."""
    uni = subprocess.run(["perl", "-MUnicode::UCD", "-e", "print Unicode::UCD::UnicodeVersion()"],
                         capture_output=True, text=True).stdout.strip()
    if uni != tables.UNICODE_VERSION:
        pytest.skip(f"perl's Unicode is {uni}, the tables' {tables.UNICODE_VERSION}")
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "make_moses_tables.py"),
                          "--check"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def _set(ranges):
    return {cp for a, b in ranges for cp in range(a, b + 1)}


@pytest.mark.skipif(unicodedata.unidata_version != "14.0.0",
                    reason="the comparison is stated for Unicode 14.0.0 (Python 3.11)")
def test_tables_against_python_unicodedata():
    """The gap docs/moses.md states: on Unicode 14.0.0 (Perl 5.36 and Python 3.11 alike),
    IsN, Ll, IsLower and \\s are Python's categories and predicates; IsAlpha (Unicode's
    Alphabetic, which Python lacks) is str.isalpha plus 1,640 code points; IsAlnum is
    IsAlpha plus Nd."""
    points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    cat = {cp: unicodedata.category(chr(cp)) for cp in points}
    assert _set(tables.NUMBER) == {cp for cp in points if cat[cp][0] == "N"}
    assert _set(tables.LL) == {cp for cp in points if cat[cp] == "Ll"}
    assert _set(tables.LOWER) == {cp for cp in points if chr(cp).islower()}
    assert _set(tables.SPACE) == {cp for cp in points if chr(cp).isspace()} - set(range(0x1C, 0x20))
    alpha = _set(tables.ALPHA)
    isalpha = {cp for cp in points if chr(cp).isalpha()}
    assert isalpha <= alpha and len(alpha - isalpha) == 1640
    assert {cat[cp] for cp in alpha - isalpha} == {"Mn", "Mc", "Nl", "So"}
    assert _set(tables.ALNUM) == alpha | {cp for cp in points if cat[cp] == "Nd"}


# ------------------------------------------------------------------ the user's tokenizer.perl


def _real_script() -> Path:
    from bleu_compat.libraries import tokenizer_perl

    path = tokenizer_perl.script_path()
    if path is None:
        pytest.skip(f"no tokenizer.perl: {tokenizer_perl.not_found_reason()}")
    return path


def test_real_script_on_the_crafted_corpus():
    """The user's tokenizer.perl (whatever release: judged, not trusted) on the crafted inputs
    of every configuration of the golden file."""
    from bleu_compat.libraries.tokenizer_perl import run_lines

    script = _real_script()
    data = _golden("golden-crafted.json.xz")
    seen = set()
    for run in data["runs"]:
        key = (run["input"], tuple(run["args"]))
        if key in seen or "-no-escape" in run["args"]:
            continue
        seen.add(key)
        tok = _tokenizer(run["args"])
        name = f"moses-{'a-' if tok.aggressive else ''}{tok.language}"
        inputs = [x for x in _inputs(data, run)]
        problem = _first_difference(inputs, [tok.line(x) for x in inputs],
                                    run_lines(script, inputs, name))
        assert problem is None, f"{run['name']}: {problem}"


_RISKY = (list(" \t\u00a0\u2009\u3000\x1c\x01\x7f") + list(".,'`-:;!?\"&|<>[]()/@#$%") + list("aZ09ßÉéİıǅª")
          + list("٣５²½Ⅻⓐ\u0301\u093f\u0960·Â") + ["DOTMULTI", "Mr", "No", "U.S", "e.g"])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_RISKY), max_size=14).map("".join), min_size=1,
                max_size=40),
       st.sampled_from(["moses-en", "moses-a-en", "moses-fr", "moses-fi", "moses-ca", "moses-de",
                        "moses-tdt", "moses-xx"]))
def test_real_script_on_generated_text(lines, name):
    """Hypothesis lines of the characters and words the rules look at, one tokenizer.perl run
    per example."""
    from bleu_compat.libraries.tokenizer_perl import run_lines

    script = _real_script()
    lines = [x.replace("\n", " ") for x in lines]
    tok = tokenizer_for(name)
    problem = _first_difference(lines, [tok.line(x) for x in lines], run_lines(script, lines, name))
    assert problem is None, f"{name}: {problem}"


def test_real_script_on_every_shared_real_file(shared_dir):
    """Every file of ../shared/real (WMT17/21/22: en, de, zh, ...) under the -l of its
    language, with and without -a, through the run-time check score --compare uses."""
    from bleu_compat.libraries.tokenizer_perl import check_tokens

    script = _real_script()
    for path in sorted((shared_dir / "real").rglob("*.txt")):
        pair = path.parent.name
        lang = pair.split("-")[1] if "-" in pair else "en"
        if lang not in LANGUAGES:
            lang = "en"
        lines = path.read_text(encoding="utf-8").split("\n")[:-1]
        for name in (f"moses-{lang}", f"moses-a-{lang}"):
            found = check_tokens([(str(path), lines)], name, script)
            assert found is None, found.message()


# ------------------------------------------------------------------ the command line


def _cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "BLEU_COMPAT_MOSES_SCRIPTS"}
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], capture_output=True,
                          text=True, env=full, cwd=cwd)


@pytest.fixture()
def small(tmp_path):
    """Three lines in German, a hypothesis and a reference."""
    ref = tmp_path / "ref.txt"
    hyp = tmp_path / "hyp.txt"
    ref.write_text("Der Hund, der bellt.\nDr. Müller kam um 5 Uhr.\nEr sagte: \"Nein.\"\n",
                   encoding="utf-8")
    hyp.write_text("Der Hund bellt.\nDr. Müller kam um 5 Uhr an.\nEr sagte \"nein\".\n",
                   encoding="utf-8")
    return ref, hyp


def test_segments_hold_the_moses_tokens_lowercased_after(small, tmp_path):
    """--segments: the tokens counted are tokenizer.perl's output (escaped), then -lc."""
    ref, hyp = small
    out = tmp_path / "seg.jsonl"
    run = _cli("score", str(ref), "-i", str(hyp), "-l", "en-de", "-tok", "moses", "-lc",
               "--segments", str(out), "-q")
    assert run.returncode == 0, run.stderr
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    de = MosesTokenizer("de")
    assert rows[2]["hyp_tokens"] == de.line("Er sagte \"nein\".").lower().split()
    assert rows[2]["ref_tokens"] == [de.line("Er sagte: \"Nein.\"").lower().split()]
    assert "&quot;" in rows[2]["hyp_tokens"]


@pytest.mark.parametrize("args, says", [
    (["-tok", "moses-Q"], "moses-LANG"),
    (["-tok", "moses", "-l", "en-DE"], "language 'DE'"),
    (["-tok", "moses", "-l", "en-de_AT"], "language 'de_AT'"),
    (["--compare", "nltk:tok=moses-german"], "moses-LANG"),
])
def test_bad_moses_requests_are_one_line_exit_2(small, args, says):
    ref, hyp = small
    run = _cli("score", str(ref), "-i", str(hyp), *args)
    assert run.returncode == 2 and says in run.stderr, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_language_without_prefixes_warns_as_tokenizer_perl(small):
    """-l en-xx: tokenizer.perl's own warning, the English prefixes, a number (exit 0)."""
    ref, hyp = small
    run = _cli("score", str(ref), "-i", str(hyp), "-l", "en-xx", "-tok", "moses", "-b")
    assert run.returncode == 0
    assert ("WARNING: No known abbreviations for language 'xx', attempting fall-back to English "
            "version...") in run.stderr
    plain = _cli("score", str(ref), "-i", str(hyp), "-tok", "moses", "-b")
    assert "no -l SRC-TRG given" in plain.stderr  # en, tokenizer.perl's default, said


@pytest.mark.skipif(shutil.which("perl") is None, reason="no perl on PATH")
def test_a_tokenizer_perl_that_differs_is_unexpected(small, tmp_path):
    """The run-time check: a tokenizer.perl that tokenizes otherwise (here: it lowercases)
    makes --compare UNEXPECTED (exit 1), naming the file's first differing line."""
    ref, hyp = small
    fake = tmp_path / "scripts"
    fake.mkdir()
    (fake / "tokenizer.perl").write_text(
        "binmode(STDIN, ':utf8'); binmode(STDOUT, ':utf8');\n"
        "while (<STDIN>) { print lc($_); }\n", encoding="utf-8")
    # an unknown tokenizer.perl runs only with both opt-ins (issue 35): without them it is
    # not run, and the output says the tokens were not checked and why
    refused = _cli("score", str(ref), "-i", str(hyp), "-l", "en-de", "--compare",
                   "sacrebleu:tok=moses", env={"BLEU_COMPAT_MOSES_SCRIPTS": str(fake)})
    assert refused.returncode == 0, refused.stderr
    assert "not checked against the real tokenizer.perl" in refused.stdout
    assert "--allow-unknown-code" in refused.stdout
    run = _cli("score", str(ref), "-i", str(hyp), "-l", "en-de", "--compare",
               "sacrebleu:tok=moses", "--allow-unknown-code",
               env={"BLEU_COMPAT_MOSES_SCRIPTS": str(fake), "BLEU_COMPAT_ALLOW_UNKNOWN_CODE": "1"})
    assert run.returncode == 1, run.stderr
    assert "UNEXPECTED tokenizer.perl unknown-" in run.stdout
    assert "on line 1 of" in run.stdout and "differs (UNEXPECTED, below)" in run.stdout


def test_independent_check_of_a_moses_decomposition(small):
    """The judge of decompositions (harness.decomposition_check) runs each configuration
    itself (the libraries on tokenizer.perl's output, the card on its tokens, -lc after)
    and recomputes every step: no failed check, lowercased configurations included."""
    from bleu_compat.decompose import compare, parse_config
    from bleu_compat.harness.decomposition_check import check_compare

    ref, hyp = small
    configs = [parse_config(s) for s in ("sacrebleu", "sacrebleu:tok=moses-de,lc=yes",
                                         "card:tok=moses-a-de,lc=yes,smooth=method1",
                                         "nltk:tok=moses-de")]
    result = compare(str(hyp), [str(ref)], configs)
    assert not result.unexpected
    checked, failures = check_compare(result, str(hyp), [str(ref)], configs)
    assert checked == 6 and failures == [], failures
