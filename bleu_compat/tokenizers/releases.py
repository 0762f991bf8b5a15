"""Which tokenizer each sacreBLEU release has: the per-release facts, measured.

Read from every release's source (tags 1.2.21 to 2.6.0) and checked by
running each release (``oracle_tests/test_matrix.py``, in the environments
``bleu-compat matrix`` builds):

* ``none``, ``13a`` and ``zh`` tokenize alike in every release (1.x collapses
  whitespace with ``re.sub(r'\\s+', ' ', ...)`` where 2.x uses
  ``' '.join(line.split())``: the same characters, so the same tokens; the zh
  ranges of sacreBLEU #298 are in every release).
* ``char`` exists from 1.4.14 on (``sacrebleu -tok char`` is refused before).
* ``intl`` changed in 2.0.0: before, its classes came from Python's
  ``unicodedata`` and ``re`` (punctuation without the backslash, "number" =
  decimal digit); from 2.0.0 on, from the ``regex`` module's ``\\p{P}``,
  ``\\p{S}``, ``\\P{N}`` (:func:`bleu_compat.tokenizers.reference.unicodedata_classes`,
  :func:`~bleu_compat.tokenizers.reference.regex_classes`). That difference is
  the catalog entry ``SACREBLEU-INTL-UNICODEDATA``.

* The segmenters (:mod:`bleu_compat.tokenizers.segmenters`) exist from the
  release that introduced each (:data:`SINCE`, read from the releases' source
  and sacreBLEU's CHANGELOG): ``ja-mecab`` 1.4.5, ``spm`` 2.1.0 (then with the
  signature ``spm-flores``; ``flores101`` from 2.3.0), ``ko-mecab`` 2.2.0,
  ``flores101`` and ``flores200`` 2.3.0, ``spBLEU-1K`` 2.6.0. Their tokens are
  MeCab's and SentencePiece's; they were compared with sacreBLEU 2.6.0 only
  (``oracle_tests/test_segmenters.py``), and every run of sacreBLEU on raw text
  compares them again (the run-time check).

A release newer than :data:`NEWEST` is taken to tokenize as :data:`NEWEST`
(and the run-time check in ``--compare`` and ``crosscheck`` says so if it
does not).
"""

from __future__ import annotations

# typing is not imported at run time (issue 34: 2 ms of every command's start-up)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

from ..errors import ConfigError
from . import reference

__all__ = ["NEWEST", "CHAR_SINCE", "INTL_REGEX_SINCE", "SINCE", "release_key", "variant",
           "tokenizer_for", "describe"]

#: the newest sacreBLEU release whose tokenizers were measured
NEWEST = "2.6.0"
#: the first release with ``char``
CHAR_SINCE = "1.4.14"
#: the first release whose ``intl`` uses the ``regex`` module's classes
INTL_REGEX_SINCE = "2.0.0"

#: sacreBLEU's tokenizers that call a segmenter (MeCab, SentencePiece), in its order: the
#: names only. :mod:`.segmenters` implements them and defines the same tuple (a test keeps
#: them equal); it is imported where one is used, so that a run without them does not pay
#: for it (issue 34: start-up).
SEGMENTERS = ("ja-mecab", "ko-mecab", "spm", "flores101", "flores200", "spBLEU-1K")

#: the first release with each tokenizer that not every release has (its CHANGELOG and source)
SINCE = {"char": CHAR_SINCE, "ja-mecab": "1.4.5", "spm": "2.1.0", "ko-mecab": "2.2.0",
         "flores101": "2.3.0", "flores200": "2.3.0", "spBLEU-1K": "2.6.0"}

NAMES = ("none", "13a", "intl", "zh", "char", *SEGMENTERS)


def release_key(release: str) -> tuple[int, ...]:
    """``"2.3.1"`` -> ``(2, 3, 1)``; the leading digits of each part (``"2.0.0rc1"`` -> (2, 0, 0)).

    Raises:
        ConfigError: not a release number.
    """
    parts = []
    for part in release.split("."):
        digits = ""
        for c in part:
            if not c.isdigit():
                break
            digits += c
        if not digits:
            raise ConfigError(f"{release!r} is not a sacreBLEU release number")
        parts.append(int(digits))
    return tuple(parts)


def variant(name: str, release: str | None = None) -> str:
    """The tokenizer ``name`` is in ``release`` (default: :data:`NEWEST`).

    Returns ``name``, or ``"intl-unicodedata"`` for ``intl`` before 2.0.0.

    Raises:
        ConfigError: unknown name, a malformed release, or a release before the tokenizer
            (:data:`SINCE`: ``char`` before 1.4.14, ...).
    """
    if name not in NAMES:
        raise ConfigError(f"tokenize={name!r} must be one of {NAMES}")
    key = release_key(release or NEWEST)
    if name in SINCE and key < release_key(SINCE[name]):
        raise ConfigError(f"sacreBLEU {release} has no {name!r} tokenizer (added in {SINCE[name]})")
    if name == "intl" and key < release_key(INTL_REGEX_SINCE):
        return "intl-unicodedata"
    return name


def tokenizer_for(name: str, release: str | None = None) -> Callable[[str], list[str]]:
    """The reference tokenizer (one line -> tokens, no lowercasing, no ``rstrip``) of ``release``."""
    v = variant(name, release)
    if v == "intl-unicodedata":
        classes = reference.unicodedata_classes()
        return classes.tokens
    if v in SEGMENTERS:
        from .segmenters import segmenter

        return segmenter(v)
    return {"none": reference.none, "13a": reference.mteval_13a, "intl": reference.intl,
            "zh": reference.zh, "char": reference.char}[v]


def describe(name: str, release: str | None = None) -> str:
    """``"intl (classes of regex 2026.11.19 (Unicode 18.0.0))"`` and the like, for messages."""
    v = variant(name, release)
    if v == "intl":
        return f"intl (classes of {reference.regex_classes().source})"
    if v == "intl-unicodedata":
        return f"intl (classes of {reference.unicodedata_classes().source})"
    return name
