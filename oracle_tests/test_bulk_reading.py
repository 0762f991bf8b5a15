"""Bulk reading and splitting give the tokens of the line-by-line reading rules (issue 12, item 3).

The definition used here is written in this file from docs/score.md "Reading rules":
the bytes are split at LF only, one CR before each LF (and at the end of a
last line without LF) is dropped, a missing final newline changes nothing,
each line is decoded as UTF-8 on its own (the first bad line is the error),
and ``--tokenize none`` tokens are ``str.split()`` of each line. It shares no
code with ``bleu_compat.corpus_io`` or ``bleu_compat.tokenizers``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bleu_compat import stream
from bleu_compat.corpus_io import CorpusReadError, read_lines, scan_file
from bleu_compat.stats import SufficientStats, segment_stats
from bleu_compat.stream import corpus_stats_files
from bleu_compat.tokenizers import (
    BULK_HYP_END,
    STR_ONLY_WHITESPACE,
    bytes_split_is_str_split,
    split_none_bulk,
)

QUIRKS = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "quirks"


def lines_by_definition(data: bytes) -> list[str] | str:
    """The reading rules line by line: the lines, or the error's 'line N ... column C' text."""
    raw_lines = data.split(b"\n")
    if raw_lines[-1] == b"":
        raw_lines.pop()
    out = []
    for number, raw in enumerate(raw_lines, start=1):
        if raw[-1:] == b"\r":
            raw = raw[:-1]
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return f"line {number} is not UTF-8 (invalid byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
    return out


#: Every quirk of the reading rules, one piece each, and ordinary text.
PIECES = [
    b"the", b"cat", b" ", b"  ", b"\n", b"\r\n", b"\r", b"\t", b"\x0c", b"\x0b", b"\xef\xbb\xbf",
    "\u00a0".encode(), "\u200b".encode(), "\u2028".encode(), "\u0085".encode(), "\u3000".encode(),
    b"\x1c", b"\x1f", "é".encode(), "日本".encode(), "\u2019".encode(), b"",
]
BAD = [b"\xff", b"\xe2\x82", b"\xed\xa0\x80", b"\xc3"]


def quirk_files() -> list[Path]:
    return sorted(p for p in QUIRKS.glob("*.txt"))


class TestReadLines:
    @pytest.mark.parametrize("path", quirk_files(), ids=lambda p: p.name)
    def test_quirk_fixtures_read_as_line_by_line(self, path):
        """Each real quirk file (BOM, empty line, TAB, NBSP, ZWSP) reads as the definition's lines."""
        assert read_lines(path).lines == lines_by_definition(path.read_bytes())

    @settings(max_examples=300)
    @given(st.lists(st.sampled_from(PIECES + BAD), max_size=16))
    def test_generated_bytes_read_as_line_by_line(self, tmp_path_factory, pieces):
        """Random files of quirk pieces (bad UTF-8 included): same lines, or the same error."""
        data = b"".join(pieces)
        path = tmp_path_factory.mktemp("f") / "x.txt"
        path.write_bytes(data)
        expected = lines_by_definition(data)
        if not data:
            with pytest.raises(CorpusReadError, match="is empty"):
                read_lines(path)
        elif isinstance(expected, str):
            with pytest.raises(CorpusReadError) as info:
                read_lines(path)
            assert str(info.value) == f"{path}: {expected}"
        else:
            assert read_lines(path).lines == expected

    @settings(max_examples=200)
    @given(st.lists(st.sampled_from(PIECES + BAD), max_size=16), st.integers(1, 9))
    def test_scan_agrees_with_read_lines_at_any_chunk_size(self, tmp_path_factory, pieces, chunk):
        """scan_file (chunked) finds read_lines's line count, warnings and errors."""
        data = b"".join(pieces)
        path = tmp_path_factory.mktemp("f") / "x.txt"
        path.write_bytes(data)
        try:
            whole = read_lines(path)
        except CorpusReadError as exc:
            with pytest.raises(CorpusReadError) as info:
                scan_file(path, chunk_bytes=chunk)
            assert str(info.value) == str(exc)
            return
        scan = scan_file(path, chunk_bytes=chunk)
        assert (scan.n_lines, scan.warnings) == (len(whole.lines), whole.warnings)


