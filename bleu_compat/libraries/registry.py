"""The registry of BLEU implementations: which plug-ins exist, in which order.

Modelled on fsspec's ``known_implementations`` and on entry points (as
``--impl`` uses them): :data:`KNOWN_IMPLEMENTATIONS` maps each built-in
implementation's name to where its declaration lives
(``"package.module:LIBRARY"``, a :class:`~bleu_compat.libraries.plugin.Library`);
a package of its own adds one through the entry point group
``bleu_compat.libraries`` (of an installed distribution: not a ``*.dist-info`` in the
working directory; one that fails to load is left out and named by
:func:`load_failures`)::

    [project.entry-points."bleu_compat.libraries"]
    my-bleu = "my_package.bleu_plugin:LIBRARY"

and a program can :func:`register` one at run time. Everything that iterates
over implementations (catalog, crosscheck, reports, explain, gate, matrix,
``score --compare``) asks :func:`libraries` — in this order, which is the
order of every report — and no other module names one.

``$BLEU_COMPAT_LIBRARIES`` (comma-separated names) restricts the registry to
those implementations, in the order given (e.g. ``sacrebleu,nltk`` reproduces
the reports of a bleu-compat that knew only those two).

Loading a declaration imports no library and nothing of bleu_compat but
:mod:`bleu_compat.libraries.plugin`: the registry is part of the judge.
"""

from __future__ import annotations

import os

from bleu_compat.libraries.plugin import Library

__all__ = [
    "KNOWN_IMPLEMENTATIONS", "ENTRY_POINT_GROUP", "UnknownLibraryError", "libraries", "library",
    "names", "of_implementation", "implementation_ids", "installed", "is_installed", "register", "reset", "quiet_loggers",
    "display_name", "join_names", "load_failures", "ENV", "SYNTAX_EXAMPLES", "RENAMED_CONFIGURATIONS",
]

#: name -> "module:attribute" of its :class:`Library`, in report order
KNOWN_IMPLEMENTATIONS: dict[str, str] = {
    "sacrebleu": "bleu_compat.libraries.sacrebleu:LIBRARY",
    "nltk": "bleu_compat.libraries.nltk:LIBRARY",
    "torchmetrics": "bleu_compat.libraries.torchmetrics:LIBRARY",
    "torcheval": "bleu_compat.libraries.torcheval:LIBRARY",
    "pycocoevalcap": "bleu_compat.libraries.pycocoevalcap:LIBRARY",
    "fast-bleu": "bleu_compat.libraries.fast_bleu:LIBRARY",
    "hf-bleu": "bleu_compat.libraries.hf_bleu:LIBRARY",
    "bleuscore": "bleu_compat.libraries.bleuscore:LIBRARY",
    "t2t": "bleu_compat.libraries.t2t:LIBRARY",
    "multi-bleu": "bleu_compat.libraries.multi_bleu:LIBRARY",
    "multi-bleu-detok": "bleu_compat.libraries.multi_bleu_detok:LIBRARY",
    "mteval-v13a": "bleu_compat.libraries.mteval_v13a:LIBRARY",
    "mteval-v14": "bleu_compat.libraries.mteval_v14:LIBRARY",
}
#: examples of ``score --compare`` configurations for the syntax help (those whose
#: implementation is registered are shown)
SYNTAX_EXAMPLES: tuple[str, ...] = ("nltk:tok=13a,smooth=method1", "sacrebleu:tok=none,smooth=none")
#: ``score --compare`` configuration names that were renamed -> the message refusing them
RENAMED_CONFIGURATIONS: dict[str, str] = {
    "multi-bleu": ("'multi-bleu' was the card on str.split() tokens: it is now called "
                   "'card-split' (bleu-compat's formula, not the Perl script); to run "
                   "Moses' multi-bleu.perl itself give 'multi-bleu.perl:path=FILE'"),
}
#: the entry point group of implementations shipped by other packages
ENTRY_POINT_GROUP = "bleu_compat.libraries"
#: the environment variable restricting the registry (comma-separated names)
ENV = "BLEU_COMPAT_LIBRARIES"

_loaded: tuple[Library, ...] | None = None
_added: list[Library] = []
_installed: dict[str, bool] = {}
_failures: list[str] = []


class UnknownLibraryError(ImportError, LookupError):
    """A name given for an implementation that the registry does not know (the message lists
    the known ones)."""


def _load(path: str) -> Library:
    from bleu_compat.libraries.plugin import _attribute

    lib = _attribute(path)
    if not isinstance(lib, Library):
        raise TypeError(f"{path} is not a bleu_compat Library declaration")
    return lib


