"""Reports complete or absent, one run id per set, Ctrl-C, and commands that checked nothing
(issue 24, items 4, 6, 8 and 9).

Each example of the issue has a test of its kind here: a crosscheck set mixing two runs
(the run id tells), ``--no-html`` beside an old ``crosscheck.html``, ``gate --baseline r.json
--report r.json --update``, ``--update`` over a text file, SIGINT to the process group of a
crosscheck with workers, ``matrix --offline`` with nothing cached, one reproducer listed
96 times, ``-0.0``/``4.0`` in integer fields and ``epsilon``, ``run > /dev/full``, a busy port
for ``serve``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bleu_compat.atomic import atomic_open, write_all_atomic, write_atomic

ROOT = Path(__file__).resolve().parent.parent
BP = "bleu-brevity-penalty"
CORPUS = "bleu-corpus-compute"
FLAWED = "examples/flawed_bleu.py:bleu"


def _run(*args: str, stdin: str | None = None, timeout: float = 600, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, **kw)  # type: ignore[call-overload]


def _small_crosscheck(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return _run("crosscheck", "--tools", BP, "--cases", "20", "--invalid", "0", "--no-real",
                "--workers", "1", "--no-progress", "--out", str(out), *extra)


# --- atomic writes ------------------------------------------------------------------


def test_atomic_write_replaces_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_atomic(target, "new")
    assert target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o640
    with pytest.raises(RuntimeError):
        with atomic_open(target) as handle:
            handle.write("half of a ")
            raise RuntimeError("killed mid-write")
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left


def test_a_set_is_renamed_only_when_every_file_is_written(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("old a")
    with pytest.raises(TypeError):
        write_all_atomic({tmp_path / "a": "new a", tmp_path / "b": 3})  # type: ignore[dict-item]
    assert (tmp_path / "a").read_text() == "old a" and not (tmp_path / "b").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


# --- one run id per set, stale files -------------------------------------------------


def test_every_file_of_a_set_names_the_run_id(tmp_path: Path) -> None:
    proc = _small_crosscheck(tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "crosscheck.json").read_text())
    run_id = report["run_id"]
    assert len(run_id) == 16 and list(report)[:2] == ["format", "run_id"]
    assert f"Run `{run_id}`" in (tmp_path / "crosscheck.md").read_text()
    assert f'name="run_id" value="{run_id}"' in (tmp_path / "crosscheck.junit.xml").read_text()
    assert json.loads((tmp_path / "crosscheck.timing.json").read_text())["run_id"] == run_id
    html = tmp_path / "crosscheck.html"
    if html.exists():  # matplotlib installed
        assert f"<code>{run_id}</code>" in html.read_text()
    # another seed, another id: a set mixing the two runs' files shows two ids
    other = _run("crosscheck", "--tools", BP, "--cases", "20", "--seed", "7", "--invalid", "0",
                 "--no-real", "--workers", "1", "--no-progress", "--no-html", "--out", str(tmp_path / "o"))
    assert other.returncode == 0
    assert json.loads((tmp_path / "o" / "crosscheck.json").read_text())["run_id"] != run_id


def test_no_html_removes_the_previous_page(tmp_path: Path) -> None:
    (tmp_path / "crosscheck.html").write_text("<p>an earlier run</p>")
    proc = _small_crosscheck(tmp_path, "--no-html")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "crosscheck.html").exists()
    assert "an earlier run's page" in proc.stderr
    assert "crosscheck.{json,md,junit.xml}" in proc.stdout  # the summary lists what was written


def test_a_reproducer_is_listed_once_with_its_count(tmp_path: Path) -> None:
    """The flawed implementation's UNEXPECTED cases share one shrunk reproducer: the Markdown and
    HTML show it once, with the count (the page was 1.5 MB of copies)."""
    proc = _run("crosscheck", "--impl", FLAWED, "--cases", "80", "--no-real", "--workers", "1",
                "--no-progress", "--out", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    report = json.loads((tmp_path / "crosscheck.json").read_text())
    n = report["unexpected_count"]
    assert n > 1
    [group] = report["reproducers"]
    assert group["count"] == n and group["first"]["case_id"] == report["unexpected"][0]["case_id"]
    md = (tmp_path / "crosscheck.md").read_text()
    assert md.count("Minimal reproducer") == 1 and f"({n} cases: " in md
    html = tmp_path / "crosscheck.html"
    if html.exists():
        text = html.read_text()
        assert text.count('class="case"') == 1 and f"{n} cases (" in text


# --- gate's files ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    proc = _small_crosscheck(out, "--no-html")
    assert proc.returncode == 0, proc.stderr
    return out / "crosscheck.json"


def test_gate_refuses_a_report_that_is_the_baseline(tmp_path: Path, small_report: Path) -> None:
    """gate --baseline r.json --report r.json --update replaced a 233,678-byte report with a
    baseline; now refused, the file untouched, with or without --update."""
    report = tmp_path / "r.json"
    report.write_bytes(small_report.read_bytes())
    before = report.read_bytes()
    for extra in ((), ("--update",), ("--update", "--force")):
        proc = _run("gate", "--baseline", str(report), "--report", str(report), *extra)
        assert proc.returncode == 2 and "is the --baseline file" in proc.stderr, proc.stderr
        assert report.read_bytes() == before
    (tmp_path / "link.json").symlink_to(report)
    proc = _run("gate", "--baseline", str(tmp_path / "link.json"), "--report", str(report), "--update")
    assert proc.returncode == 2 and report.read_bytes() == before


def test_update_does_not_replace_a_file_that_is_not_a_baseline(tmp_path: Path, small_report: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("9.6 KB of someone's notes\n" * 400)
    before = notes.read_bytes()
    proc = _run("gate", "--baseline", str(notes), "--report", str(small_report))
    assert proc.returncode == 2 and "--update --force" in proc.stderr  # the way out says --force
    proc = _run("gate", "--baseline", str(notes), "--report", str(small_report), "--update")
    assert proc.returncode == 2 and "--update --force" in proc.stderr
    assert notes.read_bytes() == before
    proc = _run("gate", "--baseline", str(notes), "--report", str(small_report), "--update", "--force")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(notes.read_text())["format"] == "bleu-compat-baseline/1"
    assert _run("gate", "--force", "--baseline", str(notes)).returncode == 2  # --force alone


# --- Ctrl-C -----------------------------------------------------------------------------


def _interrupt(args: list[str], after: float, cwd: Path, chunks: Path | None = None) -> tuple[int, str, float]:
    """Start a command in a process group of its own, SIGINT the group ``after`` seconds later
    (or, with ``chunks``, once two chunks are in that checkpoint: mid-run on any machine);
    (exit status, standard error, seconds from the signal to the exit)."""
    proc = subprocess.Popen([sys.executable, "-m", "bleu_compat", *args], cwd=cwd,
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if chunks is None:
        time.sleep(after)
    else:
        deadline = time.monotonic() + 600
        while len(list(chunks.glob("chunk-*.json"))) < 2 and proc.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.05)
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends it: to the whole group
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err, time.monotonic() - sent


@pytest.mark.serial  # asserts a wall-clock bound: see conftest.py
def test_sigint_stops_a_crosscheck_with_workers_at_once(tmp_path: Path) -> None:
    """Was 258 s (95 s with --checkpoint); now exit 130 within 2 s, one line, the finished
    chunks kept; the rerun resumes to the report of an uninterrupted run."""
    ck = tmp_path / "ck"
    common = ["crosscheck", "--cases", "600", "--tools", "bleu-corpus-compute,bleu-smoothing-compute",
              "--invalid", "0", "--no-real", "--workers", "2", "--no-progress", "--no-html"]
    args = [*common, "--checkpoint", str(ck), "--out", str(tmp_path / "out")]
    code, err, took = _interrupt(args, 0, ROOT, chunks=ck)
    assert code == 130, err
    assert took < 2.0, took
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "interrupted after" in lines[0] and str(ck) in lines[0], err
    assert not (tmp_path / "out" / "crosscheck.json").exists()
    kept = len(list(ck.glob("chunk-*.json")))
    assert kept > 0
    resumed = _run(*args)
    assert resumed.returncode == 0, resumed.stderr
    whole = _run(*common, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0
    assert (tmp_path / "out" / "crosscheck.json").read_bytes() == \
        (tmp_path / "whole" / "crosscheck.json").read_bytes()


@pytest.mark.serial  # asserts a wall-clock bound: see conftest.py
def test_sigint_without_checkpoint(tmp_path: Path) -> None:
    code, err, took = _interrupt(["crosscheck", "--cases", "3000", "--workers", "2", "--no-progress",
                                  "--out", str(tmp_path)], 6.0, ROOT)
    assert code == 130 and took < 2.0, (code, took, err)
    assert len(err.strip().splitlines()) == 1 and "no report written" in err


# --- commands that checked nothing, small ones -----------------------------------------


def test_matrix_offline_with_nothing_cached_exits_2(tmp_path: Path) -> None:
    proc = _run("matrix", "--sacrebleu", "2.6.0", "--nltk", "3.10.4", "--offline",
                "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and "sacrebleu-2.6.0" in line and "nltk-3.10.4" in line
    assert "building environment" not in proc.stderr
    assert not (tmp_path / "out" / "matrix.json").exists()


def test_negative_zero_epsilon_is_explained_as_zero_is() -> None:
    base = {"matches": [1, 0, 0, 0], "totals": [2, 1, 1, 1], "candidate_length": 2,
            "reference_length": 2, "smoothing": "method1"}
    outputs = []
    for epsilon in ("0", "-0.0", "0.0"):
        text = json.dumps(base)[:-1] + f', "epsilon": {epsilon}}}'
        proc = _run("explain", "bleu-smoothing-compute", "--format", "json", stdin=text)
        assert proc.returncode == 0, (epsilon, proc.stdout)
        doc = json.loads(proc.stdout)
        verdicts = {i["name"]: i["verdict"] for i in doc["implementations"]}
        # an implementation without method1 (bleuscore: add-one only) cannot express the request;
        # every one that can agrees or is explained
        assert set(verdicts.values()) <= {"identical", "explained", "not representable"}, verdicts
        assert {v for n, v in verdicts.items() if n.startswith(("sacrebleu", "nltk"))} <= {
            "identical", "explained"}, verdicts
        outputs.append([(i["name"], i["verdict"], i["reproduced_by"]) for i in doc["implementations"]])
    assert outputs[0] == outputs[1] == outputs[2]


def test_integral_numbers_in_integer_fields_are_the_integers_everywhere() -> None:
    """4.0 and -0.0 in integer fields: taken as 4 and 0, with the same output in process,
    from the CLI and over HTTP (JSON Schema's integer admits them)."""
    from starlette.testclient import TestClient

    import bleu_compat
    from bleu_compat.jsonio import dumps_js
    from bleu_compat.server import create_app

    cases = [
        ("bleu-corpus-compute", '{"hypotheses":[["a","b"]],"references":[[["a","b"]]],"max_order":2.0,"decimals":-0.0}',
         '{"hypotheses":[["a","b"]],"references":[[["a","b"]]],"max_order":2,"decimals":0}'),
        ("bleu-smoothing-compute", '{"matches":[1.0,-0.0],"totals":[2,1.0],"candidate_length":-0.0,'
         '"reference_length":2.0,"smoothing":"method1","epsilon":-0.0}',
         '{"matches":[1,0],"totals":[2,1],"candidate_length":0,"reference_length":2,'
         '"smoothing":"method1","epsilon":0}'),
        ("bleu-brevity-penalty", '{"segments":[{"candidate_length":4.0,"reference_lengths":[-0.0,5.0]}]}',
         '{"segments":[{"candidate_length":4,"reference_lengths":[0,5]}]}'),
    ]
    client = TestClient(create_app())
    for tool, floats, ints in cases:
        want = dumps_js(bleu_compat.execute(tool, ints))
        assert dumps_js(bleu_compat.execute(tool, floats)) == want
        assert dumps_js(bleu_compat.execute(tool, json.loads(floats))) == want
        proc = _run("run", tool, stdin=floats)
        assert proc.returncode == 0 and proc.stdout.strip() == want, proc.stdout
        card = bleu_compat.card(tool)
        resp = client.post(card.execute_url, content=floats, headers={"content-type": "application/json"})
        assert resp.status_code == 200 and resp.text == want


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["run", CORPUS], ["tools"], ["catalog"],
                                  ["explain", CORPUS, "--format", "json"],
                                  # help and version: a short text (buffered, flushed at the end)
                                  # and score's, longer than the buffer (argparse swallows its
                                  # write error): both once exit 120 with a traceback, or exit 0
                                  ["--help"], ["--version"], ["identify", "--help"],
                                  ["score", "--help"], ["crosscheck", "-h"]])
