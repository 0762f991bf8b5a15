"""`bleu-compat crosscheck` and `gate`: exit codes, reports, and failure on a planted bug."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from bleu_compat.cli import main

ARGS = ["--cases", "15", "--tools", "bleu-brevity-penalty", "--no-real", "--workers", "1", "--no-progress"]


def _plant(monkeypatch: pytest.MonkeyPatch) -> None:
    """closest reference length ties go to the longer reference (a planted core bug)."""
    import bleu_compat.tools as tools

    def longer_ties(request: dict[str, Any]) -> dict[str, Any]:
        segs = request["segments"]
        closest = [min(s["reference_lengths"], key=lambda v: (abs(v - s["candidate_length"]), -v)) for s in segs]
        c, r = sum(s["candidate_length"] for s in segs), sum(closest)
        bp = 0.0 if c == 0 else 1.0 if c > r else math.exp(1 - r / c)
        return {"candidate_length": c, "reference_length": r, "closest_reference_lengths": closest,
                "brevity_penalty": bp}

    monkeypatch.setitem(tools._RUNNERS, "bleu-brevity-penalty", longer_ties)


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    """An unknown tool or a negative count is a usage error."""
    assert main(["crosscheck", "--tools", "nope", "--out", str(tmp_path)]) == 2
    assert main(["crosscheck", "--cases", "-1", "--out", str(tmp_path)]) == 2
    assert main(["gate", "--baseline", str(tmp_path / "missing.json")]) == 2


def test_crosscheck_writes_reports(tmp_path: Path) -> None:
    """A small run writes the three reports plus timing; the JSON names the library versions."""
    rc = main(["crosscheck", *ARGS, "--out", str(tmp_path)])
    report = json.loads((tmp_path / "crosscheck.json").read_text())
    assert rc == (1 if report["unexpected_count"] else 0)
    assert report["versions"]["sacrebleu"] and report["versions"]["nltk"]
    for name in ("crosscheck.md", "crosscheck.junit.xml", "crosscheck.timing.json"):
        assert (tmp_path / name).is_file()


def test_planted_bug_fails_crosscheck_and_gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ties going to the longer reference, crosscheck exits 1 with a shrunk reproducer,
    and the gate against a clean baseline fails."""
    clean = tmp_path / "clean"
    main(["crosscheck", *ARGS, "--out", str(clean)])
    baseline = tmp_path / "baseline.json"
    assert main(["gate", "--baseline", str(baseline), "--report", str(clean / "crosscheck.json"), "--update"]) == 0
    assert main(["gate", "--baseline", str(baseline), "--report", str(clean / "crosscheck.json")]) == \
        (1 if json.loads((clean / "crosscheck.json").read_text())["unexpected_count"] else 0)
    _plant(monkeypatch)
    bad = tmp_path / "bad"
    assert main(["crosscheck", *ARGS, "--out", str(bad)]) == 1
    report = json.loads((bad / "crosscheck.json").read_text())
    ours = [u for u in report["unexpected"] if u["implementation"] == "ours"]
    assert ours and any(u["field"] == "closest_reference_lengths" for u in ours)
    repro = next(u for u in ours if u["field"] == "closest_reference_lengths")["reproducer"]
    # Shrunk from 9 segments; hypothesis keeps a segment with a tie (not always a single one).
    assert len(repro["segments"]) <= 2
    assert any(len(set(s["reference_lengths"])) >= 2 for s in repro["segments"])
    assert "bleu-compat run bleu-brevity-penalty" in (bad / "crosscheck.md").read_text()
    assert main(["gate", "--baseline", str(baseline), "--report", str(bad / "crosscheck.json")]) == 1


class TestRefusedBeforeRunning:
    """Bad arguments are refused (exit 2, one line) before any case runs."""

    def test_unwritable_out(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """--out under a regular file cannot be created: exit 2, no internal error."""
        blocker = tmp_path / "file"
        blocker.write_text("x")
        assert main(["crosscheck", "--cases", "1", "--no-real", "--out", str(blocker / "out")]) == 2
        err = capsys.readouterr().err
        assert "cannot write reports" in err and "internal error" not in err

    def test_nothing_to_check(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--cases 0 --invalid 0 --no-real would check nothing: a usage error, not a green run."""
        assert main(["crosscheck", "--cases", "0", "--invalid", "0", "--no-real"]) == 2
        assert "nothing to check" in capsys.readouterr().err

    @pytest.mark.parametrize("baseline", [
        {"format": "bleu-compat-baseline/1", "kinds": "oops"},
        {"format": "bleu-compat-baseline/1", "seed": 0, "cases": {"bleu-corpus-compute": 1},
         "versions": {}, "unexpected_count": -1, "kinds": [], "real_scores": {}},
        {"format": "bleu-compat-baseline/1", "seed": 0, "cases": {"no-such-tool": 1},
         "versions": {}, "unexpected_count": 0, "kinds": [], "real_scores": {}},
        {"format": "other", "seed": 0, "cases": {"bleu-corpus-compute": 1},
         "versions": {}, "unexpected_count": 0, "kinds": [], "real_scores": {}},
    ])
    def test_malformed_baseline(self, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                baseline: dict[str, Any]) -> None:
        """A baseline that does not match the baseline schema is refused, not half-read."""
        path = tmp_path / "baseline.json"
        path.write_text(json.dumps(baseline))
        assert main(["gate", "--baseline", str(path)]) == 2
        assert "is not a valid bleu-compat-baseline/1 baseline" in capsys.readouterr().err

    def test_update_into_unwritable_place(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """gate --update refuses a baseline path it cannot write before running."""
        blocker = tmp_path / "file"
        blocker.write_text("x")
        assert main(["gate", "--baseline", str(blocker / "b.json"), "--update"]) == 2
        assert "cannot write" in capsys.readouterr().err

    def test_report_from_another_run(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A --report made with other settings than the baseline cannot be compared with it."""
        out = tmp_path / "run"
        assert main(["crosscheck", "--cases", "2", "--no-real", "--no-progress", "--seed", "7",
                     "--out", str(out)]) == 0
        capsys.readouterr()
        repo = Path(__file__).resolve().parent.parent
        assert main(["gate", "--baseline", str(repo / "reports" / "baseline.json"),
                     "--report", str(out / "crosscheck.json")]) == 2
        assert "cannot be compared" in capsys.readouterr().err


@pytest.mark.parametrize("args,needle", [
    (["--cases", "99999999999999999999"],
     "argument --cases: must be a whole number from 0 to 100,000,000; got '99999999999999999999'"),
    (["--workers", "100000"], "argument --workers: must be a whole number from 1 to 256; got '100000'"),
    (["--invalid", "-1"], "argument --invalid: must be a whole number from 0 to 100,000,000; got '-1'"),
])
def test_run_size_is_bounded(capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    """A typo in the run's size is refused at once (10**20 cases once hung; 100,000 workers
    started 100,000 processes)."""
    assert main(["crosscheck", "--no-real", *args]) == 2
    assert needle in capsys.readouterr().err
