"""``score`` reads its inputs in one streaming pass with bounded memory and disk (issue 24 item 3).

Each reproducer of the issue and its neighbours: /dev/zero as either file, an
endless pipe on standard input, a compressed file of millions of lines
against a 3-line reference, a compression bomb, a 512 MiB single line (a
sparse file: no disk used), the spool of --compare removed on SIGTERM and
SIGINT, and a write error on standard output. What is asserted is the
outcome (exit status, the one-line message naming file and line) and how
much was read, never a time.
"""

from __future__ import annotations

import bz2
import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bleu_compat.cli import main
from bleu_compat.corpus_io import MAX_LINE_BYTES, CorpusReadError, LineStream, aligned_blocks

REF3 = "a b c\nd e f\ng h i\n"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _bleu(*argv: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *argv], capture_output=True,
                          text=True, timeout=120, **kwargs)  # type: ignore[call-overload]


@pytest.fixture()
def ref3(tmp_path: Path) -> str:
    path = tmp_path / "ref3.txt"
    path.write_text(REF3, encoding="utf-8")
    return str(path)


class _Counting:
    """Counts the decompressed bytes score reads from a compressed input."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from bleu_compat.cli.score import inputs

        self.read = 0
        original = inputs._Decompressing.read

        def read(this: object, size: int) -> bytes:
            data = original(this, size)  # type: ignore[arg-type]
            self.read += len(data)
            return data

        monkeypatch.setattr(inputs._Decompressing, "read", read)


class TestLineCounts:
    def test_dev_zero_as_the_hypothesis(self, ref3: str) -> None:
        """`score ref.txt -i /dev/zero`: no line end in 64 MiB: one line naming the file and line 1."""
        done = _bleu("score", ref3, "-i", "/dev/zero")
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("bleu-compat score: /dev/zero: line 1 is longer than "
                                      "67,108,864 bytes (64 MiB)") and done.stderr.count("\n") == 1

    def test_dev_zero_as_the_reference(self, ref3: str) -> None:
        done = _bleu("score", "/dev/zero", "-i", ref3)
        assert done.returncode == 2 and "/dev/zero: line 1 is longer than" in done.stderr

    @pytest.mark.parametrize("argv", [["card-score", "-", "{ref}"], ["score", "{ref}"],
                                      ["score", "{ref}", "-i", "-"],
                                      ["score", "{ref}", "-i", "-", "--compare"]])
    def test_an_endless_pipe_stops_at_the_first_surplus_line(self, ref3: str, argv: list[str]) -> None:
        """`yes | card-score - ref.txt` (and sacreBLEU's `yes | score ref.txt`): exit 2 at line
        4; with --compare the copy stops there too."""
        command = " ".join([f"'{sys.executable}'", "-m", "bleu_compat",
                            *[a.format(ref=ref3) for a in argv]])
        done = subprocess.run(f"yes | {command}", shell=True, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == (f"bleu-compat {argv[0]}: line counts differ: {ref3} has 3 lines, "
                               "- has more (it goes on at line 4)\n")

    def test_a_gz_of_millions_of_lines_is_not_decompressed_ahead(self, capsys, tmp_path, ref3,
                                                                monkeypatch) -> None:
        """4 Mi lines in a .gz against a 3-line REF: the mismatch after line 3, having read one
        chunk (1 MiB) of the 8 MiB the file holds, never the whole file."""
        big = tmp_path / "big.txt.gz"
        with gzip.open(big, "wb") as handle:
            handle.write(b"x\n" * (4 << 20))
        counting = _Counting(monkeypatch)
        code, out, err = _run(capsys, ref3, "-i", str(big))
        assert code == 2 and out == ""
        assert err == (f"bleu-compat score: line counts differ: {ref3} has 3 lines, {big} has "
                       "more (it goes on at line 4)\n")
        assert 0 < counting.read <= 1 << 20

    def test_a_compression_bomb_stops_at_the_line_bound(self, capsys, tmp_path, ref3,
                                                       monkeypatch) -> None:
        """An 82-byte .bz2 of 65 MiB of NUL bytes (one line): refused at 64 MiB, read as a stream."""
        bomb = tmp_path / "bomb.bz2"
        bomb.write_bytes(bz2.compress(b"\0" * (MAX_LINE_BYTES + (1 << 20))))
        assert bomb.stat().st_size < 200
        counting = _Counting(monkeypatch)
        code, _, err = _run(capsys, ref3, "-i", str(bomb))
        assert code == 2
        assert err.startswith(f"bleu-compat score: {bomb}: line 1 is longer than 67,108,864")
        assert counting.read <= MAX_LINE_BYTES + (1 << 20)

    def test_a_512_mib_single_line(self, capsys, tmp_path, ref3) -> None:
        """A 512 MiB line (a sparse file, no disk used): refused at the bound, naming the line."""
        huge = tmp_path / "huge.txt"
        with open(huge, "wb") as handle:
            handle.write(b"a b\n")
            handle.truncate(512 << 20)
        code, _, err = _run(capsys, ref3, "-i", str(huge))
        assert code == 2 and err.startswith(f"bleu-compat score: {huge}: line 2 is longer than")

    def test_a_line_just_at_the_bound_is_read(self) -> None:
        """The bound is on the line's bytes: a line of exactly the bound passes, one more fails."""
        import io

        for size, ok in ((1000, True), (1001, False)):
            stream = LineStream("f", io.BytesIO(b"x" * size + b"\nshort\n"), max_line_bytes=1000,
                                chunk_bytes=64)
            other = LineStream("g", io.BytesIO(b"1\n2\n"), max_line_bytes=1000, chunk_bytes=64)
            if ok:
                blocks = list(aligned_blocks([stream, other], lambda: 1))
                assert [n for n, _ in blocks] == [1, 1] and blocks[0][1][0] == b"x" * size + b"\n"
            else:
                with pytest.raises(CorpusReadError, match="f: line 1 is longer than 1,000 bytes"):
                    list(aligned_blocks([stream, other], lambda: 1))

    @pytest.mark.parametrize("data, lines", [(b"", 0), (b"a", 1), (b"a\n", 1), (b"a\nb", 2),
                                             (b"\n\n", 2), (b"a\r\nb\r\n", 2)])
    def test_blocks_give_the_files_bytes_back(self, data: bytes, lines: int) -> None:
        """Whatever the chunk and block sizes, the blocks joined are the file's bytes."""
        import io

        for chunk in (1, 2, 3, 64):
            for size in (1, 2, 5):
                if lines == 0:
                    with pytest.raises(CorpusReadError, match="the file is empty"):
                        list(aligned_blocks([LineStream("f", io.BytesIO(data), chunk_bytes=chunk)],
                                            lambda: size))
                    continue
                blocks = list(aligned_blocks([LineStream("f", io.BytesIO(data), chunk_bytes=chunk)],
                                             lambda: size))
                assert b"".join(c[0] for _, c in blocks) == data
                assert sum(n for n, _ in blocks) == lines


class TestSpool:
    @pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
    def test_the_compare_spool_is_removed_on_a_signal(self, tmp_path: Path, signum: int,
                                                     status: int) -> None:
        """--compare copies standard input while reading it; SIGTERM or SIGINT mid-copy removes
        the copy (the issue's run left 1.6 GB behind)."""
        ref = tmp_path / "ref.txt"
        ref.write_text("".join(f"{i} a b c\n" for i in range(200_000)), encoding="utf-8")
        spool = tmp_path / "tmp"
        spool.mkdir()
        feeder = subprocess.Popen([sys.executable, "-c", (
            "import sys, time\n"
            "try:\n"
            "    for i in range(200000):\n"
            "        sys.stdout.write(f'{i} a b c\\n')\n"
            "        if i % 1000 == 0: sys.stdout.flush(); time.sleep(0.02)\n"
            "except BrokenPipeError: pass\n")], stdout=subprocess.PIPE)
        score = subprocess.Popen(
            [sys.executable, "-m", "bleu_compat", "score", str(ref), "-i", "-", "--compare"],
            stdin=feeder.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=dict(os.environ, TMPDIR=str(spool)))
        def copying() -> bool:
            # the spool's own directory with a copy under way (not any transient file that a
            # library may make in TMPDIR while it starts)
            return any(f.stat().st_size > 0 for d in spool.glob("bleu-compat-*") for f in d.iterdir())

        try:
            deadline = time.monotonic() + 60
            while not copying() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert copying(), "the copy never started"
            score.send_signal(signum)
            _, err = score.communicate(timeout=60)
        finally:
            feeder.kill()
            feeder.wait()
        assert score.returncode == status, err
        assert list(spool.iterdir()) == []


class TestStandardOutput:
    @pytest.mark.parametrize("argv", [["-f", "json"], ["--json"], ["-b"], []])
    def test_a_full_disk_on_stdout_is_one_line(self, ref3: str, argv: list[str]) -> None:
        """`score ... > /dev/full`: one line, exit 2 (was an internal error, exit 3)."""
        if not os.path.exists("/dev/full"):
            pytest.skip("no /dev/full")
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "bleu_compat", "score", ref3, "-i", ref3,
                                   *argv], stdout=full, stderr=subprocess.PIPE, text=True,
                                  timeout=120)
        assert done.returncode == 2
        assert done.stderr == ("bleu-compat score: cannot write to standard output: No space "
                               "left on device\n")


