"""sacreBLEU's and NLTK's outputs are byte-identical to before the plug-in redesign (issue 21).

``oracle_tests/data/redesign-outputs.json`` holds SHA-256 digests of what
``tools/output_snapshot.py --tier test`` printed and wrote on the tree before
the redesign (commit 2c82dd3): the catalog (Markdown and JSON), three
``explain`` runs, ``score --compare`` with every built-in configuration on WMT17,
a 10-case crosscheck with the three real corpora (its JSON, Markdown and JUnit
reports and its summary) and the gate on that report. The same commands run now,
with the registry restricted to sacreBLEU and NLTK (``BLEU_COMPAT_LIBRARIES``),
must print the same bytes (timings and the run's own paths aside).

The digests depend on the library releases and the Python version that printed
them (the crosscheck report names them): elsewhere the test skips, saying so.
An intended change of these outputs regenerates the manifest (the script's
``--manifest``) in a commit that says why.
"""

from __future__ import annotations

import importlib.util
import json
import platform
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = Path(__file__).resolve().parent / "data" / "redesign-outputs.json"


def _script():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("output_snapshot", ROOT / "tools" / "output_snapshot.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_outputs_identical_to_before_the_redesign(tmp_path: Path) -> None:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    try:
        now = {d: metadata.version(d) for d in manifest["versions"]}
    except metadata.PackageNotFoundError as exc:
        pytest.skip(f"{exc.name} is not installed")
    if now != manifest["versions"] or platform.python_version() != manifest["python"]:
        pytest.skip(f"the digests were printed with {manifest['versions']} on Python "
                    f"{manifest['python']}; this is {now} on Python {platform.python_version()}")
    script = _script()
    out = tmp_path / "capture"
    script.capture_test_tier(out, "sacrebleu,nltk")
    got = script.digests(out)
    want = manifest["digests"]
    assert sorted(got) == sorted(want), "the capture's files changed"
    differing = [name for name in want if got[name] != want[name]]
    shown = {name: (out / name).read_text(encoding="utf-8")[:2000] for name in differing[:3]}
    assert not differing, f"outputs differ from before the redesign: {differing}\n{shown}"


def test_digests_see_a_changed_output(tmp_path: Path) -> None:
    """The digest comparison can fail: one changed byte in a captured output changes its digest,
    and a timing does not."""
    script = _script()
    (tmp_path / "a.stdout").write_text("BLEU 28.30; wall time 26.2 s\n", encoding="utf-8")
    before = script.digests(tmp_path)
    (tmp_path / "a.stdout").write_text("BLEU 28.30; wall time 3.9 s\n", encoding="utf-8")
    assert script.digests(tmp_path) == before
    (tmp_path / "a.stdout").write_text("BLEU 28.31; wall time 3.9 s\n", encoding="utf-8")
    assert script.digests(tmp_path) != before
