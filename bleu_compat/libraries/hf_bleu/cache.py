"""The user's cached HF evaluate ``bleu`` module, found where ``evaluate`` looks for it, offline.

``evaluate.load("bleu")`` downloads the metric script from the Hugging Face Hub
(``evaluate-metric/bleu``) and, through the ``# From:`` comment on its import,
tensorflow/nmt's ``bleu.py``; it copies them into its dynamic modules cache::

    $HF_MODULES_CACHE/evaluate_modules/metrics/evaluate-metric--bleu/<64-hex hash>/
        bleu.py  nmt_bleu.py  tokenizer_13a.py  bleu.json

with ``HF_MODULES_CACHE`` defaulting to ``$HF_HOME/modules`` and ``HF_HOME`` to
``$XDG_CACHE_HOME/huggingface`` (``~/.cache/huggingface``): evaluate's
``config.py`` (0.4.6). Offline, evaluate falls back to the hash folder whose
``bleu.py`` was modified last (``CachedEvaluationModuleFactory``); so does
:func:`find`. The PyPI wheel of ``evaluate`` ships no metric scripts, so without
this cache there is no HF ``bleu`` to run.

:func:`load` runs the module's ``nmt_bleu.py`` (``compute_bleu``) and
``tokenizer_13a.py`` (``Tokenizer13a``) from that folder under private names, when
the three files are a known release (:data:`KNOWN`), or with the user's opt-in to
unknown code (:mod:`bleu_compat.foreign`: a module planted in a restored cache is
refused, not run); the bytes run are the bytes hashed; they run in a child process
bounded in time, memory and output (:mod:`bleu_compat.libraries.hf_bleu.process`),
never in bleu-compat's own; they need only the standard library. ``bleu.py`` itself imports ``evaluate``
and ``datasets`` and is only read (its SHA-256 names the release): its
``Bleu._compute``, eight lines of glue, is :func:`compute` here.

The release (:func:`version`) is named by the SHA-256 of the three files:
:data:`KNOWN` lists the contents published in huggingface/evaluate's
``metrics/bleu`` and tensorflow/nmt's ``nmt/scripts/bleu.py``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["modules_cache", "find", "version", "checked", "load", "compute", "compute_with_tokens",
           "KNOWN", "CachedModule", "ModuleFunction", "ModuleTokenizer"]

#: the module's folder under the dynamic modules cache
MODULE_DIR = ("evaluate_modules", "metrics", "evaluate-metric--bleu")
#: the files of one cached module
FILES = ("bleu.py", "nmt_bleu.py", "tokenizer_13a.py")
#: the largest file of a module taken (the three are under 10 kB)
MAX_FILE_BYTES = 1 << 20

#: SHA-256 of (bleu.py, nmt_bleu.py, tokenizer_13a.py) -> the release's name: the date of
#: the huggingface/evaluate commit that gave bleu.py this content (3a62fc3, 2022-07-05: the
#: module evaluate 0.2.0-0.4.6 load; dfdd0cc, 2022-05-26: evaluate 0.1.x), with
#: tokenizer_13a.py of 3caef63 (2022-05-02) and tensorflow/nmt's bleu.py of afd0dfc (2017).
_NMT = "d35b20182f82f22f1c31232df1d25977328cf011178fcd381c2d82ee4116b40b"
_TOK = "496ba6b982897605ca52ac06595a0e59496c8563e26a28b47f14a0cfba725a91"
KNOWN: dict[tuple[str, str, str], str] = {
    ("41aebd59ddb0306117c049edf6a2f71b978cf0c5cce1da63f0e1551987f34315", _NMT, _TOK): "2022.7.5",
    ("a5477a6e319748f22492a7a2ed54206002e86886e186146a106d984e7efe8dc7", _NMT, _TOK): "2022.5.26",
}


def modules_cache() -> Path:
    """``$HF_MODULES_CACHE``, else ``$HF_HOME/modules``, else
    ``$XDG_CACHE_HOME/huggingface/modules`` (``~/.cache/huggingface/modules``), as evaluate's
    ``config.py`` computes it."""
    xdg = os.environ.get("XDG_CACHE_HOME", "~/.cache")
    home = os.path.expanduser(os.environ.get("HF_HOME", os.path.join(xdg, "huggingface")))
    return Path(os.environ.get("HF_MODULES_CACHE", os.path.join(home, "modules")))


@dataclass(frozen=True)
class CachedModule:
    """One cached ``bleu`` module: its folder and its files' SHA-256."""

    folder: Path
    digests: tuple[str, str, str]
    #: the files' bytes, as read for the digests (what :func:`load` runs)
    sources: tuple[bytes, bytes, bytes] = field(default=(b"", b"", b""), repr=False, compare=False)

    @property
    def version(self) -> str:
        """The release name (:data:`KNOWN`), or ``unknown-<12 hex>`` for other contents."""
        known = KNOWN.get(self.digests)
        if known:
            return known
        joined = hashlib.sha256("".join(self.digests).encode()).hexdigest()
        return f"unknown-{joined[:12]}"


