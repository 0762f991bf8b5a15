"""Markdown output: a table whose first row is the header (numbers right-aligned)."""

from __future__ import annotations

__all__ = ["markdown_table"]


def markdown_table(rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(rows[0]) + " |", "|---" + "|---:" * (len(rows[0]) - 1) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows[1:]]
    return "\n".join(out)
