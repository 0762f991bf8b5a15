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
