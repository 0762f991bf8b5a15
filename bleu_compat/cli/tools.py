"""Command ``tools``: list the tools of the cards."""

from __future__ import annotations

import argparse
from typing import Any

from bleu_compat.cli.usage import asks_for, report_usage_errors
from bleu_compat.jsonio import dumps_js
from bleu_compat.tools import cards

__all__ = ["register", "cmd_tools"]


def register(subparsers: Any) -> None:
    """Add the ``tools`` command."""
    p = subparsers.add_parser(
        "tools", help="list the tools (id, version, description)",
        description="List the tools of the cards: id, version, description, execute_url.",
    )
    p.add_argument("--json", action="store_true", help="write the list as JSON")
    p.set_defaults(func=cmd_tools)
    # With --json every answer is JSON, a usage error included (SPEC.md section 2's shape).
    report_usage_errors(p, json=asks_for("--json"))


def cmd_tools(args: argparse.Namespace) -> int:
    rows = [
        {"id": c.id, "version": c.version, "description": c.description, "execute_url": c.execute_url}
        for c in cards().values()
    ]
    if args.json:
        print(dumps_js(rows, indent=2))
        return 0
    for row in rows:
        print(f"{row['id']}\t{row['version']}\t{row['description']}")
    return 0
