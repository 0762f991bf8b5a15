"""Tokenizing raw text with sacreBLEU's own tokenizers (CLI convenience).

Outside the tools' contract: the cards take tokens. ``bleu-compat score
--tokenize`` uses this so that raw WMT files can be scored exactly as
sacreBLEU scores them. sacreBLEU is imported lazily, so the core stays free
of it.
"""

from __future__ import annotations

from typing import Callable, Iterable

from .errors import ConfigError, OracleUnavailableError

__all__ = ["TOKENIZERS", "get_tokenizer", "tokenize_lines"]

#: ``none`` splits on whitespace (Python ``str.split``); the others are sacreBLEU's.
TOKENIZERS = ("none", "13a", "intl", "zh", "char")


def get_tokenizer(name: str) -> Callable[[str], list[str]]:
    """A function from one line of raw text to its tokens.

    ``none`` is ``str.split()`` (Unicode whitespace, as sacreBLEU's
    ``tokenize='none'`` followed by its whitespace split); the others run
    sacreBLEU's tokenizer and then split its output on whitespace, exactly as
    sacreBLEU's BLEU does.

    Raises:
        ConfigError: unknown tokenizer name.
        OracleUnavailableError: sacreBLEU is not installed.
    """
    if name not in TOKENIZERS:
        raise ConfigError(f"tokenize={name!r} must be one of {TOKENIZERS}")
    if name == "none":
        return str.split
    try:
        from sacrebleu.metrics.bleu import _get_tokenizer
    except ImportError:
        try:  # sacreBLEU 1.4-1.5: a table of tokenizer classes
            from sacrebleu.tokenizers import TOKENIZERS as _TABLE
        except ImportError as exc:
            raise OracleUnavailableError(
                f"sacreBLEU is needed for --tokenize ({_installed()})") from exc

        def _get_tokenizer(name: str) -> Callable[[], Callable[[str], str]]:
            return _TABLE[name]  # type: ignore[no-any-return]
    tokenizer = _get_tokenizer(name)()

    def tokenize(line: str) -> list[str]:
        return tokenizer(line.rstrip()).split()

    return tokenize


def _installed() -> str:
    from importlib import metadata

    try:
        return f"sacreBLEU {metadata.version('sacrebleu')} is installed but has no usable tokenizer API"
    except metadata.PackageNotFoundError:
        return "sacreBLEU is not installed"


def tokenize_lines(lines: Iterable[str], name: str) -> list[list[str]]:
    """Tokenize every line with :func:`get_tokenizer` ``(name)``."""
    tokenize = get_tokenizer(name)
    return [tokenize(line) for line in lines]
