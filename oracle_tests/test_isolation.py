"""A user's implementation cannot take the run with it (issue 24, item 2).

Each ``--impl`` runs in a child process (:mod:`bleu_compat.isolation`). Measured before
on the landed main: ``sys.exit(0)`` or ``os._exit(0)`` in the callable made ``gate --impl``
exit 0 printing nothing; a loop ran forever; a print corrupted ``explain --format json``;
a callable returning a different wrong type on each call ended in ``internal error
(FlakyFailure ...)``, exit 3. Each of those, and its neighbours (a segmentation fault,
``sys.exit`` at import, a hang at import), is a finding of the implementation here: never
exit 0, never an internal error, our output never mixed with its.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = "bleu-corpus-compute"
REQUEST = json.dumps({"hypotheses": [["a", "b"]], "references": [[["a", "b"]]], "max_order": 2})

BAD = textwrap.dedent('''
    import ctypes, itertools, os, sys

    def _d(fn):
        fn.bleu_compat = {"signature": "tokens->score", "scale": "0-1"}
        return fn

    @_d
    def sysexit(h, r, max_order=4):
        sys.exit(0)

    @_d
    def osexit(h, r, max_order=4):
        os._exit(0)

    @_d
    def segfault(h, r, max_order=4):
        ctypes.string_at(0)

    @_d
    def hang(h, r, max_order=4):
        while True:
            pass

    @_d
    def chatty(h, r, max_order=4):
        print('{"not": "our output"}', flush=True)
        print("noise on stderr", file=sys.stderr, flush=True)
        return 1.0

    _kinds = itertools.cycle(["x", None, b"b", 1 + 2j, [1], {"a": 1}, True, object()])

    @_d
    def flaky_types(h, r, max_order=4):
        return next(_kinds)

    _calls = itertools.count()

    @_d
    def flaky_verdict(h, r, max_order=4):
        # right on even calls, wrong on odd ones: the same request gets two answers
        return 1.0 if next(_calls) % 2 else 0.5

    @_d
    def returns_bytes(h, r, max_order=4):
        return {"bleu": 1.0, "brevity_penalty": b"one"}
''')

EXIT_AT_IMPORT = "import sys\nsys.exit(0)\n"
HANG_AT_IMPORT = "while True:\n    pass\n"


@pytest.fixture(scope="module")
def impls(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("impls")
    (folder / "bad.py").write_text(BAD)
    (folder / "exit_at_import.py").write_text(EXIT_AT_IMPORT)
    (folder / "hang_at_import.py").write_text(HANG_AT_IMPORT)
    return folder


def _run(*args: str, stdin: str | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _baseline(tmp_path: Path) -> Path:
    path = tmp_path / "baseline.json"
    path.write_text((ROOT / "reports" / "baseline.json").read_text())
    return path


@pytest.mark.parametrize(("fn", "words"), [
    ("sysexit", "SystemExit: 0"),
    ("osexit", "its process exited with status 0"),
    ("segfault", "its process was killed by SIGSEGV"),
])
def test_explain_reports_an_exit_or_crash_as_the_implementation_s(impls: Path, fn: str, words: str) -> None:
    proc = _run("explain", CORPUS, "--impl", f"{impls}/bad.py:{fn}", "--format", "json", stdin=REQUEST)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [impl] = json.loads(proc.stdout)["implementations"]
    assert impl["verdict"] == "UNEXPECTED"
    [field] = impl["fields"]
    assert field["field"] == "error" and words in field["value"]
    assert "internal error" not in proc.stderr


@pytest.mark.parametrize("fn", ["sysexit", "osexit"])
def test_gate_never_passes_an_implementation_that_exits(impls: Path, tmp_path: Path, fn: str) -> None:
    proc = _run("gate", "--baseline", str(_baseline(tmp_path)), "--impl", f"{impls}/bad.py:{fn}",
                "--workers", "2", "--no-progress")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL" in proc.stdout and f"impl:{impls}/bad.py:{fn} | error | UNEXPECTED" in proc.stdout


def test_crosscheck_with_a_crashing_implementation_reports_it(impls: Path, tmp_path: Path) -> None:
    proc = _run("crosscheck", "--impl", f"{impls}/bad.py:segfault", "--cases", "10", "--no-real",
                "--workers", "2", "--no-progress", "--no-html", "--out", str(tmp_path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "crosscheck.json").read_text())
    assert report["summary"][CORPUS][f"impl:{impls}/bad.py:segfault"]["unexpected"] == 10
    assert {u["field"] for u in report["unexpected"]} == {"error"}


def test_a_crash_on_the_real_corpora_says_no_score_and_no_error_on_the_card_side(
        impls: Path, tmp_path: Path) -> None:
    """A crashed call on a real corpus: the summary's corpus line says "no score" (it was an
    empty "real NAME: "), the card's side of the ``error`` field is "no error" (it was
    "card None") in every format, and the Markdown table keeps the implementation's row."""
    spec = f"impl:{impls}/bad.py:osexit"
    proc = _run("crosscheck", "--impl", spec[len("impl:"):], "--cases", "2", "--workers", "2",
                "--no-progress", "--out", str(tmp_path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "crosscheck.json").read_text())
    names = [r["name"] for r in report["real"]]
    assert names and all(r["scores"][spec] is None for r in report["real"])
    for name in names:
        assert f"  real {name}: {spec} no score\n" in proc.stdout, proc.stdout
    assert f"{spec} error: card no error, got 'ImplementationCrashed: " in proc.stdout, proc.stdout
    assert "card None" not in proc.stdout
    md = (tmp_path / "crosscheck.md").read_text()
    assert md.count(f"| {spec} | no score (below) | |") == len(names), md
    assert f"`error` no error → ImplementationCrashed: " in md
    assert "card value no error, implementation value ImplementationCrashed: " in md
    junit = (tmp_path / "crosscheck.junit.xml").read_text()
    assert "error: card no error, got 'ImplementationCrashed: " in junit
    if (tmp_path / "crosscheck.html").exists():  # with the html extra
        html = (tmp_path / "crosscheck.html").read_text()
        assert "card no error" in html and "card None" not in html


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("tool, request_text, words", [
    # the callable answers bleu-corpus-compute only: nothing of this card is judged
    ("bleu-brevity-penalty", '{"segments":[{"candidate_length":12,"reference_lengths":[28,28]}]}',
     "bleu-brevity-penalty: the --impl implementations answer only bleu-corpus-compute"),
    # the right card, but a request the callable cannot take (it has no max_order)
    (CORPUS, REQUEST, "nothing was judged: the request is not representable for the --impl "
     "implementations"),
])
def test_explain_that_judged_nothing_never_exits_0(impls: Path, tmp_path: Path, fmt: str, tool: str,
                                                    request_text: str, words: str) -> None:
    """`explain --impl` where no implementation was run on the request: exit 2 with the
    reason (it printed "not representable" and exited 0, as a pass would)."""
    (tmp_path / "nomax.py").write_text(
        "def bleu(hypotheses, references):\n    return 1.0\n"
        "bleu.bleu_compat = {'signature': 'tokens->score', 'scale': '0-1'}\n")
    proc = _run("explain", tool, "--impl", f"{tmp_path}/nomax.py:bleu", "--format", fmt,
                stdin=request_text)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    if fmt == "json":
        error = json.loads(proc.stdout)["error"]
        assert error["code"] == "usage_error" and words in error["message"], proc.stdout
    else:
        assert proc.stdout == "" and words in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_explain_with_one_implementation_that_answers_still_judges(impls: Path, tmp_path: Path) -> None:
    """The neighbour: one --impl not representable beside one that answers is a judged run."""
    (tmp_path / "nomax.py").write_text(
        "def bleu(hypotheses, references):\n    return 1.0\n"
        "bleu.bleu_compat = {'signature': 'tokens->score', 'scale': '0-1'}\n")
    proc = _run("explain", CORPUS, "--impl", f"{tmp_path}/nomax.py:bleu", "--impl",
                f"{impls}/bad.py:chatty", "--format", "json", stdin=REQUEST)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    verdicts = [i["verdict"] for i in json.loads(proc.stdout)["implementations"]]
    assert sorted(verdicts) == ["identical", "not representable"], verdicts