class TestBulkSplit:
    def test_str_only_whitespace_is_derived_from_isspace(self):
        """The characters str.split splits on and bytes.split does not, over every code point."""
        bytes_ws = {chr(b) for b in b" \t\n\r\x0b\x0c"}
        derived = "".join(
            chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace() and chr(c) not in bytes_ws
        )
        assert STR_ONLY_WHITESPACE == derived

    @pytest.mark.parametrize("char", list(STR_ONLY_WHITESPACE))
    def test_each_str_only_whitespace_refuses_the_bulk_split(self, char):
        """A block holding any of them is split line by line instead."""
        assert not bytes_split_is_str_split(f"a{char}b\n".encode())
        assert bytes_split_is_str_split(b"a b\n")

    def test_sentence_end_bytes_refuse_the_bulk_split(self):
        """Text holding a sentence-end byte is never split in bulk."""
        assert not bytes_split_is_str_split(b"a\x00b\n")
        assert not bytes_split_is_str_split(b"a\x01b\n")

    @pytest.mark.parametrize("path", quirk_files(), ids=lambda p: p.name)
    def test_quirk_fixtures_bulk_tokens(self, path):
        """Where the bulk split is allowed, its tokens are str.split of each line."""
        data = path.read_bytes()
        expected = [line.split() for line in lines_by_definition(data)]
        if not bytes_split_is_str_split(data):
            assert any(c in data.decode() for c in STR_ONLY_WHITESPACE)
            return
        assert _lines_of(split_none_bulk(data, BULK_HYP_END)) == expected

    @settings(max_examples=300)
    @given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=20))
    def test_generated_bulk_tokens(self, pieces):
        """Generated UTF-8 blocks: the bulk tokens are the definition's, line by line."""
        data = b"".join(pieces)
        lines = lines_by_definition(data)
        if not data or not bytes_split_is_str_split(data):
            return
        assert _lines_of(split_none_bulk(data, BULK_HYP_END)) == [line.split() for line in lines]


def _lines_of(tokens: list[bytes]) -> list[list[str]]:
    out, line = [], []
    for token in tokens:
        if token == BULK_HYP_END:
            out.append(line)
            line = []
        else:
            line.append(token.decode("utf-8"))
    assert line == []
    return out


def _definition_stats(hyp: Path, refs: list[Path], max_order: int) -> list[SufficientStats]:
    hyps = [line.split() for line in lines_by_definition(hyp.read_bytes())]
    ref_lines = [[line.split() for line in lines_by_definition(r.read_bytes())] for r in refs]
    return [
        segment_stats(h, [r[i] for r in ref_lines], max_order=max_order) for i, h in enumerate(hyps)
    ]


