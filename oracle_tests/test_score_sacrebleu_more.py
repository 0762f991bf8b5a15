"""The rest of sacreBLEU's BLEU command line (issue 34), byte for byte against the real command.

``-m bleu``, ``-ci``/``-cin``, ``--paired-bs``/``--paired-bs-n``,
``--paired-ar``/``--paired-ar-n`` (sacreBLEU's seeds and ``SACREBLEU_SEED``, its
resampling, its tables), ``-sl``, ``-d``, ``-nr``, ``-e``, ``score --version``,
and the system on standard input (``REF1 REF2 < SYS``, tab-separated systems,
universal newlines). The expected bytes come from the installed ``sacrebleu``
command (release 2.6.0), run on the bundled real corpora (fixtures/real: WMT17
uedin-nmt; WMT21 en-de with three references, whose references C and D serve as
two more systems for the paired tests) and, when present, the shared WMT17
en-de systems (../shared/real). The one difference allowed is bleu-compat's
name after sacreBLEU's release in the signature (``|bleu-compat:VERSION``, the
JSON key ``"bleu-compat"``), removed before comparing.
"""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

import bleu_compat
from bleu_compat.cli import main
from bleu_compat.cli.score.sacrebleu_form import SACREBLEU_RELEASE

pytestmark = pytest.mark.xdist_group("test_score_sacrebleu_more")

sacrebleu = pytest.importorskip("sacrebleu")

from test_score_sacrebleu_cli import _real_sacrebleu, _without_our_name  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "fixtures" / "real"
WMT17 = REAL / "wmt17-en-de-uedin-nmt"
WMT21 = REAL / "wmt21-en-de-facebook-ai"
SHARED17 = ROOT.parent / "shared" / "real" / "wmt17" / "en-de"
V = bleu_compat.__version__

W17 = [str(WMT17 / "ref.A.txt"), "-i", str(WMT17 / "sys.uedin-nmt.4722.txt")]
#: three systems on WMT21 en-de (reference A): Facebook-AI, and references C and D as systems
W21_THREE = [str(WMT21 / "ref.A.txt"), "-i", str(WMT21 / "sys.Facebook-AI.txt"),
             str(WMT21 / "ref.C.txt"), str(WMT21 / "ref.D.txt")]

#: (name, argv, environment): every command line compared
CASES: list[tuple[str, list[str], dict[str, str]]] = [
    ("m-bleu", [*W17, "-m", "bleu"], {}),
    ("m-bleu-text", [*W17, "-m", "bleu", "-f", "text"], {}),
    ("ci-text", [*W17, "--confidence", "-cin", "50", "-f", "text"], {}),
    ("ci-json", [*W17, "-ci", "-cin", "50"], {}),
    ("ci-b", [*W17, "-ci", "-cin", "40", "-b", "-w", "3"], {}),
    ("ci-1", [*W17, "-ci", "-cin", "1", "-f", "text"], {}),
    ("ci-seed", [*W17, "-ci", "-cin", "30", "-f", "text", "-s", "floor", "-lc"],
     {"SACREBLEU_SEED": "0012"}),
    ("ci-3refs", [str(WMT21 / "ref.A.txt"), str(WMT21 / "ref.C.txt"), str(WMT21 / "ref.D.txt"),
                  "-i", str(WMT21 / "sys.Facebook-AI.txt"), "-ci", "-cin", "30", "-f", "text",
                  "-sh"], {}),
    ("sl-b", [*W17, "-sl", "-b"], {}),
    ("sl-text", [str(WMT21 / "ref.A.txt"), str(WMT21 / "ref.C.txt"), "-i",
                 str(WMT21 / "sys.Facebook-AI.txt"), "-sl", "-w", "3", "-s", "add-k", "-sh"], {}),
    ("d", [*W17, "-d"], {}),
    ("d-text", [*W17, "-d", "-f", "text"], {}),
    ("d-several", [*W21_THREE, "-d"], {}),
    ("pbs-text", [*W21_THREE, "--paired-bs", "--paired-bs-n", "100"], {}),
    ("pbs-json", [*W21_THREE, "--paired-bs", "--paired-bs-n", "100", "-f", "json"], {}),
    ("pbs-latex", [*W21_THREE, "-pbs", "-pbsn", "60", "-f", "latex", "-w", "2"], {}),
    ("par-text", [*W21_THREE, "--paired-ar", "--paired-ar-n", "100"], {}),
    ("par-json", [*W21_THREE, "--paired-ar", "--paired-ar-n", "100", "-f", "json"], {}),
    ("par-seed", [*W21_THREE, "-par", "-parn", "80", "-s", "add-k", "-sv", "0.5", "-sh"],
     {"SACREBLEU_SEED": "7"}),
    ("pbs-baseline-twice", [*W21_THREE, str(WMT21 / "sys.Facebook-AI.txt"), "-pbs", "-pbsn",
                            "50"], {}),
    ("pbs-j", [*W21_THREE, "-pbs", "-pbsn", "50", "-j", "2"], {}),
]
if SHARED17.is_dir():
    CASES += [
        ("wmt17-3-pbs", [str(SHARED17 / "ref.A.txt"), "-i",
                         *(str(SHARED17 / f"sys.{s}.txt") for s in
                           ("uedin-nmt.4722", "online-A.0", "PROMT-Rule-based.4735")),
                         "--paired-bs", "--paired-bs-n", "100"], {}),
        ("wmt17-3-par", [str(SHARED17 / "ref.A.txt"), "-i",
                         *(str(SHARED17 / f"sys.{s}.txt") for s in
                           ("uedin-nmt.4722", "online-A.0", "PROMT-Rule-based.4735")),
                         "--paired-ar", "--paired-ar-n", "100"], {}),
    ]