def find() -> CachedModule | None:
    """The module evaluate would load offline (the hash folder whose ``bleu.py`` is newest), or
    None when the cache holds none with all three files. Each file is read once
    (:func:`bleu_compat.foreign.read_once`): the digests are of the bytes kept to run.

    Raises:
        ForeignFileError: a file of the module that is not a regular file or cannot be read.
    """
    from bleu_compat.foreign import read_once, sha256_hex

    base = modules_cache().joinpath(*MODULE_DIR)
    try:
        folders = [base / h for h in os.listdir(base) if len(h) == 64]
    except OSError:
        return None
    complete = [f for f in folders if all((f / name).is_file() for name in FILES)]
    if not complete:
        return None
    folder = max(complete, key=lambda f: ((f / "bleu.py").stat().st_mtime, f.name))
    sources = tuple(read_once(folder / name, MAX_FILE_BYTES) for name in FILES)
    return CachedModule(folder, tuple(sha256_hex(b) for b in sources), sources)  # type: ignore[arg-type]


def version() -> str:
    """The installed (cached) release, for the registry (``Library.version_source``).

    Raises:
        importlib.metadata.PackageNotFoundError: no cached ``bleu`` module.
    """
    from importlib import metadata

    found = find()
    if found is None:
        raise metadata.PackageNotFoundError(
            f"HF evaluate bleu (no cached module under {modules_cache().joinpath(*MODULE_DIR)})")
    return found.version


class ModuleFunction:
    """The module's ``compute_bleu``, called in its child process
    (:func:`bleu_compat.libraries.hf_bleu.process.call`): the arguments and the result cross
    exactly (None, bool, int, float, str, list, tuple, dict)."""

    def __init__(self, module: CachedModule) -> None:
        self.module = module

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from bleu_compat.libraries.hf_bleu import process

        return process.call(self.module, "call", args=_to_wire(args), kwargs=_to_wire(kwargs))

    def __repr__(self) -> str:
        return f"<compute_bleu of {self.module.folder}, in its own process>"


class ModuleTokenizer:
    """The module's ``Tokenizer13a()``, called in its child process: ``tokenizer(line)`` or,
    in one exchange, ``tokenizer.many(lines)``."""

    def __init__(self, module: CachedModule) -> None:
        self.module = module

    def __call__(self, line: str) -> list[str]:
        return self.many([line])[0]

    def many(self, lines: Sequence[str]) -> list[list[str]]:
        """The tokens of each of ``lines`` (a list per line)."""
        from bleu_compat.libraries.hf_bleu import process

        return process.call(self.module, "tokenize", lines=_to_wire(list(lines)))  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"<Tokenizer13a of {self.module.folder}, in its own process>"


def _to_wire(value: Any) -> Any:
    from bleu_compat.libraries.hf_bleu._child import Unsendable, to_wire

    try:
        return to_wire(value)
    except Unsendable as exc:
        raise TypeError(f"a {exc} cannot be sent to the HF evaluate bleu module's process (None, "
                        "bool, int, float, str, list, tuple and dict can)") from None


def checked() -> CachedModule:
    """The cached module (:func:`find`), when it may run: a known release (:data:`KNOWN`), or
    the user opted in to unknown code (:mod:`bleu_compat.foreign`).

    Raises:
        OracleUnavailableError: no cached module; a file of it cannot be read.
        UnknownCodeError: the module is no known release and the opt-in is not complete.
    """
    from bleu_compat.errors import OracleUnavailableError
    from bleu_compat.foreign import refuse_unknown

    found = find()
    if found is None:
        raise OracleUnavailableError(
            f"hf-bleu is not installed: no cached evaluate 'bleu' module under "
            f"{modules_cache().joinpath(*MODULE_DIR)} (run evaluate.load('bleu') once online, "
            "or set HF_MODULES_CACHE / HF_HOME)")
    if found.digests not in KNOWN:
        refuse_unknown(f"the HF evaluate bleu module cached in {found.folder} "
                       f"({', '.join(FILES)})", hashlib.sha256("".join(found.digests).encode()).hexdigest(),
                       f"the {len(KNOWN)} known releases ({', '.join(sorted(KNOWN.values()))})")
    return found


