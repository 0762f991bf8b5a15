"""``score REF -i SYS`` prints what the real ``sacrebleu`` command prints, byte for byte.

The expected bytes come from the real implementation: the installed
``sacrebleu`` command (its ``main()``, run in one separate process for every
command line below, so that it is imported once), on every bundled corpus
(fixtures/real) and on a two-line corpus, over the option combinations
listed in docs/score.md. The one difference allowed is the one the command
documents: the signature names bleu-compat after sacreBLEU's release
(``|bleu-compat:VERSION``, and the JSON key ``"bleu-compat"``), which is
removed before comparing. The comparison runs only when the installed
sacreBLEU is the release the command reproduces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import bleu_compat
from bleu_compat.cli import main
from bleu_compat.cli.score.sacrebleu_form import SACREBLEU_RELEASE, sacrebleu_bleu

# pytest-xdist: one worker runs this module (the real sacreBLEU outputs are computed once)
pytestmark = pytest.mark.xdist_group("test_score_sacrebleu_cli")

sacrebleu = pytest.importorskip("sacrebleu")

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
WMT17 = REAL / "wmt17-en-de-uedin-nmt"
WMT21 = REAL / "wmt21-en-de-facebook-ai"
NLTK = REAL / "nltk-wmt15-100"
QUIRKS = REAL / "quirks"

#: a two-line corpus with no 4-gram match: sacreBLEU prints 18.0 (exp smoothing),
#: the card's unsmoothed BLEU is 0 (issue 23)
TWO_HYP = "in the dog cat the a cat\na garden cat sat mat\n"
TWO_REF = "a is in a dog\non in dog cat a garden cat\n"

#: (name, references, systems): every bundled corpus
CORPORA = [
    ("wmt17", [WMT17 / "ref.A.txt"], [WMT17 / "sys.uedin-nmt.4722.txt"]),
    ("wmt21-3refs", [WMT21 / "ref.A.txt", WMT21 / "ref.C.txt", WMT21 / "ref.D.txt"],
     [WMT21 / "sys.Facebook-AI.txt"]),
    ("nltk-wmt15", [NLTK / "ref.A.txt"], [NLTK / "sys.google.tok.txt"]),
    ("nltk-wmt15-tok", [NLTK / "ref.A.tok.txt"], [NLTK / "sys.google.tok.txt"]),
    ("bom", [QUIRKS / "bom.ref.A.txt"], [QUIRKS / "bom.sys.online-A.txt"]),
    ("empty-2refs", [QUIRKS / "empty.ref.A.txt", QUIRKS / "empty.ref.B.txt"],
     [QUIRKS / "empty.sys.Online-W.txt"]),
    ("tab-2refs", [QUIRKS / "tab.ref.A.txt", QUIRKS / "tab.ref.B.txt"],
     [QUIRKS / "tab.sys.JDExploreAcademy.txt"]),
    ("nbsp", [QUIRKS / "nbsp.ref.A.txt"], [QUIRKS / "nbsp.sys.Facebook-AI.txt"]),
    ("zwsp-zh", [QUIRKS / "zwsp.ref.A.zh.txt"], [QUIRKS / "zwsp.sys.Online-B.txt"]),
    ("zwsp-tok", [QUIRKS / "zwsp.ref.A.tok.txt"], [QUIRKS / "zwsp.sys.google.tok.txt"]),
]
SMALL = [c for c in CORPORA if c[0] not in ("wmt17", "wmt21-3refs")]

#: every option combination run on every small corpus (docs/score.md lists them)
OPTIONS = [
    [], ["-b"], ["-f", "text"], ["-f", "text", "-sh"], ["-f", "latex"], ["-w", "0"],
    ["-w", "17"], ["-b", "-w", "4"], ["-lc"], ["-tok", "none"], ["-tok", "intl"],
    ["-tok", "char"], ["-tok", "zh"], ["-l", "en-zh"], ["-l", "en-de"], ["-s", "none"],
    ["-s", "floor"], ["-s", "floor", "-sv", "0.3"], ["-s", "add-k"], ["-s", "add-k", "-sv", "2"],
    ["-s", "add-k", "-sv", "0.5", "-w", "17"], ["-lc", "-tok", "intl", "-s", "floor", "-f", "text"],
]
#: the options run on the two large corpora (a subset: each run tokenizes thousands of lines)
LARGE_OPTIONS = [[], ["-f", "text"], ["-w", "17"], ["-lc", "-tok", "intl"], ["-s", "none", "-b"]]
#: several systems at once (the corpus's system and its first reference as a second system)
SEVERAL_OPTIONS = [[], ["-f", "text"], ["-f", "latex"], ["-f", "text", "-sh", "-w", "3"],
                   ["-b"], ["-s", "floor", "-sv", "0.2", "-f", "text"]]

#: runs sacreBLEU's main() once per command line in one process; main() opens new file objects
#: on fds 0 and 1 each time, which are kept (their collection would close the fds) and never
#: finalised (os._exit)
_DRIVER = textwrap.dedent("""
    import json, os, sys, tempfile
    os.environ["NO_COLOR"] = "1"
    from sacrebleu.sacrebleu import main
    command_lines = json.load(sys.stdin)
    out, keep = [], []
    for argv in command_lines:
        sys.argv = ["sacrebleu", *argv]
        saved = os.dup(1)
        with tempfile.TemporaryFile() as capture:
            os.dup2(capture.fileno(), 1)
            code = 0
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            sys.stdout.flush()
            keep += [sys.stdout, sys.stdin]
            os.dup2(saved, 1)
            os.close(saved)
            capture.seek(0)
            out.append([code, capture.read().decode("utf-8")])
    sys.__stderr__.write("\\n" + json.dumps(out))
    sys.__stderr__.flush()
    os._exit(0)
