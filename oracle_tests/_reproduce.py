"""Test helper: a library output is explained only when its dialect reproduces it."""

from __future__ import annotations

from typing import Any

from bleu_compat import catalog
from bleu_compat.harness.truth import truth


def assert_reproduced(library: str, mode: str, tool_id: str, request: dict[str, Any],
                      output: dict[str, Any], *, including: str | None = None) -> tuple[str, ...]:
    """Assert the dialect reproduces ``output`` bit for bit; return the entry set.

    ``including``: an entry id that must be part of the reproducing set.
    """
    rep = catalog.classify(library, mode, tool_id, request, truth(tool_id, request).expected, output)
    assert rep.explained, (f"UNEXPECTED: fields {rep.unreproduced} not reproduced; nearest "
                           f"{rep.nearest}: {rep.nearest_output} vs {output}")
    assert rep.entries is not None
    if including is not None:
        assert including in rep.entries, (including, rep.entries)
    return rep.entries