def load() -> tuple[ModuleFunction, ModuleTokenizer, CachedModule]:
    """``(compute_bleu, Tokenizer13a(), module)`` from the cached module's own files, run in a
    child process (:mod:`bleu_compat.libraries.hf_bleu.process`), loaded there now.

    Only a known release (:data:`KNOWN`) is run, unless the user opted in to unknown code
    (:mod:`bleu_compat.foreign`); what runs is the bytes hashed (sent to the child, which
    compiles them and answers with their digests; the files are never opened again).

    Raises:
        OracleUnavailableError: no cached module; a file of it cannot be read.
        UnknownCodeError: the module is no known release and the opt-in is not complete.
        ModuleRunError: its process could not start, or was stopped at a bound while loading.
        Exception: what the module's code raised while loading.
    """
    from bleu_compat.libraries.hf_bleu import process

    found = checked()
    process.call(found, "tokenize", lines=[])  # started and loaded (the module's code ran)
    return ModuleFunction(found), ModuleTokenizer(found), found


def compute(predictions: Sequence[str], references: Sequence[Any],
            tokenizer: Callable[[str], list[str]] | None = None, max_order: int = 4,
            smooth: bool = False) -> dict[str, Any]:
    """``evaluate.load("bleu").compute(predictions=..., references=..., ...)`` without evaluate.

    The glue of ``bleu.py``'s ``Bleu._compute`` (a list of strings as references is one
    reference per prediction; ``tokenizer`` applied to every string, by default the
    module's ``Tokenizer13a``), then the module's own ``compute_bleu``, in the module's child
    process (:mod:`bleu_compat.libraries.hf_bleu.process`; a ``tokenizer`` given here runs in
    this process, the module's own there); the result dict has ``_compute``'s keys, its values
    exactly the module's. A library exception propagates as its own type and message
    (``ZeroDivisionError: float division by zero``).

    Raises:
        OracleUnavailableError: no cached module; a file of it cannot be read.
        UnknownCodeError: the module is no known release and the opt-in is not complete.
        ModuleRunError: its process was stopped at a bound (time, memory, output) or ended.
    """
    return _compute(predictions, references, tokenizer, max_order, smooth, False)[0]


def compute_with_tokens(predictions: Sequence[str], references: Sequence[Any],
                        tokenizer: Callable[[str], list[str]] | None = None, max_order: int = 4,
                        smooth: bool = False) -> tuple[dict[str, Any], list[list[str]]]:
    """:func:`compute`'s dict and the predictions' tokens as the tokenizer gave them (one
    exchange with the module's process).

    Raises:
        As :func:`compute`.
    """
    return _compute(predictions, references, tokenizer, max_order, smooth, True)


def _compute(predictions: Sequence[str], references: Sequence[Any],
             tokenizer: Callable[[str], list[str]] | None, max_order: int, smooth: bool,
             tokens: bool) -> tuple[dict[str, Any], list[list[str]]]:
    from bleu_compat.libraries.hf_bleu import process

    found = checked()
    if isinstance(tokenizer, ModuleTokenizer):  # the module's own: run where it lives
        tokenizer = None
    if isinstance(references[0], str):
        references = [[ref] for ref in references]
    if tokenizer is None:
        answer = process.call(found, "compute", predictions=_to_wire(list(predictions)),
                              references=_to_wire([list(ref) for ref in references]),
                              max_order=_to_wire(max_order), smooth=_to_wire(smooth), tokens=tokens)
        if not (isinstance(answer, dict) and set(answer) == {"result", "tokens"}):
            raise process.ModuleRunError(f"the HF evaluate bleu module cached in {found.folder}: "
                                         "it broke the protocol (an answer of no known kind)")
        result, preds = answer["result"], answer["tokens"]
    else:
        refs = [[tokenizer(r) for r in ref] for ref in references]
        preds = [tokenizer(p) for p in predictions]
        result = process.call(found, "call", args=[], kwargs=_to_wire(
            {"reference_corpus": refs, "translation_corpus": preds, "max_order": max_order,
             "smooth": smooth}))
    bleu, precisions, bp, ratio, translation_length, reference_length = result
    return ({"bleu": bleu, "precisions": precisions, "brevity_penalty": bp, "length_ratio": ratio,
             "translation_length": translation_length, "reference_length": reference_length},
            preds)
