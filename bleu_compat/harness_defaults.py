"""The differential harness's default run sizes, importable without the harness.

``bleu-compat crosscheck --help`` prints them; importing
:mod:`bleu_compat.harness` for that would load Hypothesis and the truth
(about 0.3 s), so they live here and :mod:`bleu_compat.harness.run`
re-exports them. Standard library only (nothing at all).
"""

from __future__ import annotations

__all__ = ["DEFAULT_SEED", "DEFAULT_CASES", "DEFAULT_INVALID"]

#: The generator's seed in the default run.
DEFAULT_SEED = 0
#: Generated cases per tool in the default run (2,100 in all).
DEFAULT_CASES = {"bleu-corpus-compute": 700, "bleu-smoothing-compute": 700, "bleu-brevity-penalty": 700}
#: Generated invalid requests per tool in the default run (sent to ours only).
DEFAULT_INVALID = 150
