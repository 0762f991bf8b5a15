"""Report writers: deterministic JSON, Markdown and JUnit with the reproducer of an UNEXPECTED case."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

import pytest

from _planted import plant_brevity_penalty_one_ulp_low

from bleu_compat.harness.report import build_report, to_junit, to_markdown
from bleu_compat.harness.run import run_crosscheck, ulp_bucket

CASES = {"bleu-brevity-penalty": 20}


_plant = plant_brevity_penalty_one_ulp_low


def _report() -> dict[str, Any]:
    tally = run_crosscheck(seed=0, cases=CASES, implementations=("ours",), real_sets=(), workers=1)
    return build_report(tally, seed=0, cases=CASES, versions={"sacrebleu": "x", "nltk": "y"})


def test_ulp_buckets() -> None:
    """Bucket edges: 0, 1, 2, 3-4, ..., >1024."""
    assert [ulp_bucket(u) for u in (0, 1, 2, 3, 4, 5, 1024, 1025)] == [
        "0", "1", "2", "3-4", "3-4", "5-8", "65-1024", ">1024"]


def test_clean_run_reports_nothing_unexpected() -> None:
    """Without a planted bug ours agrees on every case; the JUnit has no failure."""
    report = _report()
    assert report["unexpected_count"] == 0
    assert report["summary"]["bleu-brevity-penalty"]["ours"]["agree"] == 20
    assert ET.fromstring(to_junit(report)).find(".//failure") is None
    assert "None: every difference is reproduced bit for bit" in to_markdown(report)


def test_planted_bug_reported_with_reproducer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-ULP bug in ours is UNEXPECTED in all three writers, with a runnable reproducer."""
    _plant(monkeypatch)
    report = _report()
    assert report["unexpected_count"] > 0
    u = report["unexpected"][0]
    assert u["implementation"] == "ours" and u["field"] == "brevity_penalty" and u["ulps"] == 1
    assert len(u["reproducer"]["segments"]) == 1  # shrunk
    assert u["command"].startswith("bleu-compat run bleu-brevity-penalty <<'EOF'")
    assert u["command"] in to_markdown(report)
    failures = ET.fromstring(to_junit(report)).findall(".//failure")
    assert failures and "bleu-compat run" in failures[0].text


def test_report_is_deterministic() -> None:
    """Two runs with the same seed give the same JSON report."""
    assert _report() == _report()
