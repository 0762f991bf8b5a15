"""The seeded generator: case ``k`` of tool ``t`` for seed ``s``, reproducibly.

Each case is drawn by the same generator functions as the hypothesis
strategies (:mod:`bleu_compat.harness.strategies`), with every choice
answered by ``random.Random(f"{seed}:{tool_id}:{case}")`` (Python seeds a
``Random`` from a ``str`` by its SHA-512, stable across platforms and
processes, unlike ``hash()``). A case therefore depends only on (seed,
tool, case number) and the generator code, not on which process runs it or
in which order; hypothesis' own seeding is per test run, not per case, so it
is not used here.

Invalid requests (one per SPEC §2 check and card limit, seeded the same way)
come from :mod:`bleu_compat.harness.invalid`; :func:`generate_invalid_case`
is re-exported here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bleu_compat.tools import validate_request

from .invalid import InvalidCase, generate_invalid_case
from .strategies import GENERATORS, RandomSource

__all__ = ["Case", "generate_case", "generate_cases", "InvalidCase", "generate_invalid_case"]


@dataclass(frozen=True)
class Case:
    """One generated request.

    Attributes:
        tool_id: the card.
        case: the case number within the run (0-based).
        seed: the run's seed.
        request: a valid card request (passed ``validate_request``).
    """

    tool_id: str
    case: int
    seed: int
    request: dict[str, Any]

    @property
    def case_id(self) -> str:
        """``"<tool_id>#<case>"``, unique within a run."""
        return f"{self.tool_id}#{self.case}"


def generate_case(seed: int, tool_id: str, case: int) -> Case:
    """Case number ``case`` of ``tool_id`` for ``seed``.

    Raises:
        KeyError: unknown tool.
        ToolError: the generator produced an invalid request (a harness bug).
    """
    rng = random.Random(f"{seed}:{tool_id}:{case}")
    request = GENERATORS[tool_id](RandomSource(rng))
    return Case(tool_id, case, seed, validate_request(tool_id, request))


def generate_cases(seed: int, tool_id: str, count: int, start: int = 0) -> list[Case]:
    """Cases ``start .. start + count - 1`` of ``tool_id`` for ``seed``."""
    return [generate_case(seed, tool_id, k) for k in range(start, start + count)]