@pytest.fixture(scope="module")
def encoded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """WMT17's reference and system in Latin-1 and UTF-16, and WMT21's references A and C as
    one tab-separated file (for -nr 2)."""
    d = tmp_path_factory.mktemp("encoded")
    out = {}
    for name, path in (("ref", WMT17 / "ref.A.txt"), ("sys", WMT17 / "sys.uedin-nmt.4722.txt")):
        text = path.read_text(encoding="utf-8")
        for enc in ("latin-1", "utf-16"):
            target = d / f"{name}.{enc}"
            target.write_bytes(text.encode(enc, errors="replace"))
            out[f"{name}.{enc}"] = str(target)
    a = (WMT21 / "ref.A.txt").read_text(encoding="utf-8").splitlines()
    c = (WMT21 / "ref.C.txt").read_text(encoding="utf-8").splitlines()
    (d / "ac.tsv").write_text("".join(f"{x}\t{y}\n" for x, y in zip(a, c)), encoding="utf-8")
    out["ac.tsv"] = str(d / "ac.tsv")
    return out


def _file_cases(encoded: dict[str, str]) -> list[tuple[str, list[str], dict[str, str]]]:
    return CASES + [
        ("e-latin1", [encoded["ref.latin-1"], "-i", encoded["sys.latin-1"], "-e", "latin-1",
                      "-f", "text"], {}),
        ("e-utf16", [encoded["ref.utf-16"], "-i", encoded["sys.utf-16"], "-e", "utf-16"], {}),
        ("nr-2", [encoded["ac.tsv"], "-nr", "2", "-i", str(WMT21 / "sys.Facebook-AI.txt"),
                  "-f", "text"], {}),
        ("nr-2-sl", [encoded["ac.tsv"], "-nr", "2", "-i", str(WMT21 / "sys.Facebook-AI.txt"),
                     "-sl", "-b"], {}),
    ]


@pytest.fixture(scope="module")
def real(encoded: dict[str, str]) -> dict[str, tuple[int, str]]:
    if sacrebleu.__version__ != SACREBLEU_RELEASE:
        pytest.skip(f"sacreBLEU {sacrebleu.__version__} installed; the command reproduces "
                    f"{SACREBLEU_RELEASE}")
    out: dict[str, tuple[int, str]] = {}
    cases = _file_cases(encoded)
    for env in sorted({json.dumps(e, sort_keys=True) for _, _, e in cases}):
        group = [(name, argv) for name, argv, e in cases if json.dumps(e, sort_keys=True) == env]
        saved = dict(os.environ)
        os.environ.update(json.loads(env))
        try:
            results = _real_sacrebleu([argv for _, argv in group])
        finally:
            os.environ.clear()
            os.environ.update(saved)
        out.update({name: result for (name, _), result in zip(group, results)})
    return out


def test_every_option_prints_sacrebleus_bytes(capsys, monkeypatch, encoded, real) -> None:
    """Each command line: same exit status 0 and the same standard output (our name aside)."""
    cases = _file_cases(encoded)
    assert len(real) == len(cases) >= 25
    differ = []
    for name, argv, env in cases:
        code_real, out_real = real[name]
        assert code_real == 0, (name, out_real)
        with monkeypatch.context() as m:
            for key, value in env.items():
                m.setenv(key, value)
            code = main(["score", *argv])
        out, _ = capsys.readouterr()
        if code != 0 or _without_our_name(out) != out_real:
            differ.append((name, code, out[:600], out_real[:600]))
    assert not differ, differ[:2]