class TestSegmentsFile:
    def test_no_segments_file_is_left_when_the_input_fails_half_way(self, capsys, tmp_path) -> None:
        """A line-count mismatch found after blocks were written: the partial file is removed
        (it would look complete: valid JSON lines)."""
        ref = tmp_path / "ref.txt"
        sys_ = tmp_path / "sys.txt"
        ref.write_text("a b c d\n" * 3000, encoding="utf-8")
        sys_.write_text("a b c d\n" * 3001, encoding="utf-8")
        segments = tmp_path / "s.jsonl"
        code, _, err = _run(capsys, str(ref), "-i", str(sys_), "--segments", str(segments))
        assert code == 2 and "goes on at line 3001" in err
        assert not segments.exists()

    def test_a_device_given_as_segments_is_never_removed(self, capsys, tmp_path) -> None:
        """--segments /dev/null with an input that fails: /dev/null stays (only a regular file
        of ours is removed)."""
        ref = tmp_path / "ref.txt"
        ref.write_text("a\nb\n", encoding="utf-8")
        sys_ = tmp_path / "sys.txt"
        sys_.write_text("a\nb\nc\n", encoding="utf-8")
        code, _, _ = _run(capsys, str(ref), "-i", str(sys_), "--segments", os.devnull)
        assert code == 2 and os.path.exists(os.devnull)
        import stat

        assert stat.S_ISCHR(os.stat(os.devnull).st_mode)

    def test_a_full_disk_for_segments_is_one_line(self, capsys, tmp_path) -> None:
        if not os.path.exists("/dev/full"):
            pytest.skip("no /dev/full")
        ref = tmp_path / "ref.txt"
        ref.write_text("a b c\n" * 5000, encoding="utf-8")
        code, _, err = _run(capsys, str(ref), "-i", str(ref), "--segments", "/dev/full")
        assert code == 2
        assert err == "bleu-compat score: --segments /dev/full: cannot write: No space left on device\n"
        assert os.path.exists("/dev/full")
