"""The implementation plug-in interface: what one BLEU implementation declares.

An implementation is one folder, ``bleu_compat/libraries/<name>/``, holding:

* ``__init__.py`` — ``LIBRARY = Library(...)``: the declaration below. Data only:
  it imports nothing but this module, so that the judge (the catalog, the
  models) and the command line can read it without importing the library;
* ``adapter.py`` — runs the real library, as its users call it:

  - ``run(mode, tool_id, request) -> AdapterResult`` on a card request, in the
    modes the declaration lists (``as_called``, and ``mapped`` where the adapter
    can make the library compute the card's semantics), built on
    :func:`bleu_compat.libraries.dispatch`;
  - ``score_lines(config, hyp_lines, ref_lines) -> float``: the library's own
    number for one ``score --compare`` configuration (a
    :class:`bleu_compat.decompose.Configuration`) on raw text lines, on the scale
    :attr:`Library.native` names;
  - optionally ``check_release(version)``: raise ``OracleUnavailableError`` for
    an installed release the adapter cannot speak;

* ``model.py`` — its dialect, ``evaluate(tool_id, mode, request, on, cache)``:
  the card with the models of the catalog entries in ``on`` switched on
  (:class:`bleu_compat.harness.dialect.Model`), on statistics counted by the
  truth, never by the core;
* ``entries.py`` — ``ENTRIES`` (its :class:`~bleu_compat.harness.dialect.CatalogEntry`
  tuple, each with the releases its model was ``verified`` on) and ``VERIFIED``
  (every release whose dialect was measured, oldest first);

and one line in :data:`bleu_compat.libraries.registry.KNOWN_IMPLEMENTATIONS`
(an implementation shipped by another package registers through the entry point
group ``bleu_compat.libraries`` instead, whose object is its :class:`Library`).

Every consumer — the catalog, the crosscheck and its reports, ``explain``,
``gate``, ``matrix``, ``score --compare`` and its decomposition — iterates
over the registry; none names an implementation
(``oracle_tests/test_plugin_registry.py`` checks it).

The *factors* (:data:`FACTOR_NAMES`) are the choices that make an
implementation's number what it is, each with its value and the source of that
value (:class:`Factor`): the catalog page's table of implementations × factors
is drawn from them. The *decomposition* (:class:`DecompositionSpec`) says how
``score --compare`` switches this implementation's behaviour on and off when it
explains a gap: which statistics changes are its own, which of its catalog
entries are steps, and which entry is its floating-point order.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = [
    "FACTOR_NAMES", "Factor", "NativeValue", "BuiltinConfiguration", "DecompositionSpec",
    "Library",
]

#: The factors every implementation declares, in the order of the catalog's table:
#: name -> what the factor is.
FACTOR_NAMES: dict[str, str] = {
    "tokenizer": "how text becomes tokens, as the implementation is usually called",
    "case": "whether text is lowercased, and when",
    "smoothing": "the smoothing method and its value when called the usual way",
    "effective order": "whether orders without n-grams are left out of the mean",
    "max order": "the largest n-gram order N, and the weights",
    "reference length": "which reference length each segment contributes, and the tie rule",
    "clipping": "how a hypothesis n-gram's count is clipped by the references",
    "count type": "the number type the statistics are counted and summed in",
    "aggregation": "how segments become one number (corpus statistics, a mean of sentence "
                   "scores, or each hypothesis against the pooled references)",
    "arithmetic": "the floating-point order of operations from statistics to score",
}


@dataclass(frozen=True)
class Factor:
    """One factor's value for one implementation, and where that value comes from.

    Attributes:
        value: the value in words, e.g. ``"closest; ties to the shorter"``.
        source: where it is established: the library's file and function, with
            the release read (e.g. ``"sacrebleu/metrics/bleu.py
            BLEU._get_closest_ref_len (2.6.0)"``), or a catalog entry id.
    """

    value: str
    source: str


@dataclass(frozen=True)
class NativeValue:
    """Where an adapter's ``raw`` keeps the library's own number, and its scale.

    Attributes:
        keys: the ``raw`` keys holding it, first found wins (e.g. ``("score",)``).
        scale: ``"0-100"`` or ``"0-1"``.
        label: the word ``explain`` prints before it (``"score"``, ``"bleu"``).
        describe: what it is, for reports (``"sacreBLEU's `BLEUScore.score`"``).
    """

    keys: tuple[str, ...]
    scale: str
    label: str
    describe: str = ""

    def of(self, raw: dict[str, Any] | None) -> Any:
        """The library's own number in ``raw`` (an int or float, not a bool), or None."""
        if not raw:
            return None
        for key in self.keys:
            value = raw.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return value
        return None


@dataclass(frozen=True)
class BuiltinConfiguration:
    """A built-in ``score --compare`` configuration of this implementation.

    Attributes:
        name: the name users type (``"sacrebleu"``, ``"nltk-method1"``).
        tokenize: ``"split"`` (``str.split()``) or a tokenizer name of
            :mod:`bleu_compat.tokenizers` (``none`` splits on whitespace too).
        lowercase, smoothing (the implementation's own method name), smooth_value
        (None: the library's default), effective_order, max_order: as
            :class:`bleu_compat.decompose.Configuration`.
        aggregation: ``"corpus"``, ``"sentence-mean"`` (the mean of sentence
            scores, each with its own references) or ``"pooled-mean"`` (the mean
            of each hypothesis' score against every reference of the corpus).
        call: which of the library's functions the adapter calls for it (free
            text the adapter understands; ``""`` for its usual one).
        options: the ``key=value`` keys a user may change on it (``tok``, ``lc``,
            ``smooth``, ``value``, ``eff``, ``order``), or None for all: a call that
            takes no tokenizer refuses ``tok=``.
    """

    name: str
    tokenize: str
    lowercase: bool = False
    smoothing: str = "none"
    smooth_value: float | None = None
    effective_order: bool = False
    max_order: int = 4
    aggregation: str = "corpus"
    call: str = ""
    options: tuple[str, ...] | None = None


@dataclass(frozen=True)
class DecompositionSpec:
    """How ``score --compare`` switches this implementation's behaviour on and off.

    A decomposition state is the card's formula with some factors changed
    (:mod:`bleu_compat.decompose`). An implementation contributes:

    Attributes:
        float_entry: the id of its bleu-smoothing-compute entry whose model is
            its floating-point order of operations (the ``float order`` factor),
            or None when it computes in the card's order.
        corpus_ids: bleu-smoothing-compute entry id -> the bleu-corpus-compute
            entry id shown for it when a configuration does not smooth (the same
            computation; users know the corpus entry).
        switches: its other bleu-smoothing-compute entries that are factors of
            their own (each switched on and off), in catalog order.
        dominant: those switches whose score stands when another
            implementation's entries are on too (where they give a score, the
            others give 0 or almost 0).
        statistics: ``(factor name, kind)`` pairs: changes to the statistics
            this implementation makes, of a kind :mod:`bleu_compat.decompose`
            defines (e.g. ``("NLTK-DENOMINATOR-FLOOR", "denominator-floor")``).
    """

    float_entry: str | None = None
    corpus_ids: dict[str, str] = field(default_factory=dict)
    switches: tuple[str, ...] = ()
    dominant: tuple[str, ...] = ()
    statistics: tuple[tuple[str, str], ...] = ()


def installed_entry_points(group: str) -> list[Any]:
    """The entry points of ``group`` declared by installed distributions: those found on the
    interpreter's path, less the working directory (``python -m bleu_compat`` puts it first
    on ``sys.path``, so a ``*.dist-info`` lying in the directory a command runs in is no
    installed distribution; ``''`` is that directory too). A distribution whose metadata
    cannot be read gives none. Sorted by name; one per name (the first on the path)."""
    import os
    import sys
    from importlib.metadata import distributions

    def where(entry: str) -> str:
        try:
            return os.path.realpath(entry or os.curdir)
        except (OSError, ValueError):
            return entry

    here = where(os.curdir)
    path = [entry for entry in sys.path if isinstance(entry, str) and entry and where(entry) != here]
    found: dict[str, Any] = {}
    try:
        dists = list(distributions(path=path))
    except Exception:  # pragma: no cover - a broken path entry: none rather than a crash
        return []
    for dist in dists:
        try:
            points = [ep for ep in dist.entry_points if ep.group == group]
        except Exception:  # unreadable metadata of one distribution
            continue
        for ep in points:
            found.setdefault(ep.name, ep)
    return [found[name] for name in sorted(found)]


def _attribute(path: str) -> Any:
    """``"package.module"`` -> the module; ``"package.module:NAME"`` -> its attribute."""
    module, _, name = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, name) if name else loaded


