"""Shared test configuration: Hypothesis profiles and paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The contract folder ``../shared``; tests that need it skip without it."""
    if not (SHARED / "SPEC.md").is_file():
        pytest.skip(f"../shared is absent ({SHARED}): the contract's data is not on this machine")
    return SHARED