def _discover() -> list[Library]:
    from bleu_compat.libraries.plugin import installed_entry_points

    found = [_load(path) for path in KNOWN_IMPLEMENTATIONS.values()]
    try:
        points = installed_entry_points(ENTRY_POINT_GROUP)
    except Exception:  # a broken metadata directory must not hide the built-in ones
        points = []
    _failures.clear()
    for ep in points:
        if ep.name in KNOWN_IMPLEMENTATIONS:
            continue
        try:
            origin = f"{ep.dist.metadata['Name']} {ep.dist.version}"
        except Exception:  # no or unreadable metadata: the entry point still names itself
            origin = "?"
        try:
            lib = ep.load()
        except Exception as exc:  # left out, and said: a plug-in that fails is never silent
            _failures.append(f"the plug-in {ep.name!r} ({ep.value}, distribution {origin}) was "
                             f"not loaded: {type(exc).__name__}: {exc}")
            continue
        if isinstance(lib, Library):
            found.append(lib)
        else:
            _failures.append(f"the plug-in {ep.name!r} ({ep.value}, distribution {origin}) was "
                             f"not loaded: it is a {type(lib).__name__}, not a bleu_compat Library")
    return found + [lib for lib in _added if lib.name not in {f.name for f in found}]


def load_failures() -> tuple[str, ...]:
    """One sentence per entry-point plug-in that was found but not loaded (the command line
    prints them on standard error), since the registry was last read."""
    return tuple(_failures)


def libraries() -> tuple[Library, ...]:
    """Every registered implementation, in report order (restricted by ``$BLEU_COMPAT_LIBRARIES``).

    Raises:
        UnknownLibraryError: ``$BLEU_COMPAT_LIBRARIES`` names an implementation
            the registry does not know.
    """
    global _loaded
    if _loaded is None:
        every = _discover()
        chosen = os.environ.get(ENV, "").strip()
        if chosen:
            by_name = {lib.name: lib for lib in every}
            wanted = [n.strip() for n in chosen.split(",") if n.strip()]
            unknown = [n for n in wanted if n not in by_name]
            if unknown:
                raise UnknownLibraryError(
                    f"${ENV} names {', '.join(map(repr, unknown))}: the implementations are "
                    f"{', '.join(by_name)}")
            every = [by_name[n] for n in dict.fromkeys(wanted)]
        _loaded = tuple(every)
    return _loaded


def names() -> tuple[str, ...]:
    """The registered implementations' names, in report order."""
    return tuple(lib.name for lib in libraries())


def library(name: str) -> Library:
    """The implementation called ``name``.

    Raises:
        UnknownLibraryError: no such implementation is registered.
    """
    for lib in libraries():
        if lib.name == name:
            return lib
    raise UnknownLibraryError(f"no implementation {name!r}: the implementations are "
                              f"{', '.join(names()) or 'none'}")


def of_implementation(impl: str) -> Library | None:
    """The library of an implementation id ``"<name>/<mode>"`` (None for ``ours``, ``impl:...``)."""
    name, slash, _ = impl.partition("/")
    if not slash or impl.startswith("impl:"):
        return None
    return next((lib for lib in libraries() if lib.name == name), None)


def is_installed(lib: Library) -> bool:
    """Whether ``lib`` is installed (:meth:`Library.installed_version` answers; read once, or
    each time for a ``version_each_call`` implementation: a script the environment names)."""
    if lib.name not in _installed or lib.version_each_call:
        try:
            lib.installed_version()
            _installed[lib.name] = True
        except ImportError:  # metadata.PackageNotFoundError, or a script not named (OracleUnavailableError)
            _installed[lib.name] = False
    return _installed[lib.name]


def installed() -> tuple[Library, ...]:
    """The registered implementations that are installed, in report order."""
    return tuple(lib for lib in libraries() if is_installed(lib))


def implementation_ids() -> tuple[str, ...]:
    """``"<name>/<mode>"`` of every installed registered implementation and mode, in report order
    (what a crosscheck runs by default: one that is not installed is not run)."""
    return tuple(i for lib in installed() for i in lib.implementation_ids)


def display_name(name: str) -> str:
    """How implementation ``name`` spells itself (``name`` itself when unknown: ``card``)."""
    return next((lib.display_name for lib in libraries() if lib.name == name), name)


def join_names(items: list[str] | tuple[str, ...], last: str = "and") -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def register(lib: Library) -> None:
    """Add an implementation at run time (after the built-in and entry-point ones).

    Raises:
        ValueError: an implementation of that name is already registered.
    """
    if any(x.name == lib.name for x in _discover()):
        raise ValueError(f"an implementation {lib.name!r} is already registered")
    _added.append(lib)
    reset()


def reset() -> None:
    """Forget what was loaded (the next call reads the declarations and the environment again)."""
    global _loaded
    _loaded = None
    _installed.clear()


def quiet_loggers() -> None:
    """Set the registered libraries' loggers to ERROR (their advice about tokenized input is noise
    here: the cards' tokens are tokenized by design)."""
    import logging

    for lib in libraries():
        for name in lib.loggers:
            logging.getLogger(name).setLevel(logging.ERROR)

