"""The run-time check: an installed library's tokens against ours, for its release.

Where bleu-compat runs a library on raw text (``score --compare``'s
configurations, ``crosscheck``'s real corpora, every ``bleu-compat matrix``
environment), it also asks the library for the tokens of every line, as its
BLEU makes them (the plug-in's ``tokens`` hook,
:meth:`bleu_compat.libraries.plugin.Library.library_tokenizer`), and compares
them with our tokenizer for that release
(:func:`bleu_compat.tokenizers.get_tokenizer` with ``release``: the releases
are sacreBLEU's, whose tokenizers ours reproduce). A difference is UNEXPECTED:
our tokenizers are written from the rules, so a library whose tokenizer lost a
rule (a broken install, a patched copy, a release that changed) is reported
with the first line where the tokens differ and both token lists, never
explained away.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

__all__ = ["TokenMismatch", "first_mismatch", "check_library", "check_files", "release_of"]


@dataclass(frozen=True)
class TokenMismatch:
    """The first line where a library's tokens and ours differ.

    Attributes:
        library: the library's display name (``"sacreBLEU"``).
        tokenizer: the tokenizer name (``"13a"``, ...); lowercase: with ``-lc``.
        release: the library release that ran (its tokens are ``theirs``).
        ours_described: which of our tokenizers (e.g. the intl classes' source).
        source: the file (or a label: ``"hypotheses"``, ``"reference 2"``).
        line: 1-based line number in ``source``.
        text: the line as read (before lowercasing).
        ours, theirs: the two token lists.
    """

    library: str
    tokenizer: str
    lowercase: bool
    release: str
    ours_described: str
    source: str
    line: int
    text: str
    ours: tuple[str, ...]
    theirs: tuple[str, ...]

    def message(self, limit: int = 40) -> str:
        """One line: where, and both token lists (each cut after ``limit`` tokens, around the
        first difference)."""
        k = next((i for i, (a, b) in enumerate(zip(self.ours, self.theirs)) if a != b),
                 min(len(self.ours), len(self.theirs)))
        start = max(0, k - limit // 2)

        def shown(tokens: tuple[str, ...]) -> str:
            part = list(tokens[start:start + limit])
            return (("[..., " if start else "[") + ", ".join(map(repr, part))
                    + (", ...]" if start + limit < len(tokens) else "]"))

        who = f"{self.library} {self.release}"
        return (f"{who}'s {self.tokenizer} tokenizer{' with -lc' if self.lowercase else ''} "
                f"differs from ours ({self.ours_described}, for {who}) on line {self.line} of "
                f"{self.source}, first at token {k + 1}: {self.library} {shown(self.theirs)} "
                f"({len(self.theirs)} tokens), ours {shown(self.ours)} ({len(self.ours)} tokens)")

    def to_json(self) -> dict[str, object]:
        """The mismatch as a JSON object (``library_tokens``: the library's list)."""
        return {"library": self.library, "tokenizer": self.tokenizer, "lowercase": self.lowercase,
                "release": self.release, "ours_described": self.ours_described,
                "source": self.source, "line": self.line, "text": self.text,
                "ours": list(self.ours), "library_tokens": list(self.theirs),
                "message": self.message()}


def release_of(lib: Any) -> str:
    """The installed release of a registered library (its distribution's version)."""
    from importlib import metadata

    return metadata.version(lib.distribution)


def first_mismatch(sources: Iterable[tuple[str, Sequence[str]]], name: str, lowercase: bool,
                   release: str, theirs: Callable[[str], list[str]],
                   library: str = "the library") -> TokenMismatch | None:
    """The first line of ``sources`` whose tokens by ``theirs`` differ from ours, or None.

    Args:
        sources: ``(label, lines)`` per file, in order (lines without their ends).
        name, lowercase: the tokenizer as the library ran it.
        release: the library's release, whose tokenizer ours reproduces.
        theirs: the library's tokenizer, ``line -> tokens``.
        library: its display name, for the message.
    """
    from .block import block_token_lists
    from .releases import describe

    described = describe(name, release)
    for label, lines in sources:
        lines = list(lines)
        # ours: the whole file at once (the block path, tested equal to the reference)
        block = "".join(line + "\n" for line in lines).encode("utf-8")
        ours = block_token_lists(block, name, lowercase=lowercase, release=release)
        for k, line in enumerate(lines):
            a, b = ours[k], theirs(line)
            if a != b:
                return TokenMismatch(library, name, lowercase, release, described, label, k + 1,
                                     line, tuple(a), tuple(b))
    return None


def check_library(lib: Any, sources: Iterable[tuple[str, Sequence[str]]], name: str,
                  lowercase: bool = False) -> TokenMismatch | None:
    """:func:`first_mismatch` for a registered library (its installed release and tokens hook).

    Raises:
        LookupError: the library has no tokenizers; ImportError: it is not installed.
    """
    return first_mismatch(sources, name, lowercase, release_of(lib),
                          lib.library_tokenizer(name, lowercase), lib.display_name)


def check_files(lib: Any, paths: Sequence[tuple[str, str]], name: str,
                lowercase: bool = False) -> TokenMismatch | None:
    """:func:`check_library` on files: ``(label, path)`` pairs, read under the reading rules."""
    from ..corpus_io import read_lines

    return check_library(lib, ((label, read_lines(path).lines) for label, path in paths), name,
                         lowercase)
