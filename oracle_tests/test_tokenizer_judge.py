"""The judge runs every tokenizer bleu-compat ships against its peer (issue 36, item 3).

The expected tokens are the installed sacreBLEU's (the real library, run here); each planted
tokenizer bug of the issue is applied to a copy of the package by ``tools/mutate.py`` (the C
kernel's compiled there) and must make the crosscheck exit 1 with an UNEXPECTED difference on
a short line holding what the bug breaks.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bleu_compat.harness.tokenizer_check import check_all, corpus

pytest.importorskip("sacrebleu")

ROOT = Path(__file__).resolve().parent.parent


def _mutate_module():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("bleu_compat_mutate_tool", ROOT / "tools" / "mutate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _sacrebleu_tokens(name: str, line: str, lowercase: bool = False) -> list[str]:
    from sacrebleu.metrics.bleu import BLEU

    return BLEU(tokenize=name, lowercase=lowercase)._preprocess_segment(line).split()


def test_the_corpus_holds_what_each_rule_acts_on() -> None:
    lines = corpus()
    text = "\n".join(lines)
    for needle in ("km/h", "<skipped>", "&amp;quot;", "&quot;", "1,000", "3-4", "2023."):
        assert any(needle in line for line in lines), needle
    for c in range(0x110000):
        ch = chr(c)
        if ch.isspace() and ch != "\n":
            assert ch in text, hex(c)
    for c in [*range(0x2000, 0x2070), *range(0x3000, 0x3040)]:
        assert chr(c) in text, hex(c)
    assert all("\n" not in line and not line.endswith("\r") for line in lines)


def test_every_shipped_tokenizer_is_judged_and_agrees() -> None:
    """Unchanged, every path of every tokenizer that runs here gives sacreBLEU's tokens on the
    whole corpus; the ones that cannot run are listed with the reason."""
    from bleu_compat.tokenizers import segmenters
    from bleu_compat.tokenizers.block import kernel

    result = check_all()
    assert result["findings"] == []
    checked = {c["tokenizer"]: c for c in result["checked"]}
    assert {"none", "none -lc", "13a", "13a -lc", "intl", "zh", "char"} <= set(checked)
    for c in checked.values():
        assert c["same"] and c["lines"] == len(corpus())
        assert {"reference", "block"} <= set(c["paths"])
    if kernel() is not None:
        assert "C kernel counts" in checked["none"]["paths"]
    for name in ("ja-mecab", "ko-mecab", "flores101", "flores200", "spm", "spBLEU-1K"):
        listed = name in checked or any(n["tokenizer"] == name for n in result["not_checked"])
        assert listed, name
        assert (name in checked) == segmenters.available(name) or name not in checked
    assert all(n["why"] for n in result["not_checked"])


@pytest.mark.parametrize("mutant, tokenizer, trigger", [
    ("13a-slash-not-split", "13a", "/"),
    ("13a-skipped-kept", "13a", "<skipped>"),
    ("13a-entities-order", "13a", "&amp;quot;"),
    ("intl-general-punctuation-dropped", "intl", None),
    ("zh-cjk-symbols-shifted", "zh", None),
    ("none-fast-u3000-not-whitespace", "none", "\u3000"),
])
def test_each_planted_tokenizer_bug_fails_the_crosscheck(mutant: str, tokenizer: str, trigger: str | None,
                                                        tmp_path: Path) -> None:
    """The crosscheck on a copy with the bug planted exits 1, an UNEXPECTED tokens difference of
    that tokenizer on a short line holding what the bug breaks, sacreBLEU's tokens beside ours."""
    if mutant.startswith("none-fast") and not shutil.which((os.environ.get("CC") or "cc").split()[0]):
        pytest.skip("no C compiler to build the mutated kernel")
    mutate = _mutate_module()
    m = next(x for x in mutate.MUTANTS if x.name == mutant)
    mutate._copy_package(tmp_path)
    mutate.apply(m, tmp_path)
    env = dict(os.environ, PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "bleu_compat", "crosscheck", "--tools",
                           "bleu-brevity-penalty", "--cases", "100", "--invalid", "0", "--no-real",
                           "--workers", "1", "--no-progress", "--no-html", "--out", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads((out / "crosscheck.json").read_text())
    mine = [u for u in report["unexpected"] if u["implementation"] == f"ours/{tokenizer}"]
    assert mine, [u["implementation"] for u in report["unexpected"]]
    for u in mine:
        line = u["request"]["line"]
        assert len(line) <= len(trigger or "") + 3, line
        if trigger is not None:
            assert trigger in line, line
        assert u["card_value"] == _sacrebleu_tokens(tokenizer, line)  # sacreBLEU's, run here
        assert u["library_value"] != u["card_value"]
        assert f"UNEXPECTED tokenizer:{tokenizer} " in proc.stdout
    if mutant == "none-fast-u3000-not-whitespace":  # the compiled split only
        assert {u["request"]["path"].split(",")[0] for u in mine} == {"C kernel counts"}
    if mutant == "intl-general-punctuation-dropped":
        assert 0x2010 <= ord(mine[0]["request"]["line"].strip("ab12xy ")[0]) <= 0x2027
    if mutant == "zh-cjk-symbols-shifted":
        assert any(ch in mine[0]["request"]["line"] for ch in ("\u3040", "\u3000"))