@dataclass(frozen=True)
class Library:
    """One BLEU implementation, as the rest of bleu_compat sees it.

    Attributes:
        name: its id: the registry key, the prefix of its implementation ids
            (``"sacrebleu/as_called"``), its key in reports' ``versions``.
        display_name: how it spells itself (``"sacreBLEU"``).
        distribution: the package whose installed version is its version
            (``importlib.metadata.version``), unless ``version_source`` is set.
        version_source: ``"module:function"`` giving the installed version of an
            implementation that is not an installed distribution (HF evaluate's
            ``bleu``, a module in the Hugging Face modules cache); the function
            raises ``importlib.metadata.PackageNotFoundError`` when it is absent.
            None: ``distribution``'s metadata.
        import_modules: the modules its adapter imports (what must import for
            it to be usable).
        adapter, model, entries: the modules (dotted paths) of its adapter, its
            dialect model and its catalog entries, imported only when used.
        modes: the adapter modes it has (``"as_called"``, ``"mapped"``).
        native: where its own number is and on which scale.
        loggers: loggers of the library that its callers quiet (advice about
            tokenized input, which the cards' tokens are by design).
        smoothing: its smoothing method names -> the card's
            (``none``, ``method1``, ``method2``, ``method3``).
        own_smoothing: its smoothing methods (or method values) the cards do not have
            -> what each is, in words (NLTK's ``method4``–``method7``; sacreBLEU's
            ``add-k`` with k ≠ 1, the card's method2 being k = 1). Its dialect model's
            ``own_smoothing(method, value, request, last_segment)`` computes them as the
            library does (0–1), from the corpus statistics in ``request`` and, where the
            library reads them, the last segment's tokens (``last_segment() ->
            (hypothesis tokens, [reference tokens, ...])``).
        value_methods: its methods that take ``value=`` (an epsilon, a k or an alpha).
        value_doc: what ``value=`` is for it, in words (for the syntax help).
        no_effective_order: None when ``eff=yes`` is possible, else why not.
        configurations: its built-in ``score --compare`` configurations.
        factors: :data:`FACTOR_NAMES` -> :class:`Factor` (every name).
        decomposition: see :class:`DecompositionSpec`.
        colour: its colour in charts (``"#3b75af"``).
        matrix_releases: the releases ``bleu-compat matrix --all`` measures.
        reference_release: the release installed beside another library's
            matrix environment (None: not installed there).
        install: how to install it (``"pip install sacrebleu"``), for messages.
        in_default_compare: whether ``score --compare`` runs it on the card's
            tokens even when no configuration of it is compared.
        model_imports: third-party modules its dialect model evaluates the library's
            arithmetic with, where the standard library has no equal (torch's float32
            ``log``/``exp``, numpy's 80-bit ``longdouble``); never used for counting.
        tokenizers: tokenizers the library runs itself (e.g. a PTB tokenizer in
            Java), usable as ``tok=NAME`` in its configurations: the adapter's
            ``tokenize_lines(name, lines) -> list[list[str]]`` gives their tokens, and
            the decomposition counts the statistics on them (a tokenizer it runs,
            not one it models).
        tokens: the module (dotted path) of its own tokenizers, or None when it takes
            tokens, not raw text: ``library_tokenizer(name, lowercase)`` gives
            ``line -> tokens`` as the library's BLEU makes them. Where it runs on raw
            text, the run-time check (:mod:`bleu_compat.tokenizers.check`, issue 20)
            compares those tokens with ours for its installed release.
        version_each_call: ``version_source`` is asked each time, not once per process
            (a script the user gives, whose release is its file's; it raises
            ``OracleUnavailableError`` when there is none).
        config_keys: ``BASE:key=value`` keys of its own (e.g. ``path``: the script to
            run) -> what each is, for the syntax help; its adapter's
            ``configure(config) -> config`` checks them and completes the configuration
            (called by :func:`bleu_compat.decompose.parse_config`).
    """

    name: str
    display_name: str
    distribution: str
    import_modules: tuple[str, ...]
    adapter: str
    model: str
    entries: str
    native: NativeValue
    smoothing: dict[str, str]
    factors: dict[str, Factor]
    configurations: tuple[BuiltinConfiguration, ...] = ()
    decomposition: DecompositionSpec = field(default_factory=DecompositionSpec)
    modes: tuple[str, ...] = ("as_called", "mapped")
    loggers: tuple[str, ...] = ()
    value_methods: tuple[str, ...] = ()
    own_smoothing: dict[str, str] = field(default_factory=dict)
    value_doc: str = ""
    no_effective_order: str | None = None
    colour: str = "#7f7f7f"
    matrix_releases: tuple[str, ...] = ()
    reference_release: str | None = None
    install: str = ""
    in_default_compare: bool = False
    tokenizers: tuple[str, ...] = ()
    model_imports: tuple[str, ...] = ()
    version_source: str | None = None
    tokens: str | None = None
    version_each_call: bool = False
    config_keys: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = [n for n in FACTOR_NAMES if n not in self.factors]
        extra = [n for n in self.factors if n not in FACTOR_NAMES]
        if missing or extra:
            raise ValueError(f"{self.name}: factors must name exactly {list(FACTOR_NAMES)} "
                             f"(missing {missing}, unknown {extra})")
        if "/" in self.name or not self.name:
            raise ValueError(f"{self.name!r}: an implementation name is non-empty, without '/'")

    # ------------------------------------------------------------------ lazy parts
    def installed_version(self) -> str:
        """Its installed version: ``version_source``'s answer, else ``distribution``'s metadata.

        Raises:
            importlib.metadata.PackageNotFoundError: it is not installed.
        """
        if self.version_source:
            return str(_attribute(self.version_source)())
        from importlib import metadata

        return metadata.version(self.distribution)

    def adapter_module(self) -> Any:
        """The adapter module (imports it; the library itself is imported only when it runs)."""
        return _attribute(self.adapter)

    @property
    def evaluate(self) -> Callable[..., dict[str, Any]]:
        """Its dialect model's ``evaluate(tool_id, mode, request, on, cache)``."""
        return _attribute(self.model).evaluate

    def model_module(self) -> Any:
        """The dialect model module (the entry ids it defines live there)."""
        return _attribute(self.model)

    @property
    def catalog_entries(self) -> tuple[Any, ...]:
        """Its catalog entries (:class:`~bleu_compat.harness.dialect.CatalogEntry`), in order."""
        return tuple(_attribute(self.entries).ENTRIES)

    @property
    def verified(self) -> tuple[str, ...]:
        """Every release whose dialect was measured, oldest first."""
        return tuple(_attribute(self.entries).VERIFIED)

    def library_tokenizer(self, name: str, lowercase: bool = False) -> Callable[[str], list[str]]:
        """Its own tokens of one line (``tokens``' ``library_tokenizer``; imports the library).

        Raises:
            LookupError: it has no tokenizers (``tokens`` is None).
            ImportError: the library is not installed.
        """
        if self.tokens is None:
            raise LookupError(f"{self.display_name} takes tokens, not raw text: no tokenizers")
        return _attribute(self.tokens + ":library_tokenizer")(name, lowercase)

    @property
    def implementation_ids(self) -> tuple[str, ...]:
        """``"<name>/<mode>"`` for each of its modes."""
        return tuple(f"{self.name}/{mode}" for mode in self.modes)
