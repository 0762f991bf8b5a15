"""The built wheel carries what the installed commands read at run time."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """A wheel built from the source tree (the build backend comes from the package index)."""
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(out), str(REPO)],
        capture_output=True, text=True, timeout=300,
    )
    if proc.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{proc.stdout}\n{proc.stderr}")
    (path,) = out.glob("bleu_compat-*.whl")
    return zipfile.ZipFile(path)


def test_wheel_has_the_cards(wheel: zipfile.ZipFile) -> None:
    """The three cards ship as package data (execute reads them)."""
    names = set(wheel.namelist())
    for tool_id in ("bleu-corpus-compute", "bleu-smoothing-compute", "bleu-brevity-penalty"):
        assert f"bleu_compat/cards/{tool_id}.json" in names


def test_wheel_has_every_bundled_real_corpus(wheel: zipfile.ZipFile) -> None:
    """Every file crosscheck and gate read from fixtures/real is in the wheel, byte for byte."""
    from bleu_compat.harness.run import REAL_SETS

    for real in REAL_SETS:
        for name in (real.hypothesis, *real.references):
            source = REPO / "fixtures" / "real" / real.name / name
            assert wheel.read(f"bleu_compat/bundled/{real.name}/{name}") == source.read_bytes()


def test_wheel_has_every_module_of_the_source_tree(wheel: zipfile.ZipFile) -> None:
    """Every .py under bleu_compat/ is in the wheel (pyproject lists packages one by one).

    A new subpackage missing from ``[tool.setuptools] packages`` works in an editable
    install, so the tests pass, and is absent after README's ``pip install .``.
    """
    names = set(wheel.namelist())
    source = sorted(p.relative_to(REPO).as_posix()
                    for p in (REPO / "bleu_compat").rglob("*.py"))
    assert source, "no module found under bleu_compat/"
    missing = [name for name in source if name not in names]
    assert missing == []
