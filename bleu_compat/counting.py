"""Sufficient statistics of line-aligned files under many tokenizations, each counted once.

``score --compare`` (every state of a decomposition) and ``identify``/``audit`` (every
configuration searched) need the statistics of the same files under many choices of
tokenizer, case and a script's text rules (:mod:`bleu_compat.text_rules`). This module
makes each choice's tokens once per file, in bulk, and counts them with ``score``'s own
block counter (:func:`bleu_compat.stream.count_block`: the C kernel where it is built):

1. the file's lines (the reading rules of :mod:`bleu_compat.corpus_io`; a script's
   ``chop`` rules read the bytes themselves, :func:`bleu_compat.text_rules.read_rule_lines`;
   a Moses tokenization's are what tokenizer.perl prints, :meth:`CorpusFiles.moses_lines`,
   whose tokens the rest splits), joined into one block of text;
2. the case, on the whole block: Python's ``str.lower`` (``score -lc``'s
   :func:`bleu_compat.tokenizers.block.lowercase_block`), A–Z only (``bytes.lower``),
   or each character's own mapping (``"perl"``: ``str.lower`` after Σ -> σ, the one
   character whose lowercase depends on its neighbours);
3. the whitespace the rules do not split at replaced by private-use placeholders
   (:func:`bleu_compat.text_rules.placeholders`: one ``str.replace`` per character present);
4. the tokenizer on the whole block: sacreBLEU's (:func:`bleu_compat.tokenizers.block.
   tokenize_block`, ``score``'s), or a library's own through its adapter
   (``tokenize_block(name, data)`` where the adapter has one, else ``tokenize_lines``);
5. the count: :func:`bleu_compat.stream.count_block` on the token blocks, per segment.

Each step on the whole block gives what the same step line by line gives (the tests
compare both): LF is neither cased nor case-ignorable (so ``str.lower``'s final-sigma
rule does not look across lines), a placeholder is no tokenizer's whitespace, digit,
punctuation or symbol, and every tokenizer works within a line. A block that is not
UTF-8 (a ``chop`` that cut a character in two) takes the line-by-line path.

Token blocks are kept per file while the :class:`CorpusFiles` lives, so a subset of the
references (:meth:`Statistics.subset`) or another row of a table on the same files
(``audit``) counts again without tokenizing again. Nothing is written to disk.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

__all__ = ["CorpusFiles", "Statistics", "RulesError", "TokenizerUnavailable"]

#: a statistics key: (tokenizer, case, whitespace, chop)
Key = tuple[str, Any, str, str]
#: A-Z -> a-z (Perl's ``lc`` on bytes, ``tr/[A-Z]/[a-z]/``)
_UPPER = str.maketrans({chr(c): chr(c + 32) for c in range(65, 91)})


class RulesError(ValueError):
    """A file cannot be read under a script's text rules (it holds a placeholder character)."""


class TokenizerUnavailable(Exception):
    """A tokenizer cannot run here (a library's own tokenizer whose package or data is missing,
    a segmenter without its dictionary or model): the message says why."""


def _ours(tok: str) -> bool:
    """Whether ``tok`` is one of bleu-compat's tokenizers (sacreBLEU's names) or a split."""
    from bleu_compat.tokenizers import is_moses
    from bleu_compat.tokenizers.releases import NAMES

    return tok in ("split", "none") or tok in NAMES or is_moses(tok)


@functools.lru_cache(maxsize=None)
def _owner(tok: str) -> Any:
    """The registered implementation whose own tokenizer ``tok`` is."""
    from bleu_compat.libraries.registry import libraries

    for lib in libraries():
        if tok in lib.tokenizers:
            return lib
    raise TokenizerUnavailable(f"tokenize={tok!r} is no tokenizer bleu-compat or a registered "
                               "implementation has")