def test_a_write_error_on_standard_output_is_one_line(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "bleu_compat", *args], cwd=ROOT, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=300,
                              input='{"hypotheses":[["a"]],"references":[[["a"]]]}')
    assert proc.returncode == 2
    assert proc.stderr.strip() == "bleu-compat: cannot write to standard output: No space left on device"


def test_serve_on_a_busy_port_is_one_line() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = _run("serve", "--port", str(port), timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"bleu-compat serve: the server could not start on "
                                   f"127.0.0.1:{port}: address already in use")


def test_a_staged_file_appears_only_when_published(tmp_path: Path) -> None:
    """--segments is written in passes (one per system) to a staged file beside the target:
    until the command publishes it, nothing of it is under its name; never published (the
    command failed), it is removed at exit."""
    from bleu_compat.atomic import discard, publish, staged

    target = tmp_path / "segments.jsonl"
    first = staged(target)
    with open(first, "w") as handle:
        handle.write('{"segment":0}\n')
    assert staged(target) == first and not target.exists()
    with open(staged(target), "a") as handle:
        handle.write('{"segment":1}\n')
    publish(target)
    assert target.read_text() == '{"segment":0}\n{"segment":1}\n'
    other = tmp_path / "never.jsonl"
    Path(staged(other)).write_text("half")
    discard()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["segments.jsonl"]


def test_an_implementation_run_on_no_case_does_not_pass() -> None:
    """Every case 'not representable' for an --impl means it was never run: crosscheck and
    gate refuse to pass such a run (exit 2, the reasons named)."""
    from bleu_compat.cli.crosscheck import not_judged

    name = "impl:x.py:bleu"
    nothing = {"implementations": [name], "real": [],
               "summary": {CORPUS: {name: {"agree": 0, "explained": 0, "unexpected": 0,
                                           "not_representable": 40}}},
               "not_representable": [{"tool": CORPUS, "implementation": name, "count": 40,
                                      "reason": "max_order=2: the callable takes no max_order"}]}
    why = not_judged(nothing)
    assert why is not None and name in why and "takes no max_order" in why
    one = json.loads(json.dumps(nothing))
    one["summary"][CORPUS][name]["unexpected"] = 1
    assert not_judged(one) is None
    assert not_judged({"implementations": ["ours"], "real": [], "summary": {}}) is None
