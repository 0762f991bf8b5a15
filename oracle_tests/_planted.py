"""Planted core bugs the harness tests must catch (shared by several test files)."""

from __future__ import annotations

import math
from typing import Any

import pytest


def plant_brevity_penalty_one_ulp_low(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ours' bleu-brevity-penalty return a BP one ULP below the card's (when 0 < BP < 1)."""
    import bleu_compat.tools as tools

    real = tools._RUNNERS["bleu-brevity-penalty"]

    def off_by_one_ulp(request: dict[str, Any]) -> dict[str, Any]:
        out = real(request)
        if 0 < out["brevity_penalty"] < 1:
            out["brevity_penalty"] = math.nextafter(out["brevity_penalty"], 0)
        return out

    monkeypatch.setitem(tools._RUNNERS, "bleu-brevity-penalty", off_by_one_ulp)
