"""The built wheel carries what the installed commands read at run time."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# pytest-xdist: one worker runs this module (the wheel is built once)
pytestmark = pytest.mark.xdist_group("test_packaging")

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



def test_pyproject_lists_every_package() -> None:
    """Every directory of bleu_compat/ with an __init__.py is in pyproject's package list.

    The list is explicit (``bleu_compat.bundled`` maps ``fixtures/real``). A missing
    subpackage still works in an editable install, and setuptools today copies it into
    the wheel "as data" with a deprecation warning; a later setuptools drops it.
    """
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts)
             for p in (REPO / "bleu_compat").rglob("__init__.py")}
    assert found, "no package found under bleu_compat/"
    assert sorted(found - listed) == []