class CorpusFiles:
    """The files of one search: each file read once, its token blocks made once per rules.

    Args:
        read: ``path -> list of lines`` (default :func:`bleu_compat.corpus_io.read_lines`'s).
    """

    def __init__(self, read: Callable[[str], list[str]] | None = None) -> None:
        self._read = read
        self._lines: dict[tuple[str, str], list[str]] = {}
        self._blocks: dict[tuple[str, Key], tuple[bytes, bool]] = {}
        self._same: dict[tuple[str, bytes], tuple[bytes, bool]] = {}
        self._ready: dict[tuple[Any, ...], tuple[str, str | bytes]] = {}
        self._lengths: dict[tuple[str, Key], list[int]] = {}

    def adopt(self, other: "CorpusFiles", path: str) -> None:
        """Take what ``other`` holds of ``path`` (its lines and token blocks)."""
        for store, mine in ((other._lines, self._lines), (other._blocks, self._blocks),
                            (other._lengths, self._lengths), (other._same, self._same),
                            (other._ready, self._ready)):
            for key, value in store.items():
                if key[0] == path:
                    mine[key] = value  # type: ignore[index]

    # ------------------------------------------------------------------ reading
    def lines(self, path: str, chop: str = "off") -> list[str]:
        """The file's lines under the reading rules (``chop``: a script's, see
        :func:`bleu_compat.text_rules.read_rule_lines`).

        Raises:
            CorpusReadError: the file cannot be read.
        """
        key = (path, chop)
        if key not in self._lines:
            if chop == "off":
                if self._read is not None:
                    self._lines[key] = self._read(path)
                else:
                    from bleu_compat.corpus_io import read_lines

                    self._lines[key] = read_lines(path).lines
            else:
                from bleu_compat.text_rules import read_rule_lines

                self._lines[key] = read_rule_lines(path, chop)
        return self._lines[key]

    def moses_lines(self, path: str, tok: str) -> list[str]:
        """The lines our tokenizer.perl prints for the file under the Moses tokenization
        ``tok`` (:func:`bleu_compat.tokenizers.moses.tokenize_text`; the Moses pipeline
        tokenizes the files first, and the case and text rules act on what it printed)."""
        key = (path, f"moses:{tok}")
        if key not in self._lines:
            from bleu_compat.corpus_io import _split_lines
            from bleu_compat.tokenizers.moses import tokenize_text, tokenizer_for

            lines = self.lines(path)
            printed = tokenize_text("\n".join(lines) + "\n" if lines else "", tokenizer_for(tok))
            self._lines[key] = _split_lines(printed)[0] if printed else []
        return self._lines[key]

    def n_lines(self, path: str) -> int:
        """How many segments the file holds."""
        return len(self.lines(path))

    # ------------------------------------------------------------------ tokens
    def block(self, path: str, key: Key) -> tuple[bytes, bool]:
        """``(token block, normalized)`` of the file under ``key`` (see the module docstring):
        one line per segment, a line's tokens separated by whitespace (``normalized``: by
        one space, as :func:`bleu_compat.tokenizers.block.tokenize_block` writes them).

        Raises:
            RulesError: a line holds one of the placeholders.
            TokenizerUnavailable: a library's tokenizer cannot run here.
            CorpusReadError: the file cannot be read.
        """
        k = (path, key)
        if k not in self._blocks:
            block = self._make_block(path, key)
            # rules that change nothing in this file (a chop of a file that ends with LF, a
            # whitespace rule without the characters it is about) give the very same block:
            # one object, so that its counts are made once (Statistics keys them by identity)
            same = self._same.setdefault((path, block[0]), block)
            self._blocks[k] = same
        return self._blocks[k]

    def _prepared(self, path: str, source: str, case: Any, whitespace: str,
                  chop: str) -> tuple[str, str | bytes]:
        """``(raw text, prepared)`` of a file under text rules, made once for every tokenizer:
        the lines (``source``: ``"file"``, or a Moses tokenization's name: tokenizer.perl's
        output) joined, lowercased by ``case``, the whitespace the rules keep replaced by
        placeholders, encoded (the ``str`` itself when a chop cut a character in two).

        Raises:
            RulesError: a line holds one of the placeholders.
        """
        from bleu_compat.text_rules import placeholders

        k = (path, source, case, whitespace, chop)
        if k in self._ready:
            return self._ready[k]
        lines = self.lines(path, chop) if source == "file" else self.moses_lines(path, source)
        raw = "\n".join(lines) + "\n" if lines else ""
        ph = placeholders(whitespace)
        if ph and any(mark in raw for mark in ph.values()):
            marks = set(ph.values())
            line = next(n for n, text in enumerate(lines, 1) if not marks.isdisjoint(text))
            raise RulesError(f"{path} line {line} holds a private-use character U+F00xx "
                             "that the decomposition uses to mark whitespace")
        text = raw
        if case is True:
            text = text.lower()
        elif case == "perl":  # each character's own lowercase: no final sigma
            text = text.replace("\u03a3", "\u03c3").lower()
        for character, mark in ph.items():
            if character in text:
                text = text.replace(character, mark)
        prepared: str | bytes
        try:
            prepared = text.encode("utf-8")
            if case == "ascii":
                prepared = prepared.lower()  # A-Z only
        except UnicodeEncodeError:  # a chop cut a character in two: line by line
            prepared = text.translate(_UPPER) if case == "ascii" else text
        self._ready[k] = (raw, prepared)
        return self._ready[k]

    def _make_block(self, path: str, key: Key) -> tuple[bytes, bool]:
        from bleu_compat.text_rules import CASES, CHOPS, WHITESPACES
        from bleu_compat.tokenizers import is_moses

        tok, case, whitespace, chop = key
        if case not in CASES or whitespace not in WHITESPACES or chop not in CHOPS:
            raise RulesError(f"unknown text rules {case!r}, {whitespace!r}, {chop!r}")
        source = "file"
        if is_moses(tok):  # tokenizer.perl's output (lines ending with LF: no chop to do)
            source, tok, chop = tok, "none", "off"
        raw, data = self._prepared(path, source, case, whitespace, chop)
        if isinstance(data, str):
            return self._lines_block(data, tok), False
        if tok in ("split", "none"):
            return data, False
        if _ours(tok):
            from bleu_compat.tokenizers.block import tokenize_block

            return tokenize_block(data, tok), True
        adapter = _owner(tok).adapter_module()
        commutes = getattr(adapter, "lowercase_commutes", None)
        if case is True and whitespace == "python" and chop == "off" and commutes is not None \
                and commutes(tok, raw):
            # the tokenizer's tokens of the lowercased text are its tokens lowercased here
            mixed, normalized = self.block(path, (tok, False, whitespace, chop))
            return mixed.decode("utf-8", "surrogateescape").lower().encode(
                "utf-8", "surrogateescape"), normalized
        if hasattr(adapter, "tokenize_block"):
            try:
                return adapter.tokenize_block(tok, data), False
            except (ImportError, LookupError, OSError, ValueError) as exc:
                raise TokenizerUnavailable(_why(exc)) from None
        return self._lines_block(data.decode("utf-8"), tok), False

    @staticmethod
    def _lines_block(text: str, tok: str) -> bytes:
        """Line by line: the tokenizer's tokens joined by spaces (a token keeps any
        placeholder; a library tokenizer's token holding Python whitespace is spelled by its
        adapter without it)."""
        lines = text.split("\n")[:-1]
        if tok in ("split", "none"):
            tokens = [line.split() for line in lines]
        elif _ours(tok):
            from bleu_compat.tokenizers import get_tokenizer

            tokenizer = get_tokenizer(tok)
            tokens = [tokenizer(line) for line in lines]
        else:
            try:
                tokens = [list(t) for t in _owner(tok).adapter_module().tokenize_lines(tok, lines)]
            except (ImportError, LookupError, OSError, ValueError) as exc:
                raise TokenizerUnavailable(_why(exc)) from None
        return "".join(" ".join(t) + "\n" for t in tokens).encode("utf-8", "surrogateescape")

    def lengths(self, path: str, key: Key) -> list[int]:
        """Each segment's length in tokens under ``key``."""
        k = (path, key)
        if k not in self._lengths:
            block, normalized = self.block(path, key)
            if normalized:
                self._lengths[k] = [line.count(b" ") + 1 if line else 0
                                    for line in block.split(b"\n")[:-1]]
            else:
                text = block.decode("utf-8", "surrogateescape")
                self._lengths[k] = [len(line.split()) for line in text.split("\n")[:-1]]
        return self._lengths[k]

    def tokens(self, path: str, key: Key, last: bool = False) -> list[list[str]]:
        """Each segment's tokens under ``key`` (placeholders put back); ``last``: the last
        segment's only (a list of one)."""
        from bleu_compat.text_rules import placeholders

        block, _ = self.block(path, key)
        if last:
            block = block[block.rfind(b"\n", 0, len(block) - 1) + 1:]
        back = {v: k for k, v in placeholders(key[2]).items()}
        text = block.decode("utf-8", "surrogateescape")
        lines = [line.split() for line in text.split("\n")[:-1]]
        if back and any(mark in text for mark in back):
            undo = str.maketrans(back)
            lines = [[t.translate(undo) for t in line] for line in lines]
        return lines