class TestStreamedFiles:
    """corpus_stats_files (what score computes) against the definition: the C kernel, and the
    numpy and pure-Python kernels it replaces where it is not built."""

    @pytest.fixture(params=["c", "numpy", "python"])
    def kernel(self, request, monkeypatch):
        if request.param == "c":
            if stream.kernel() is None:
                pytest.skip("the C kernel is not built here")
            return request.param
        monkeypatch.setattr(stream, "kernel", lambda: None)  # the paths without the C kernel
        if request.param == "numpy":
            monkeypatch.setattr(stream, "_NUMPY_MIN_BYTES", 0)
        else:
            from bleu_compat import fast  # stream imports it where the kernel is not built

            monkeypatch.setattr(fast, "numpy_available", lambda: False)
        return request.param

    @pytest.mark.parametrize("quirk", ["bom", "empty", "tab", "nbsp", "zwsp"])
    def test_quirk_fixture_pairs(self, kernel, quirk):
        """Each quirk's system against its references: per-segment rows and sums are the definition's."""
        files = sorted(QUIRKS.glob(f"{quirk}.*.txt"))
        systems = [p for p in files if ".sys." in p.name]
        refs = [p for p in files if ".ref." in p.name]
        for system in systems:
            refs_here = [r for r in refs if len(lines_by_definition(r.read_bytes()))
                         == len(lines_by_definition(system.read_bytes()))]
            self._check(system, refs_here, 4)

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        st.integers(1, 12), st.integers(1, 3), st.integers(1, 5), st.integers(0, 2**32),
        st.integers(1, 50),
    )
    def test_generated_files(self, tmp_path_factory, kernel, n_lines, n_refs, max_order, seed,
                             block_tokens):
        """Generated line-aligned files of quirk pieces, any block size: the definition's counts."""
        rnd = random.Random(seed)
        # short words, and long ones equal in their first 8 or 64 bytes (the bytes
        # kernel reads a token as 8-byte words, and interns longer ones by a dict)
        words = [b"a", b"b", b"a", b"c", b"\xef\xbb\xbfa", "é".encode(), b"abcdefgh", b"abcdefghi",
                 b"x" * 64, b"x" * 65, b"x" * 70 + b"y"]
        gaps = [b" ", b"  ", b"\t", b"\x0c", "\u00a0".encode(), "\u2028".encode(), b" \r"]
        directory = tmp_path_factory.mktemp("c")

        def write(name: str) -> Path:
            lines = [b"".join(rnd.choice(words) + rnd.choice(gaps) for _ in range(rnd.randint(0, 8)))
                     for _ in range(n_lines)]
            ends = [rnd.choice([b"\n", b"\r\n"]) for _ in lines]
            data = b"".join(line + end for line, end in zip(lines, ends))
            if rnd.random() < 0.3:
                data = data.rstrip(b"\n")  # a missing final newline
                if not data:
                    data = b"\n"
            path = directory / name
            path.write_bytes(data)
            return path

        hyp = write("hyp.txt")
        refs = [write(f"ref{k}.txt") for k in range(n_refs)]
        if len({len(lines_by_definition(p.read_bytes())) for p in [hyp, *refs]}) != 1:
            return  # a stripped final newline of an all-empty file changed the line count
        self._check(hyp, refs, max_order, block_tokens=block_tokens)

    def _check(self, hyp: Path, refs: list[Path], max_order: int, **kwargs) -> None:
        expected = _definition_stats(hyp, refs, max_order)
        rows: list[list[int]] = []

        def collect(first: int, block: list[list[int]]) -> None:
            assert first == len(rows)
            rows.extend(block)

        total = corpus_stats_files(str(hyp), [str(r) for r in refs], max_order=max_order,
                                   on_segments=collect, **kwargs)
        assert rows == [[*s.matches, *s.totals, s.hyp_len, s.ref_len] for s in expected]
        assert total == sum(expected[1:], expected[0])
        without = corpus_stats_files(str(hyp), [str(r) for r in refs], max_order=max_order, **kwargs)
        assert without == total


def test_score_reads_a_pipe_like_a_file(tmp_path):
    """score streams each file; a pipe (/dev/stdin) scores as the file does, in both forms."""
    import subprocess

    hyp = "the cat sat on the mat\nthere is a cat\n" * 300
    ref = "the cat is on the mat\nthere is a dog\n" * 300
    (tmp_path / "hyp.txt").write_text(hyp, encoding="utf-8")
    (tmp_path / "ref.txt").write_text(ref, encoding="utf-8")
    cmd = [sys.executable, "-m", "bleu_compat", "card-score"]
    from_file = subprocess.run([*cmd, "hyp.txt", "ref.txt", "--json"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=60)
    from_pipe = subprocess.run([*cmd, "/dev/stdin", "ref.txt", "--json"], cwd=tmp_path, input=hyp,
                               capture_output=True, text=True, timeout=60)
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    assert from_pipe.stdout == from_file.stdout
    sacre = [sys.executable, "-m", "bleu_compat", "score", "ref.txt"]
    from_file = subprocess.run([*sacre, "-i", "hyp.txt", "-f", "text"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=60)
    from_pipe = subprocess.run([*sacre, "-i", "/dev/stdin", "-f", "text"], cwd=tmp_path,
                               input=hyp, capture_output=True, text=True, timeout=60)
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    assert from_pipe.stdout == from_file.stdout
    twice = subprocess.run([*cmd, "/dev/stdin", "/dev/stdin"], cwd=tmp_path, input=hyp,
                           capture_output=True, text=True, timeout=60)
    assert twice.returncode == 2 and "/dev/stdin: the file is empty" in twice.stderr
