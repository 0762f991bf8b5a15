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
from dataclasses import dataclass

__all__ = ["SAMPLE_CHARACTERS", "ScriptAdvice", "advice", "tokenizer_warning"]

#: how many characters of the references are looked at (first ones, every file in turn)
SAMPLE_CHARACTERS = 1_000_000

_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_LETTER = re.compile(r"[^\W\d_]")

#: language -> (its name, sacreBLEU's tokenizer for it as a target, its script in words)
_LANGUAGES = {
    "zh": ("Chinese", "zh", "Han characters"),
    "ja": ("Japanese", "ja-mecab", "Han and kana characters"),
    "ko": ("Korean", "ko-mecab", "Hangul"),
}
#: sacreBLEU's tokenizers made for any script (no warning with them)
_ANY_SCRIPT = ("spm", "flores101", "flores200", "spBLEU-1K")


def _count(pattern: re.Pattern[str], text: str) -> int:
    return pattern.subn("", text)[1]


@dataclass(frozen=True)
class ScriptAdvice:
    """The references' language as their script tells it, and sacreBLEU's tokenizer for it.

    Attributes:
        language: ``"zh"``, ``"ja"`` or ``"ko"``.
        tokenizer: sacreBLEU's tokenizer for that target (``zh``, ``ja-mecab``, ``ko-mecab``).
        share: the characters of that script over the letters looked at (0–1).
        sampled: how many characters were looked at.
    """

    language: str
    tokenizer: str
    share: float
    sampled: int

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
    letters = _count(_LETTER, text)
    han, kana, hangul = (_count(p, text) for p in (_HAN, _KANA, _HANGUL))
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
