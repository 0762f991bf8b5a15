"""JSON from the commands that print results: ``gate --format json``, ``catalog --format json``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bleu_compat.catalog import ENTRIES

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bleu_compat", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_catalog_json() -> None:
    """catalog --format json lists every entry, in catalog order, with its reproducer and values."""
    proc = _run("catalog", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["format"] == "bleu-compat-catalog/1"
    assert [e["id"] for e in doc["entries"]] == [e.id for e in ENTRIES]
    for got, entry in zip(doc["entries"], ENTRIES):
        assert got["reproducer"] == entry.reproducer
        assert got["card_value"] == entry.card_value and got["library"] == entry.library
        assert got["command"].startswith(f"bleu-compat run {entry.tool_id} <<'EOF'\n")


def test_catalog_json_check_refused() -> None:
    """--check compares the Markdown file: with --format json it is a usage error (exit 2),
    answered as JSON (the format asked for) on standard output."""
    proc = _run("catalog", "--format", "json", "--check")
    assert proc.returncode == 2 and proc.stderr == ""
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "usage_error" and "--check" in error["message"]


@pytest.fixture(scope="module")
def crosscheck_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cc")
    proc = _run("crosscheck", "--cases", "15", "--invalid", "0", "--no-real", "--workers", "1",
                "--no-progress", "--no-html", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out / "crosscheck.json"


def test_gate_json_pass_and_fail(crosscheck_report: Path, tmp_path: Path) -> None:
    """gate --format json: "pass" (exit 0) against its own baseline; "fail" (exit 1) with the
    vanished kind named when the baseline lists one more kind."""
    baseline = tmp_path / "b.json"
    proc = _run("gate", "--baseline", str(baseline), "--report", str(crosscheck_report), "--update",
                "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "updated"
    proc = _run("gate", "--baseline", str(baseline), "--report", str(crosscheck_report), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["format"], doc["result"], doc["problems"], doc["unexpected_count"]) == (
        "bleu-compat-gate/1", "pass", [], 0)
    data = json.loads(baseline.read_text())
    data["kinds"].append("bleu-corpus-compute | ours | bleu | NOT-A-REAL-ENTRY")
    baseline.write_text(json.dumps(data))
    proc = _run("gate", "--baseline", str(baseline), "--report", str(crosscheck_report), "--format", "json")
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["result"] == "fail"
    assert doc["problems"] == ["- known divergence disappeared: bleu-corpus-compute | ours | bleu | "
                               "NOT-A-REAL-ENTRY"]
