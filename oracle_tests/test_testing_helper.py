"""bleu_compat.testing.assert_bleu_parity: fails with the shrunk reproducer and the explanation.

A user's own test file (the README's three lines) runs under a separate pytest
process, so its failure is observed from outside as a user would see it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bleu_compat.implementations import ImplementationError
from bleu_compat.testing import assert_bleu_parity

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

sys.path.insert(0, str(EXAMPLES))
import correct_bleu  # noqa: E402
import flawed_bleu  # noqa: E402


def _user_suite(tmp_path: Path, module: str, name: str) -> subprocess.CompletedProcess[str]:
    test = tmp_path / f"test_user_{module}_{name}.py"
    test.write_text(textwrap.dedent(f"""
        from bleu_compat.testing import assert_bleu_parity
        from {module} import {name}

        def test_my_bleu():
            assert_bleu_parity({name}, "tokens->score", scale="0-1")
    """), encoding="utf-8")
    env_path = str(EXAMPLES)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**__import__("os").environ, "PYTHONPATH": env_path})


def test_user_suite_fails_on_flawed(tmp_path: Path) -> None:
    """A user's test of the flawed example fails, printing the minimal request ("a a" against
    the references "a" and "a", unigrams), yours 1 against the card's 1/2, and UNEXPECTED."""
    proc = _user_suite(tmp_path, "flawed_bleu", "bleu")
    assert proc.returncode == 1, proc.stdout
    assert "1 failed" in proc.stdout
    assert ('minimal request: {"hypotheses":[["a","a"]],"references":[[["a"],["a"]]],"max_order":1}'
            in proc.stdout)
    assert "bleu: yours 1, card 0.5" in proc.stdout
    assert "UNEXPECTED: no known dialect" in proc.stdout


def test_user_suite_passes_on_correct(tmp_path: Path) -> None:
    """The same three lines pass on the correct example."""
    proc = _user_suite(tmp_path, "correct_bleu", "bleu")
    assert proc.returncode == 0, proc.stdout
    assert "1 passed" in proc.stdout


def test_known_dialect_named() -> None:
    """The NLTK-like floor fails with the entry that reproduces it and the dialect's name."""
    with pytest.raises(AssertionError) as info:
        assert_bleu_parity(flawed_bleu.bleu_floor)
    message = str(info.value)
    assert "reproduced bit for bit by the nltk/as_called dialect with NLTK-DENOMINATOR-FLOOR" in message
    assert "NLTK floors each segment's n-gram total at 1" in message


def test_allow_accepts_a_known_divergence() -> None:
    """allow= with the reproducing entry accepts the floor; allowing another entry does not."""
    assert_bleu_parity(flawed_bleu.bleu_floor, allow=["NLTK-DENOMINATOR-FLOOR"])
    with pytest.raises(AssertionError):
        assert_bleu_parity(flawed_bleu.bleu_floor, allow=["NLTK-FLOAT-ORDER"])
    with pytest.raises(AssertionError):  # an allow list never hides an UNEXPECTED difference
        assert_bleu_parity(flawed_bleu.bleu, allow=["NLTK-DENOMINATOR-FLOOR"])


def test_correct_passes_in_process() -> None:
    """The correct example passes (declared by decorator, no signature argument needed)."""
    assert_bleu_parity(correct_bleu.bleu, max_examples=100)


def test_undeclared_callable_refused() -> None:
    """A callable with no declaration and no signature argument is refused, saying how to declare."""
    with pytest.raises(ImplementationError, match="declares no signature"):
        assert_bleu_parity(lambda h, r: 0.0)