# ------------------------------------------------------------ the system on standard input

def _sacrebleu_stdin(argv: list[str], data: bytes) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "sacrebleu", *argv], input=data,
                          capture_output=True, env=dict(os.environ, NO_COLOR="1"), timeout=300)
    return done.returncode, done.stdout.decode("utf-8")


def _ours_stdin(capsys, monkeypatch, argv: list[str], data: bytes) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _two_columns() -> bytes:
    a = (WMT21 / "sys.Facebook-AI.txt").read_text(encoding="utf-8").splitlines()
    c = (WMT21 / "ref.C.txt").read_text(encoding="utf-8").splitlines()
    return "".join(f"{x}\t{y}\n" for x, y in zip(a, c)).encode("utf-8")


STDIN_CASES = [
    # sacreBLEU's documented multi-reference form: both files are references (issue 34: it
    # was read as HYP REF and printed 36.18 where sacrebleu prints 62.4, on WMT23 he-en)
    ("refs-stdin-b", [str(WMT21 / "ref.A.txt"), str(WMT21 / "ref.C.txt"), "-b"],
     lambda: (WMT21 / "sys.Facebook-AI.txt").read_bytes()),
    ("refs-stdin-json", [str(WMT21 / "ref.A.txt"), str(WMT21 / "ref.C.txt")],
     lambda: (WMT21 / "sys.Facebook-AI.txt").read_bytes()),
    ("one-ref-stdin", [str(WMT17 / "ref.A.txt"), "-f", "text"],
     lambda: (WMT17 / "sys.uedin-nmt.4722.txt").read_bytes()),
    # tab-separated systems: System 1, System 2 (paired: Baseline, System 1)
    ("columns-text", [str(WMT21 / "ref.A.txt"), "-f", "text"], _two_columns),
    ("columns-json", [str(WMT21 / "ref.A.txt")], _two_columns),
    ("columns-pbs", [str(WMT21 / "ref.A.txt"), "--paired-bs", "-pbsn", "50"], _two_columns),
    # a lone CR ends a line on standard input (universal newlines), CRLF is one line end
    ("lone-cr", [str(REAL / "quirks" / "tab.ref.A.txt"), "-f", "text"],
     lambda: (REAL / "quirks" / "tab.sys.JDExploreAcademy.txt").read_bytes().replace(
         b"\n", b"\r\n")),
]


@pytest.mark.parametrize("name, argv, data", STDIN_CASES, ids=[c[0] for c in STDIN_CASES])
def test_standard_input_as_sacrebleu_reads_it(capsys, monkeypatch, name, argv, data) -> None:
    if sacrebleu.__version__ != SACREBLEU_RELEASE:
        pytest.skip(f"sacreBLEU {sacrebleu.__version__} installed")
    payload = data()
    code_real, out_real = _sacrebleu_stdin(argv, payload)
    assert code_real == 0, out_real
    code, out, err = _ours_stdin(capsys, monkeypatch, argv, payload)
    assert code == 0, err
    assert _without_our_name(out) == out_real


def test_the_wmt21_multi_reference_number(capsys, monkeypatch) -> None:
    """REF1 REF2 < SYS: the score of SYS against both references, not of REF1 against REF2."""
    argv = [str(WMT21 / "ref.A.txt"), str(WMT21 / "ref.C.txt"), "-b"]
    code, out, _ = _ours_stdin(capsys, monkeypatch, argv,
                               (WMT21 / "sys.Facebook-AI.txt").read_bytes())
    hyps = (WMT21 / "sys.Facebook-AI.txt").read_text(encoding="utf-8").splitlines()
    refs = [(WMT21 / f"ref.{k}.txt").read_text(encoding="utf-8").splitlines() for k in "AC"]
    assert code == 0 and out == f"{sacrebleu.corpus_bleu(hyps, refs).score:.1f}\n"


def test_a_tab_count_that_changes_is_one_line(capsys, monkeypatch) -> None:
    """sacreBLEU stops with 'FATAL: the number of tab-delimited fields in the input stream
    differ across lines' (exit 17); here one line naming the line, exit 2."""
    code, out, err = _ours_stdin(capsys, monkeypatch, [str(WMT17 / "ref.A.txt")],
                                 b"a\tb\nc\n")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "-: line 2 has 1 tab-separated field where line 1 has 2" in err


