"""Which tokenizer the references' script calls for (issue 23: "the en-zh default run warns").

sacreBLEU's 13a splits on spaces and punctuation: on Chinese, Japanese or
Korean text, written without spaces between words, a "token" is a whole
clause, and the score is not comparable with published ones (WMT22 en-zh
Online-B: 48.09 with 13a, 79.99 with zh). sacreBLEU chooses its tokenizer from
``-l``'s target language (``zh``, ``ja-mecab``, ``ko-mecab``); here the
references' own characters decide, so the warning comes without ``-l`` too.

The rule, on the references' first :data:`SAMPLE_CHARACTERS` characters (so the
same input always gives the same answer, whatever its size): when Han, kana and
Hangul characters are at least half of the letters, the script is Korean if
Hangul is at least half of those, else Japanese if kana is at least a tenth of
them (Japanese writes its grammar in kana; Chinese has none), else Chinese.
"""

from __future__ import annotations

import re

__all__ = ["SAMPLE_CHARACTERS", "ScriptAdvice", "advice", "tokenizer_warning"]

#: how many characters of the references are looked at (first ones, every file in turn)
SAMPLE_CHARACTERS = 1_000_000

#: the code points of each script, as inclusive (first, last) ranges
HAN = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F))
KANA = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0xFF66, 0xFF9F))
HANGUL = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7AF))
#: the letters: re's [^\W\d_] (alphanumeric, not a decimal digit)
LETTER = r"[^\W\d_]"


def _pattern(ranges: tuple[tuple[int, int], ...]) -> re.Pattern[str]:
    return re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]")


def counts(text: str, *, use_kernel: bool = True) -> tuple[int, int, int, int]:
    """(letters, Han, kana, Hangul) characters of ``text``: the C kernel's one pass
    (``script_counts``: the same tests as ``re``'s classes) or, without it, ``re``."""
    if text.isascii():  # no Han, kana or Hangul; the letters are the ASCII ones
        letters = len(text.encode("ascii").translate(None, _NOT_ASCII_LETTERS))
        return letters, 0, 0, 0
    if use_kernel:
        from bleu_compat.tokenizers.block import kernel

        k = kernel()
        if k is not None:
            return k.script_counts(text, HAN, KANA, HANGUL)  # type: ignore[no-any-return]
    return tuple(  # type: ignore[return-value]
        p.subn("", text)[1] for p in (re.compile(LETTER), _pattern(HAN), _pattern(KANA),
                                      _pattern(HANGUL)))


#: every byte but the ASCII letters (bytes.translate deletes them)
_NOT_ASCII_LETTERS = bytes(c for c in range(256) if not (65 <= c <= 90 or 97 <= c <= 122))

#: language -> (its name, sacreBLEU's tokenizer for it as a target, its script in words)
_LANGUAGES = {
    "zh": ("Chinese", "zh", "Han characters"),
    "ja": ("Japanese", "ja-mecab", "Han and kana characters"),
    "ko": ("Korean", "ko-mecab", "Hangul"),
}
#: sacreBLEU's tokenizers made for any script (no warning with them)
_ANY_SCRIPT = ("spm", "flores101", "flores200", "spBLEU-1K")


class ScriptAdvice:
    """The references' language as their script tells it, and sacreBLEU's tokenizer for it.

    Attributes:
        language: ``"zh"``, ``"ja"`` or ``"ko"``.
        tokenizer: sacreBLEU's tokenizer for that target (``zh``, ``ja-mecab``, ``ko-mecab``).
        share: the characters of that script over the letters looked at (0–1).
        sampled: how many characters were looked at.
    """

    __slots__ = ("language", "tokenizer", "share", "sampled")

    def __init__(self, language: str, tokenizer: str, share: float, sampled: int) -> None:
        self.language, self.tokenizer, self.share, self.sampled = (language, tokenizer, share,
                                                                   sampled)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScriptAdvice) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return (f"ScriptAdvice({self.language!r}, {self.tokenizer!r}, {self.share!r}, "
                f"{self.sampled!r})")

    def warning(self, tokenize: str) -> str | None:
        """The warning for a run with ``tokenize``, or None when it is the right one."""
        if tokenize == self.tokenizer or tokenize in _ANY_SCRIPT:
            return None
        name, _, script = _LANGUAGES[self.language]
        available = ""
        if self.tokenizer != "zh":  # ja-mecab, ko-mecab: MeCab, from the ja or ko extra
            from bleu_compat.tokenizers.segmenters import why_unavailable

            missing = why_unavailable(self.tokenizer)
            if missing is not None:
                available = f" (not installed here: {missing.partition(': ')[2] or missing})"
        split = ("its words are not split into morphemes" if self.language == "ko" else
                 "its words, written without spaces, are not split")
        return (f"the references are {name} ({script} are {self.share:.0%} of the letters in "
                f"the {self.sampled:,} characters looked at): sacreBLEU's tokenizer for a {name} "
                f"target is {self.tokenizer} (-tok {self.tokenizer}, or -l xx-{self.language})"
                f"{available}; with tok:{tokenize} {split}, and the number is not comparable "
                "with published ones")


def advice(text: str) -> ScriptAdvice | None:
    """The language ``text``'s script calls for (module docstring's rule), or None.

    Args:
        text: the references' text (only its first :data:`SAMPLE_CHARACTERS`
            characters are looked at).
    """
    text = text[:SAMPLE_CHARACTERS]
    letters, han, kana, hangul = counts(text)
    cjk = han + kana + hangul
    if not letters or 2 * cjk < letters:
        return None
    if 2 * hangul >= cjk:
        return ScriptAdvice("ko", "ko-mecab", hangul / letters, len(text))
    if 10 * kana >= cjk:
        return ScriptAdvice("ja", "ja-mecab", cjk / letters, len(text))
    return ScriptAdvice("zh", "zh", han / letters, len(text))


def tokenizer_warning(text: str, tokenize: str) -> str | None:
    """The warning for references ``text`` tokenized with ``tokenize`` (None: no warning)."""
    found = advice(text)
    return None if found is None else found.warning(tokenize)
