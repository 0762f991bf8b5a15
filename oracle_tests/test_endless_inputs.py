"""Endless or huge inputs to the commands that read a file whole (issue 24's kind "no input can
fill the memory"): ``identify`` and ``score --compare`` read corpora whole, ``gate`` reads its
baseline and report whole. Each must refuse ``/dev/zero`` (a line without end) and an
over-long file in one line, exit 2, before holding it: the commands run in a child process
whose address space is capped at 2 GiB, so a regression fails here (MemoryError is exit 3,
the kernel's kill is -9) instead of taking the machine's memory.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WMT17 = ROOT / "fixtures" / "real" / "wmt17-en-de-uedin-nmt"
REF = str(WMT17 / "ref.A.txt")
SYS = str(WMT17 / "sys.uedin-nmt.4722.txt")
ZERO = "/dev/zero"

pytestmark = pytest.mark.skipif(not os.path.exists(ZERO), reason="no /dev/zero here")


def _capped() -> None:
    cap = 2 << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], capture_output=True,
                          text=True, timeout=120, preexec_fn=_capped, cwd=ROOT)


@pytest.mark.parametrize("args", [
    ("identify", "28.3", REF, "-i", ZERO),
    ("identify", "28.3", ZERO, "-i", SYS),
    ("score", REF, "-i", ZERO, "--compare"),
], ids=["identify-system", "identify-reference", "score-compare"])
def test_a_line_without_end_is_refused(args: tuple[str, ...]) -> None:
    proc = _run(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-500:])
    assert "longer than" in proc.stderr and ZERO in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_identify_reads_a_corpus_file_in_bounded_pieces(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    """The whole-file reader refuses a file over its bound as it reads (the bound lowered
    here), and reads one just under it, with the same lines as the file."""
    from bleu_compat import corpus_io

    path = tmp_path / "corpus.txt"
    path.write_bytes(b"a b c\n" * 1000)  # 6,000 bytes
    monkeypatch.setattr(corpus_io, "READ_CHUNK_BYTES", 512)
    monkeypatch.setattr(corpus_io, "MAX_WHOLE_FILE_BYTES", 6000)
    assert corpus_io.read_lines(path).lines == ["a b c"] * 1000
    monkeypatch.setattr(corpus_io, "MAX_WHOLE_FILE_BYTES", 5999)
    with pytest.raises(corpus_io.CorpusReadError, match="longer than"):
        corpus_io.read_lines(path)
    # a line spanning chunks: refused past the line bound, read at it
    long_line = tmp_path / "long.txt"
    long_line.write_bytes(b"x" * 2000 + b"\nshort\n")
    monkeypatch.setattr(corpus_io, "MAX_WHOLE_FILE_BYTES", 1 << 30)
    monkeypatch.setattr(corpus_io, "MAX_LINE_BYTES", 2000)
    assert corpus_io.read_lines(long_line).lines == ["x" * 2000, "short"]
    monkeypatch.setattr(corpus_io, "MAX_LINE_BYTES", 1999)
    with pytest.raises(corpus_io.CorpusReadError, match="line 1 is longer than"):
        corpus_io.read_lines(long_line)


@pytest.mark.parametrize("which", ["--baseline", "--report"])
def test_gate_refuses_an_endless_baseline_or_report(which: str) -> None:
    args = (["gate", "--baseline", ZERO] if which == "--baseline" else
            ["gate", "--baseline", str(ROOT / "reports" / "baseline.json"), "--report", ZERO])
    proc = _run(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-500:])
    assert f"{which} {ZERO}" in proc.stderr and "longer than" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_identify_writes_no_copies_and_stops_on_sigterm(tmp_path: Path) -> None:
    """identify counts in memory: it writes nothing to the temporary directory (no copy of
    the inputs to leave behind), and SIGTERM (what `timeout` and process managers send)
    while it counts ends it with exit 143."""
    import signal
    import time

    corpus = tmp_path / "corpus.txt"
    corpus.write_text(("a b c d e f g . , - " * 2000 + "\n") * 200, encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    proc = subprocess.Popen([sys.executable, "-m", "bleu_compat", "identify", "28.3", str(corpus),
                             "-i", str(corpus)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    ticks = os.sysconf("SC_CLK_TCK")
    try:
        for _ in range(3000):  # until it has counted for a while (1 s of CPU), at most 60 s
            if proc.poll() is not None:
                break
            try:
                fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                break
            if int(fields[11]) / ticks >= 1.0:  # utime
                break
            assert list(scratch.iterdir()) == []
            time.sleep(0.02)
        if proc.poll() is not None:
            pytest.skip("the search ended before it could be stopped")
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, proc.stderr.read()[-500:] if proc.stderr else ""
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("spec", ["nltk:tok=13a,tok=zh", "sacrebleu:smooth=floor,smooth=exp",
                                  "card:lc,lc=no"])
def test_a_key_given_twice_in_a_configuration_is_refused(spec: str) -> None:
    from bleu_compat.decompose import parse_config

    with pytest.raises(ValueError, match="given twice"):
        parse_config(spec)
    parse_config(spec.split(",")[0])  # once is fine


@pytest.mark.parametrize("text", ["1_0", "1e1", "0x10", "nan", "28.3.1", "", "2 8"])
def test_identify_takes_a_plain_decimal_only(text: str) -> None:
    from bleu_compat.identify import parse_score

    with pytest.raises(ValueError, match="not a plain decimal|not a number"):
        parse_score(text)


def test_json_decoder_messages_read_once() -> None:
    """Python's decoder ends some messages in "at"; the position follows once, not "at at"."""
    from bleu_compat.jsonio import loads_strict
    from bleu_compat.errors import ToolError

    with pytest.raises(ToolError) as info:
        loads_strict('{"hypotheses": "a\x01"}')
    assert "at at" not in str(info.value) and "at line 1 column" in str(info.value)