def test_an_empty_standard_input_is_one_empty_line(capsys, monkeypatch, tmp_path) -> None:
    """sacreBLEU's readline() gives '' for an empty standard input: one empty segment."""
    ref = tmp_path / "one.txt"
    ref.write_text("a small cat\n", encoding="utf-8")
    code_real, out_real = _sacrebleu_stdin([str(ref), "-f", "text"], b"")
    code, out, err = _ours_stdin(capsys, monkeypatch, [str(ref), "-f", "text"], b"")
    assert code_real == code == 0
    assert _without_our_name(out) == out_real and "standard input is empty" in err


# ------------------------------------------------- the old spelling, `score HYP REF`

def _run_with_terminal(argv: list[str]) -> subprocess.CompletedProcess:
    leader, follower = pty.openpty()
    try:
        return subprocess.run([sys.executable, "-m", "bleu_compat", "score", *argv],
                              stdin=follower, capture_output=True, text=True, timeout=120)
    finally:
        os.close(leader)
        os.close(follower)


def test_hyp_ref_with_a_terminal_names_card_score() -> None:
    """`score HYP REF` typed at a terminal: sacreBLEU would wait for the system to be typed;
    here one line says so and names card-score, exit 2, nothing on standard output."""
    done = _run_with_terminal([str(WMT17 / "sys.uedin-nmt.4722.txt"), str(WMT17 / "ref.A.txt")])
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1
    assert "the 2 files are references, as in sacreBLEU" in done.stderr
    assert "standard input, which is a terminal" in done.stderr
    assert "`bleu-compat card-score HYP REF`" in done.stderr


def test_one_file_with_a_terminal_is_one_line() -> None:
    done = _run_with_terminal([str(WMT17 / "ref.A.txt")])
    assert (done.returncode, done.stdout) == (2, "") and done.stderr.count("\n") == 1
    assert "which is a terminal" in done.stderr and "card-score" not in done.stderr


@pytest.mark.parametrize("stdin", ["devnull", "short"])
def test_hyp_ref_in_a_script_is_an_error_naming_card_score(stdin: str, tmp_path) -> None:
    """`score HYP REF` in a script (standard input empty or of another length): an error
    naming card-score, never a number."""
    source = subprocess.DEVNULL if stdin == "devnull" else open(
        WMT21 / "sys.Facebook-AI.txt", "rb")
    try:
        done = subprocess.run([sys.executable, "-m", "bleu_compat", "score",
                               str(WMT17 / "sys.uedin-nmt.4722.txt"), str(WMT17 / "ref.A.txt")],
                              stdin=source, capture_output=True, text=True, timeout=120)
    finally:
        if source is not subprocess.DEVNULL:
            source.close()
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "line counts differ" in done.stderr
    assert "`bleu-compat card-score HYP REF`" in done.stderr.splitlines()[-1]