def test_printing_never_reaches_our_output(impls: Path) -> None:
    proc = _run("explain", CORPUS, "--impl", f"{impls}/bad.py:chatty", "--format", "json", stdin=REQUEST)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)  # the whole of standard output is our JSON
    assert doc["implementations"][0]["verdict"] == "identical"
    assert "not our output" not in proc.stdout and "noise on stderr" not in proc.stderr


@pytest.mark.parametrize("command", ["explain", "gate", "crosscheck"])
def test_a_hang_is_stopped_and_never_passes(impls: Path, tmp_path: Path, command: str) -> None:
    spec = f"{impls}/bad.py:hang"
    args = {"explain": ["explain", CORPUS, "--impl", spec],
            "gate": ["gate", "--baseline", str(_baseline(tmp_path)), "--impl", spec, "--workers", "2"],
            "crosscheck": ["crosscheck", "--impl", spec, "--cases", "50", "--workers", "2",
                           "--no-progress", "--out", str(tmp_path / "out")]}[command]
    started = time.monotonic()
    proc = _run(*args, "--impl-timeout", "1", stdin=REQUEST, timeout=300)
    took = time.monotonic() - started
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "did not answer within 1 s" in lines[0], proc.stderr
    assert took < 60, took  # one timeout, not one per case
    assert not (tmp_path / "out" / "crosscheck.json").exists()


