"""The user's own Moses ``tokenizer.perl``, run to check our ``moses`` tokenization against it.

Our tokenizer (:mod:`bleu_compat.tokenizers.moses`) is what scores; the real script is the
judge of its tokens, as the installed sacreBLEU is of our 13a (issue 32). It is found
beside the other Moses scripts: ``$BLEU_COMPAT_MOSES_SCRIPTS`` names mosesdecoder's
``scripts/generic`` (where multi-bleu.perl is), so the tokenizer is
``$BLEU_COMPAT_MOSES_SCRIPTS/../tokenizer/tokenizer.perl``; a directory holding
``tokenizer/tokenizer.perl`` (``scripts`` itself) or ``tokenizer.perl`` is taken too. The
script reads its nonbreaking prefixes from its own ``../share/nonbreaking_prefixes``.

It runs as every Perl script here does (:func:`bleu_compat.libraries.perl_runner.run_perl`:
arguments, never a shell; bounded in CPU time): ``perl tokenizer.perl -q -l LANG [-a]
< FILE``. Its release is its SHA-256: the one our rules follow
(:data:`bleu_compat.tokenizers.moses.TOKENIZER_PERL_SHA256`, mosesdecoder ``75d4c672``), or
``unknown-<sha256[:12]>``, checked all the same.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

__all__ = ["ENV", "script_path", "release_label", "run_lines", "check_tokens", "not_found_reason"]

#: the directory holding the Moses scripts (mosesdecoder's scripts/generic), as for multi-bleu.perl
ENV = "BLEU_COMPAT_MOSES_SCRIPTS"


def _candidates(folder: str) -> list[Path]:
    base = Path(folder)
    return [base / ".." / "tokenizer" / "tokenizer.perl", base / "tokenizer" / "tokenizer.perl",
            base / "tokenizer.perl"]


def script_path() -> Path | None:
    """The user's tokenizer.perl (see the module docstring), or None when there is none."""
    folder = os.environ.get(ENV, "").strip()
    if not folder:
        return None
    return next((p.resolve() for p in _candidates(folder) if p.is_file()), None)


def not_found_reason() -> str:
    """Why :func:`script_path` found nothing, in one sentence."""
    folder = os.environ.get(ENV, "").strip()
    if not folder:
        return (f"{ENV} is not set (the directory of mosesdecoder's scripts/generic; the "
                "tokenizer is its ../tokenizer/tokenizer.perl)")
    return (f"{ENV}={folder} has no ../tokenizer/tokenizer.perl, tokenizer/tokenizer.perl or "
            "tokenizer.perl")


def release_label(path: str | Path) -> str:
    """``mosesdecoder 75d4c672`` for the release our rules follow, else ``unknown-<sha[:12]>``."""
    from bleu_compat.libraries.perl_runner import sha256_of
    from bleu_compat.tokenizers.moses import MOSES_COMMIT, TOKENIZER_PERL_SHA256

    sha = sha256_of(path)
    return f"mosesdecoder {MOSES_COMMIT[:8]}" if sha == TOKENIZER_PERL_SHA256 else f"unknown-{sha[:12]}"


def run_lines(path: str | Path, lines: Sequence[str], name: str) -> list[str]:
    """What the script prints for ``lines`` (each written with a line feed), one string per
    line, under the Moses tokenization ``name`` (``moses-de``: ``-l de``; ``moses-a-de``: ``-a``).

    Raises:
        ScriptError: perl is missing, the run fails or prints another number of lines.
        ConfigError: ``name`` is not a Moses name.
    """
    from bleu_compat.libraries.perl_runner import ScriptError, check_script_path, run_perl
    from bleu_compat.tokenizers.moses import tokenizer_for

    tok = tokenizer_for(name)
    check_script_path(str(path))
    args = ["-q", "-l", tok.language] + (["-a"] if tok.aggressive else []) \
        + ([] if tok.escape else ["-no-escape"])
    with tempfile.TemporaryDirectory(prefix="bleu-compat-tok-") as d:
        source = os.path.join(d, "in.txt")
        with open(source, "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(line + "\n" for line in lines))
        # tokenizer.perl finds its prefixes from its own place ($RealBin/../share): it runs
        # from a private copy of the verified bytes, beside a link to the user's share folder;
        # it prints its input again (escaped, spaced): the cap follows the input's size
        size = os.path.getsize(source)
        result = run_perl(path, args, cwd=d, stdin=source,
                          beside={"share": Path(path).resolve().parent.parent / "share"},
                          max_output=max(1 << 20, 4 * size + (1 << 16)))
    if result.status != 0:
        first = next((x for x in result.stderr.splitlines() if x.strip()), "")
        raise ScriptError(f"{path}: exit status {result.status}: {first[:200]}")
    out = result.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(lines):
        raise ScriptError(f"{path}: printed {len(out)} lines for {len(lines)}")
    return out


def check_tokens(sources: Iterable[tuple[str, Sequence[str]]], name: str,
                 path: str | Path | None = None) -> object | None:
    """The first line where the real tokenizer.perl's output differs from ours, or None.

    Args:
        sources: ``(label, lines)`` per file (lines without their line feeds).
        name: the Moses tokenization (``moses-de`` ...).
        path: the script (default :func:`script_path`).

    Returns:
        A :class:`bleu_compat.tokenizers.check.TokenMismatch` (``library`` "tokenizer.perl",
        ``theirs`` the script's tokens) or None when every line is the same.

    Raises:
        ScriptError, OracleUnavailableError: the script cannot run (or there is none).
    """
    from bleu_compat.errors import OracleUnavailableError
    from bleu_compat.tokenizers.check import TokenMismatch
    from bleu_compat.tokenizers.moses import MOSES_COMMIT, tokenizer_for

    script = path if path is not None else script_path()
    if script is None:
        raise OracleUnavailableError(f"tokenizer.perl is not there: {not_found_reason()}")
    label = release_label(script)
    ours_of = tokenizer_for(name).line
    for source, lines in sources:
        lines = list(lines)
        theirs = run_lines(script, lines, name)
        for k, (line, their) in enumerate(zip(lines, theirs)):
            ours = ours_of(line)
            if ours != their:
                return TokenMismatch("tokenizer.perl", name, False, label,
                                     f"bleu-compat's {name}, tokenizer.perl {MOSES_COMMIT[:8]}'s "
                                     "rules", source, k + 1, line, tuple(ours.split()),
                                     tuple(their.split()))
    return None