def _why(exc: BaseException) -> str:
    text = str(exc).splitlines()[0][:160] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Statistics:
    """Corpus and per-segment statistics of one hypothesis file against reference files, per
    (tokenizer, case, whitespace, chop), counted once each (the fast path of ``score``).

    Args:
        hyp_path: the system output; ref_paths: the reference files, line-aligned.
        max_order: N, the largest order counted (lower orders are the rows' first ones).
        files: the :class:`CorpusFiles` to take token blocks from (shared between
            statistics of the same files, e.g. reference subsets); a new one by default.
    """

    def __init__(self, hyp_path: str, ref_paths: Sequence[str], max_order: int,
                 files: CorpusFiles | None = None) -> None:
        self.hyp_path, self.ref_paths, self.max_order = hyp_path, list(ref_paths), max_order
        self.files = files if files is not None else CorpusFiles()
        self._cache: dict[Key, tuple[Any, list[list[int]]]] = {}
        self._counted: dict[tuple[int, ...], tuple[Any, list[list[int]]]] = {}
        self._ref_lengths: dict[Key, list[list[int]]] = {}
        self._pooled: dict[tuple[str, Any], tuple[list[list[int]], list[int]]] = {}

    def subset(self, indices: Sequence[int]) -> "Statistics":
        """The statistics against the references at ``indices`` only (same token blocks)."""
        return Statistics(self.hyp_path, [self.ref_paths[i] for i in indices], self.max_order,
                          self.files)

    def get(self, tok: str, lowercase: Any, whitespace: str = "python",
            chop: str = "off") -> tuple[Any, list[list[int]]]:
        """(SufficientStats, rows ``[m_1..m_N, l_1..l_N, hyp_len, ref_len]`` per segment).

        Raises:
            UnreproducedError (:mod:`bleu_compat.decompose`): a file cannot be read under
                the rules (a placeholder in it) or the tokenizer cannot run here.
        """
        key: Key = (tok, lowercase, whitespace, chop)
        if key not in self._cache:
            blocks = self._blocks(key)
            same = tuple(id(b) for b, _ in blocks)
            if same not in self._counted:
                self._counted[same] = self._count(blocks)
            self._cache[key] = self._counted[same]
        return self._cache[key]

    def _count(self, blocks: list[tuple[bytes, bool]]) -> tuple[Any, list[list[int]]]:
        """``score``'s count of token blocks, per segment (the C kernel's, splitting a
        normalized block at its spaces; else :func:`bleu_compat.stream.count_block`'s)."""
        from bleu_compat.stats import SufficientStats
        from bleu_compat.stream import count_block
        from bleu_compat.tokenizers.block import kernel

        n = self.files.n_lines(self.hyp_path)
        k = kernel()
        if k is not None and all(normalized for _, normalized in blocks):
            m, t, h, r, _, rows = k.counts([b for b, _ in blocks], n, self.max_order, True, True)
        else:
            m, t, h, r, rows, _ = count_block([b for b, _ in blocks], n, str.split,
                                              tokenize="none", max_order=self.max_order,
                                              per_segment=True)
        return SufficientStats(tuple(m), tuple(t), h, r), rows

    def _blocks(self, key: Key) -> list[tuple[bytes, bool]]:
        from bleu_compat.decompose import UnreproducedError

        try:
            return [self.files.block(p, key) for p in (self.hyp_path, *self.ref_paths)]
        except (RulesError, TokenizerUnavailable) as exc:
            raise UnreproducedError(str(exc)) from None

    def ref_lengths(self, tok: str, lowercase: Any, whitespace: str = "python",
                    chop: str = "off") -> list[list[int]]:
        """Per segment, the length of each reference in tokens (in the order the files are
        given), under the same text rules as :meth:`get`."""
        key: Key = (tok, lowercase, whitespace, chop)
        if key not in self._ref_lengths:
            self._blocks(key)
            per_file = [self.files.lengths(p, key) for p in self.ref_paths]
            self._ref_lengths[key] = [list(seg) for seg in zip(*per_file)]
        return self._ref_lengths[key]

    def pooled(self, tok: str, lowercase: bool) -> tuple[list[list[int]], list[int]]:
        """Per hypothesis, its row ``[m_1..m_N, l_1..l_N, hyp_len, ref_len]`` against every
        reference of the corpus pooled (clipped by the largest count in any one reference;
        the closest of all reference lengths, ties to the shorter), and the pooled lengths."""
        pkey = (tok, lowercase)
        if pkey not in self._pooled:
            import bisect
            from collections import Counter

            from bleu_compat.tokenizers.block import kernel

            key: Key = (tok, lowercase, "python", "off")
            blocks = self._blocks(key)
            k = kernel()
            if k is not None:  # the C kernel's pooled(): the same rows, in C
                rows_c, lengths_c = k.pooled([b for b, _ in blocks], self.files.n_lines(self.hyp_path),
                                             self.max_order, all(norm for _, norm in blocks))
                self._pooled[pkey] = (rows_c, lengths_c)
                return self._pooled[pkey]
            n = self.max_order
            pool = [t for p in self.ref_paths for t in self.files.tokens(p, key)]
            best: list[dict[tuple[str, ...], int]] = [{} for _ in range(n)]
            for ref in pool:
                for order in range(1, n + 1):
                    b = best[order - 1]
                    for g, count in Counter(tuple(ref[i:i + order])
                                            for i in range(len(ref) - order + 1)).items():
                        if count > b.get(g, 0):
                            b[g] = count
            lengths = [len(ref) for ref in pool]
            distinct = sorted(set(lengths))

            def closest(c: int) -> int:
                # the closest pooled length, ties to the shorter (min by (|x - c|, x))
                k = bisect.bisect_left(distinct, c)
                near = distinct[max(0, k - 1):k + 1]
                return min(near, key=lambda x: (abs(x - c), x))

            rows = []
            for hyp in self.files.tokens(self.hyp_path, key):
                matches, totals = [], []
                for order in range(1, n + 1):
                    counts = Counter(tuple(hyp[i:i + order]) for i in range(len(hyp) - order + 1))
                    b = best[order - 1]
                    matches.append(sum(min(c, b.get(g, 0)) for g, c in counts.items()))
                    totals.append(max(0, len(hyp) - order + 1))
                rows.append(matches + totals + [len(hyp), closest(len(hyp))])
            self._pooled[pkey] = (rows, lengths)
        return self._pooled[pkey]

    def last_segment(self, tok: str, lowercase: Any, whitespace: str = "python",
                     chop: str = "off") -> tuple[list[str], list[list[str]]]:
        """The last segment's tokens: (hypothesis, [reference, ...]) (what NLTK's ``corpus_bleu``
        hands its smoothing function as ``hypothesis`` and ``references``)."""
        key: Key = (tok, lowercase, whitespace, chop)
        self._blocks(key)
        sides = [self.files.tokens(p, key, last=True)[-1] for p in (self.hyp_path, *self.ref_paths)]
        return sides[0], sides[1:]

    def close(self) -> None:
        """Nothing to remove (no copies are written); kept for the callers' ``finally``."""
