"""Command ``bigram``: the "BLEU up to bigrams" text protocol (SPEC.md section 6)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bleu_compat.cli.usage import report_usage_errors
from bleu_compat.bigram import BigramInputError, run_bigram_protocol

__all__ = ["register", "cmd_bigram", "MAX_INPUT_BYTES"]

#: The most bytes read from standard input: the tools' largest request (16 MiB).
#: Reading stops there, so ``bigram < /dev/zero`` or a corpus piped in by mistake is
#: refused instead of filling memory (about 33 bytes of memory per input byte).
MAX_INPUT_BYTES = 16 * 1024 * 1024


def register(subparsers: Any) -> None:
    """Add the ``bigram`` command."""
    p = subparsers.add_parser(
        "bigram", help="BLEU up to bigrams, text protocol on standard input",
        description=(
            "Read the candidate (line 1), the number of references R (line 2) and R "
            "reference lines from standard input; print BLEU with max_order 2 rounded to "
            "4 places (e.g. 0.7071). Bad input (also input over 16 MiB, or a usage error): "
            "one line on standard error, exit 2."
        ),
    )
    p.set_defaults(func=cmd_bigram)
    report_usage_errors(p)  # SPEC.md section 6: one line on standard error, exit 2


def cmd_bigram(args: argparse.Namespace) -> int:
    if sys.stdin is None:  # started with standard input closed (`<&-`)
        print("bleu-compat bigram: standard input is closed; send the lines on standard input",
              file=sys.stderr)
        return 2
    try:
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        print(f"bleu-compat bigram: cannot read standard input: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if len(data) > MAX_INPUT_BYTES:
        print(f"bleu-compat bigram: input is larger than {MAX_INPUT_BYTES} bytes (16 MiB); the "
              "protocol holds one candidate and its references", file=sys.stderr)
        return 2
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        print(f"bleu-compat bigram: input is not UTF-8 (byte offset {exc.start})", file=sys.stderr)
        return 2
    if text.startswith("\ufeff"):
        # Kept, as `score` keeps it (a token is whatever the line holds), but never silently:
        # the first word then matches only a reference word that has it too.
        print("bleu-compat bigram: line 1 starts with a U+FEFF byte order mark; it is kept as "
              "part of the first word (as in `bleu-compat score`), so that word matches no "
              "reference word without it", file=sys.stderr)
    try:
        print(run_bigram_protocol(text))
    except BigramInputError as exc:
        print(f"bleu-compat bigram: {exc}", file=sys.stderr)
        return 2
    return 0