def test_the_timeout_is_an_option_with_a_range(impls: Path) -> None:
    proc = _run("explain", CORPUS, "--impl", f"{impls}/bad.py:chatty", "--impl-timeout", "0",
                stdin=REQUEST)
    assert proc.returncode == 2 and "--impl-timeout" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("module", "words"), [
    ("exit_at_import.py", "raised SystemExit: 0"),
    ("hang_at_import.py", "did not finish within 1 s"),
])
def test_an_import_that_exits_or_hangs_is_a_usage_error(impls: Path, tmp_path: Path, module: str,
                                                        words: str) -> None:
    proc = _run("gate", "--baseline", str(_baseline(tmp_path)), "--impl", f"{impls}/{module}:x",
                "--impl-timeout", "1", timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_different_wrong_type_each_call_is_data(impls: Path, tmp_path: Path) -> None:
    """Was internal error (FlakyFailure ...), exit 3: each return is a finding, and shrinking
    a flaky implementation ends with the smallest request that failed."""
    for fn in ("flaky_types", "flaky_verdict"):
        out = tmp_path / fn
        proc = _run("crosscheck", "--impl", f"{impls}/bad.py:{fn}", "--cases", "30", "--no-real",
                    "--workers", "1", "--no-progress", "--no-html", "--out", str(out))
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "internal error" not in proc.stderr
        report = json.loads((out / "crosscheck.json").read_text())
        assert report["unexpected_count"] > 0
        assert all(u["reproducer"] is not None for u in report["unexpected"])


def test_values_json_cannot_hold_arrive_as_named_wrong_types(impls: Path) -> None:
    proc = _run("explain", CORPUS, "--impl", f"{impls}/bad.py:returns_bytes", "--format", "json",
                stdin=REQUEST)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [impl] = json.loads(proc.stdout)["implementations"]
    [field] = impl["fields"]
    assert field["field"] == "brevity_penalty"
    assert field["value"] == {"python_type": "bytes", "repr": "b'one'"}


def _orphaned_isolation_children() -> set[str]:
    """Isolation children whose parent (the pid on their command line) is gone."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"bleu_compat.isolation" in argv and len(argv) >= 5:
                parent = argv[argv.index(b"bleu_compat.isolation") + 3].decode()
                if not Path(f"/proc/{parent}").exists():
                    found.add(entry.name)
    return found


def test_no_child_outlives_the_command(impls: Path, tmp_path: Path) -> None:
    """After gate --impl (two workers, each with its child, and the parent's), no isolation
    child it started is left running without its parent."""
    before = _orphaned_isolation_children()
    proc = _run("gate", "--baseline", str(_baseline(tmp_path)), "--impl", f"{impls}/bad.py:chatty",
                "--workers", "2")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    deadline = time.monotonic() + 5
    while _orphaned_isolation_children() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _orphaned_isolation_children() - before == set()