""")


def _real_sacrebleu(command_lines: list[list[str]]) -> list[tuple[int, str]]:
    """What the installed ``sacrebleu`` prints on stdout for each command line (exit, text)."""
    env = dict(os.environ, NO_COLOR="1")
    done = subprocess.run([sys.executable, "-c", _DRIVER], input=json.dumps(command_lines),
                          capture_output=True, text=True, env=env, check=True, timeout=900)
    # the driver writes its JSON last on stderr, after sacreBLEU's own log lines
    tail = done.stderr[done.stderr.rindex("\n[["):] if "\n[[" in done.stderr else done.stderr
    return [tuple(x) for x in json.loads(tail)]  # type: ignore[misc]


def _ours(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    code = main(["score", *argv])
    out, _ = capsys.readouterr()
    return code, out


def _without_our_name(text: str) -> str:
    """Our output less the one documented difference: bleu-compat named after sacreBLEU's release."""
    v = bleu_compat.__version__
    return (text.replace(f"|bleu-compat:{v}", "")
            .replace(f',\n "bleu-compat": "{v}"', ""))


@pytest.fixture(scope="module")
def two_line(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    d = tmp_path_factory.mktemp("two")
    (d / "h.txt").write_text(TWO_HYP, encoding="utf-8")
    (d / "r.txt").write_text(TWO_REF, encoding="utf-8")
    return str(d / "r.txt"), str(d / "h.txt")


def _command_lines(two_line: tuple[str, str]) -> list[list[str]]:
    lines = []
    for name, refs, systems in CORPORA:
        options = OPTIONS if (name, refs, systems) in SMALL else LARGE_OPTIONS
        for opts in options:
            lines.append([*map(str, refs), "-i", *map(str, systems), *opts])
    for name, refs, systems in SMALL[:4]:
        for opts in SEVERAL_OPTIONS:
            lines.append([*map(str, refs), "-i", *map(str, systems), str(refs[0]), *opts])
    ref, hyp = two_line
    lines += [[ref, "-i", hyp, *opts] for opts in OPTIONS]
    return lines


@pytest.fixture(scope="module")
def real_outputs(two_line: tuple[str, str]) -> dict[str, tuple[int, str]]:
    if sacrebleu.__version__ != SACREBLEU_RELEASE:
        pytest.skip(f"sacreBLEU {sacrebleu.__version__} installed; the command reproduces "
                    f"{SACREBLEU_RELEASE}")
    lines = _command_lines(two_line)
    return {json.dumps(argv): out for argv, out in zip(lines, _real_sacrebleu(lines))}


def test_every_command_line_prints_sacrebleus_bytes(capsys, two_line, real_outputs) -> None:
    """Every command line of the list: same exit status 0, same stdout (our name aside)."""
    lines = _command_lines(two_line)
    assert len(lines) == len(real_outputs) >= 200
    differ = []
    for argv in lines:
        real_code, real_out = real_outputs[json.dumps(argv)]
        assert real_code == 0, (argv, real_out)
        code, out = _ours(capsys, argv)
        if code != 0 or _without_our_name(out) != real_out:
            differ.append((argv, out, real_out))
    assert not differ, differ[:3]


def test_the_two_line_corpus_prints_18_0(capsys, two_line) -> None:
    """Issue 23: sacreBLEU prints 18.0 (exp smoothing, one decimal); so does score -b."""
    ref, hyp = two_line
    assert _ours(capsys, [ref, "-i", hyp, "-b"]) == (0, "18.0\n")
    real = sacrebleu.corpus_bleu(TWO_HYP.splitlines(), [TWO_REF.splitlines()])
    assert f"{real.score:.1f}" == "18.0" and real.counts[3] == 0


def test_standard_input_is_the_system(capsys, two_line, monkeypatch) -> None:
    """``score REF < SYS`` (one file, no -i): the system comes from standard input, as sacreBLEU."""
    ref, hyp = two_line
    done = subprocess.run([sys.executable, "-m", "bleu_compat", "score", ref, "-b"],
                          stdin=open(hyp, "rb"), capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "18.0\n"), done.stderr
    piped = subprocess.run(f"cat {hyp} | {sys.executable} -m bleu_compat score {ref} -b",
                           shell=True, capture_output=True, text=True, timeout=120)
    assert (piped.returncode, piped.stdout) == (0, "18.0\n"), piped.stderr


@pytest.mark.parametrize("smooth,value,eff", [
    ("exp", None, True), ("exp", None, False), ("floor", None, False), ("floor", 0.3, True),
    ("add-k", None, False), ("add-k", 2.0, True), ("none", None, False), ("none", None, True),
])
def test_the_arithmetic_is_sacrebleus_compute_bleu(smooth, value, eff) -> None:
    """sacrebleu_bleu equals sacreBLEU's own BLEU.compute_bleu, bit for bit, on statistics of
    every shape (zero matches, zero totals, short hypotheses, brevity)."""
    from sacrebleu.metrics.bleu import BLEU

    cases = [([3, 1, 0, 0], [5, 4, 3, 2], 5, 7), ([3, 0, 0, 0], [3, 2, 1, 0], 3, 3),
             ([0, 0, 0, 0], [4, 3, 2, 1], 4, 9), ([9, 4, 1, 0], [12, 10, 8, 6], 12, 13),
             ([1, 0, 0, 0], [1, 0, 0, 0], 1, 5), ([40, 22, 11, 5], [50, 49, 48, 47], 50, 44),
             ([7, 3, 0], [8, 7, 6], 8, 8), ([2, 1, 1, 1, 0, 0], [6, 5, 4, 3, 2, 1], 6, 6)]
    for m, t, c, r in cases:
        real = BLEU.compute_bleu(list(m), list(t), c, r, smooth_method=smooth,
                                 smooth_value=value, effective_order=eff, max_ngram_order=len(m))
        ours = sacrebleu_bleu(m, t, c, r, smooth_method=smooth, smooth_value=value,
                              effective_order=eff)
        assert (ours.score, ours.precisions, ours.bp) == (real.score, real.precisions, real.bp)