def test_card_score_is_the_former_form() -> None:
    """card-score HYP REF prints what `score HYP REF` printed: multi-bleu.perl's line."""
    nltk = REAL / "nltk-wmt15-100"
    done = subprocess.run([sys.executable, "-m", "bleu_compat", "card-score",
                           str(nltk / "sys.google.tok.txt"), str(nltk / "ref.A.tok.txt")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    # the published multi-bleu.perl line (fixtures/real/nltk-wmt15-100/README.nltk_data.txt)
    assert done.stdout.splitlines()[0] == ("BLEU = 23.17, 53.8/29.6/17.6/10.3 (BP=1.000, "
                                           "ratio=1.074, hyp_len=1989, ref_len=1852)")


def test_version_is_sacrebleus_with_ours() -> None:
    real = subprocess.run([sys.executable, "-m", "sacrebleu", "--version"], capture_output=True,
                          text=True, timeout=120)
    ours = subprocess.run([sys.executable, "-m", "bleu_compat", "score", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert ours.returncode == 0
    assert ours.stdout == f"sacrebleu {SACREBLEU_RELEASE}|bleu-compat:{V}\n"
    # `python -m sacrebleu` names its __main__.py as the program; the version is the release
    assert real.stdout.split()[-1] == SACREBLEU_RELEASE


@pytest.mark.parametrize("argv, words", [
    (["-m", "chrf"], "-m/--metrics chrf: bleu-compat computes BLEU only"),
    (["-sl", "-ci"], "statistical tests are unavailable in sentence-level mode"),
    (["-ci", "-i", str(WMT17 / "ref.A.txt")], "-i given twice"),
    (["--paired-ar"], "paired tests require multiple input systems"),
    (["-t", "wmt17"], "downloads nothing"),
    (["--echo", "src"], "--echo: sacreBLEU's option is not supported here: test sets"),
    (["-nr", "2", str(WMT17 / "ref.A.txt")], "give one reference file with it"),
    (["-ci", "--compare"], "-ci/--confidence prints sacreBLEU's output"),
    (["-sl", "-f", "table"], "-sl/--sentence-level prints sacreBLEU's output"),
])
def test_refusals_are_one_line(capsys, argv: list[str], words: str) -> None:
    code = main(["score", *W17, *argv])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "") and err.count("\n") == 1 and words in err, err


def test_a_seed_that_is_no_number_is_one_line(capsys, monkeypatch) -> None:
    monkeypatch.setenv("SACREBLEU_SEED", "abc")
    code = main(["score", *W17, "-ci", "-cin", "10"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "") and "SACREBLEU_SEED='abc'" in err and err.count("\n") == 1


def test_script_counts_are_the_regular_expressions_on_every_code_point() -> None:
    """The script check's counts (issue 34: one C pass, script_counts) equal re's counts of
    [^\\W\\d_] and of each script's class, block by block of 256 code points over all of
    Unicode (surrogates aside: a str read from UTF-8 holds none)."""
    from bleu_compat.cli.score import script_check
    from bleu_compat.tokenizers.block import kernel

    if kernel() is None:
        pytest.skip("the C kernel is not built here")
    for start in range(0, 0x110000, 256):
        text = "".join(chr(c) for c in range(start, start + 256) if not 0xD800 <= c <= 0xDFFF)
        if text.isascii():
            continue
        assert script_check.counts(text) == script_check.counts(text, use_kernel=False), hex(start)
    mixed = "Der Hund 犬 いぬ 개 ½ Ⅻ ٣ _ 42"
    assert script_check.counts(mixed) == script_check.counts(mixed, use_kernel=False)


def test_the_stream_block_bound_is_the_statistics_one() -> None:
    from bleu_compat import stats, stream

    assert stream._BLOCK_SEGMENTS == stats._BLOCK_SEGMENTS


def test_a_checkout_without_the_kernel_says_so(tmp_path) -> None:
    """`python -m bleu_compat` from a checkout's root whose kernel is not built (the source
    tree shadows the installed package): the run says it takes the pure-Python path, and its
    numbers are the same."""
    import shutil

    tree = tmp_path / "checkout"
    shutil.copytree(ROOT / "bleu_compat", tree / "bleu_compat",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    # -S: no site-packages, so no installed (or editable) bleu-compat to find the kernel in:
    # the package is the directory's, as in a checkout's root (this run imports nothing else)
    argv = [sys.executable, "-S", "-m", "bleu_compat", "score", *W17, "-b"]
    env = {k: v for k, v in os.environ.items() if k != "BLEU_COMPAT_PURE_PYTHON"}
    bare = subprocess.run(argv, cwd=tree, capture_output=True, text=True, timeout=300, env=env)
    built = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert bare.returncode == built.returncode == 0, bare.stderr
    assert bare.stdout == built.stdout == "28.3\n"
    assert "the C kernel is not built in" in bare.stderr and "pure-Python" in bare.stderr
    assert "C kernel" not in built.stderr
    quiet = subprocess.run([*argv, "-q"], cwd=tree, capture_output=True, text=True, timeout=300,
                           env=env)
    assert quiet.stderr == ""


@pytest.mark.parametrize("argv, words", [
    (["-e", "latin-1", "--compare"], "--compare runs the libraries on the files as UTF-8"),
    (["-nr", "2", "--compare"], "--compare runs the libraries on one file per reference"),
])
def test_what_compare_cannot_read_is_refused(capsys, argv: list[str], words: str) -> None:
    code = main(["score", *W17, *argv])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "") and err.count("\n") == 1 and words in err, err


def test_the_segmenter_names_are_the_segmenters_module_ones() -> None:
    """releases.SEGMENTERS (names only, so that a start-up does not import the segmenters)
    is segmenters.SEGMENTERS."""
    from bleu_compat import tokenizers
    from bleu_compat.tokenizers import releases, segmenters

    assert tokenizers.SEGMENTERS == releases.SEGMENTERS == segmenters.SEGMENTERS
