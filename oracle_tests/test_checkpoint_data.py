"""Checkpoints are data, never code (issue 24, item 1).

``crosscheck --checkpoint DIR`` used to ``pickle.load`` every ``chunk-*.pickle``: a pickle
whose ``__reduce__`` calls ``os.system`` ran on a fresh directory and on resuming a
legitimate one. The directory now holds JSON chunks whose SHA-256 is recorded in
``chunks.sha256``; anything else is refused by name (exit 2) before any chunk is read.
The crafted pickle below would create a marker file if it were ever unpickled: the tests
check the refusal *and* that the marker never appears.
"""

from __future__ import annotations

import hashlib
import json
import math
import pickle
from pathlib import Path

import pytest

from bleu_compat.cli import main
from bleu_compat.cluster import Checkpoint, CheckpointError
from bleu_compat.harness.report import build_report
from bleu_compat.harness.run import run_crosscheck, tally_from_json, tally_to_json
from bleu_compat.implementations import register, wrap
from bleu_compat.jsonio import dumps_js

BP = "bleu-brevity-penalty"


class _Payload:
    """Unpickling this runs ``open(marker, "w")`` (stands for any command a pickle could run)."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (self.marker, "w"))


def _crafted(path: Path, marker: Path) -> None:
    path.write_bytes(pickle.dumps(_Payload(marker)))
    # the payload is real: unpickling it does create the marker (checked on a copy)
    probe = marker.with_name("probe-" + marker.name)
    pickle.loads(pickle.dumps(_Payload(probe))).close()
    assert probe.exists()
    probe.unlink()


def _cli(tmp_path: Path, checkpoint: Path, cases: int = 50) -> int:
    return main(["crosscheck", "--tools", BP, "--cases", str(cases), "--invalid", "0", "--no-real",
                 "--no-html", "--no-progress", "--workers", "1", "--checkpoint", str(checkpoint),
                 "--out", str(tmp_path / "out")])


def test_crafted_pickle_in_a_fresh_directory_never_runs(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    ck = tmp_path / "ck"
    ck.mkdir()
    marker = tmp_path / "PWNED"
    _crafted(ck / "chunk-0000000.pickle", marker)
    assert _cli(tmp_path, ck) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "chunk-0000000.pickle" in err
    assert "pickles are never loaded" in err and "Traceback" not in err
    assert not marker.exists()
    assert not (tmp_path / "out" / "crosscheck.json").exists()


def test_crafted_pickle_in_a_resumed_directory_never_runs(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    ck = tmp_path / "ck"
    assert _cli(tmp_path, ck) == 0
    chunks = sorted(ck.glob("chunk-*.json"))
    assert chunks and (ck / "chunks.sha256").is_file() and not list(ck.glob("*.pickle"))
    capsys.readouterr()
    marker = tmp_path / "PWNED"
    _crafted(ck / "chunk-0000001.pickle", marker)
    assert _cli(tmp_path, ck) == 2
    err = capsys.readouterr().err
    assert "chunk-0000001.pickle" in err and len(err.strip().splitlines()) == 1
    assert not marker.exists()


@pytest.mark.parametrize(("name", "content", "words"), [
    ("notes.txt", b"hello", "notes.txt is a file a checkpoint never holds"),
    ("chunk-0000001.json", b'{"not": "a result"}', "does not have the SHA-256 recorded"),
    ("chunk-9999999.json", b"{}", "chunk of job 9999999"),
])
def test_anything_unexpected_is_refused_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                name: str, content: bytes, words: str) -> None:
    ck = tmp_path / "ck"
    assert _cli(tmp_path, ck) == 0
    capsys.readouterr()
    (ck / name).write_bytes(content)
    assert _cli(tmp_path, ck) == 2
    err = capsys.readouterr().err
    assert words in err and name in err and "internal error" not in err


def test_foreign_json_with_a_matching_hash_is_refused_by_the_schema(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Even with its hash recorded (someone wrote both), JSON that is not a tally is refused,
    not an internal error (it was AttributeError, exit 3, for a foreign pickle)."""
    ck = tmp_path / "ck"
    assert _cli(tmp_path, ck) == 0
    capsys.readouterr()
    data = b'{"not": "a result"}'
    (ck / "chunk-0000001.json").write_bytes(data)
    with open(ck / "chunks.sha256", "a") as handle:
        handle.write(f"{hashlib.sha256(data).hexdigest()}  chunk-0000001.json\n")
    assert _cli(tmp_path, ck) == 2
    err = capsys.readouterr().err
    assert "chunk-0000001.json is not a chunk result" in err and "internal error" not in err


def test_a_subdirectory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ck = tmp_path / "ck"
    (ck / "sub").mkdir(parents=True)
    assert _cli(tmp_path, ck) == 2
    assert "sub is a directory a checkpoint never holds" in capsys.readouterr().err


def test_format_1_manifest_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ck = tmp_path / "ck"
    assert _cli(tmp_path, ck) == 0
    manifest = json.loads((ck / "manifest.json").read_text())
    manifest["format"] = 1
    (ck / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert _cli(tmp_path, ck) == 2
    assert "format 1: pickled chunks" in capsys.readouterr().err


def test_an_unterminated_last_hash_line_is_a_chunk_to_run_again(tmp_path: Path) -> None:
    """A run killed while appending a hash line leaves it cut short: that chunk runs again and
    the report is the uninterrupted one."""
    ck = tmp_path / "ck"
    assert _cli(tmp_path, ck) == 0
    whole = (tmp_path / "out" / "crosscheck.json").read_bytes()
    last = sorted(ck.glob("chunk-*.json"))[-1]
    lines = (ck / "chunks.sha256").read_text().splitlines()
    kept = [line for line in lines if not line.endswith(last.name)]
    (ck / "chunks.sha256").write_text("\n".join(kept) + "\n" + lines[-1][:20])
    last.unlink()
    assert _cli(tmp_path, ck) == 0
    assert (tmp_path / "out" / "crosscheck.json").read_bytes() == whole


def test_tally_json_round_trip_keeps_the_report(tmp_path: Path) -> None:
    """A tally with UNEXPECTED differences, a non-finite marker and every kind of count, through
    JSON and back, builds the same report bytes (JUnit's bare NaN included)."""
    def nan_bleu(hypotheses: object, references: object, max_order: int = 4) -> float:
        return math.nan

    impl = register(wrap("impl:test:nan-checkpoint", nan_bleu, signature="tokens->score"))
    cases = {"bleu-corpus-compute": 12}
    tally = run_crosscheck(seed=4, cases=cases, real_sets=(), workers=1,
                           implementations=("ours", "nltk/as_called", impl), shrink_unexpected=False)
    assert tally.unexpected and tally.kinds
    again = tally_from_json(json.loads(json.dumps(tally_to_json(tally))))

    def text(t: object) -> str:
        return dumps_js(build_report(t, seed=4, cases=cases, versions={}, implementations=(
            "ours", "nltk/as_called", impl)))  # type: ignore[arg-type]

    assert text(again) == text(tally)
    assert repr(again.unexpected[0].library_value) == "NaN"


def test_checkpoint_class_refuses_a_stray_file_before_reading(tmp_path: Path) -> None:
    (tmp_path / "chunk-0000000.pickle").write_bytes(b"not even a pickle")
    with pytest.raises(CheckpointError, match="chunk-0000000.pickle"):
        Checkpoint(tmp_path, {"a": 1}, 3)
