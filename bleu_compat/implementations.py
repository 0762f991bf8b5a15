"""Your own BLEU as an implementation the harness checks: ``--impl MODULE:CALLABLE``.

Most BLEU numbers come from a team's own metric code, not from sacreBLEU or
NLTK. This module wraps such a callable so that ``crosscheck``, ``explain``,
``gate`` and :func:`bleu_compat.testing.assert_bleu_parity` run it on the
same card requests as the libraries, compare it field by field with the
independent truth and classify every difference (SPEC.md §7): identical;
*reproduced by a known dialect* ("it floors totals like NLTK":
``NLTK-DENOMINATOR-FLOOR``); or UNEXPECTED, shrunk to a minimal reproducer.

Signatures (declared, never guessed):

``"tokens->score"``
    ``fn(hypotheses, references[, max_order=N]) -> float``: a corpus of
    tokenized hypotheses (``list[list[str]]``) and, per segment, its
    references (``list[list[list[str]]]``, as the bleu-corpus-compute card
    lays them out) in; the corpus BLEU out, on the declared ``scale``
    (``"0-1"`` or ``"0-100"``; a 0–100 value equal to 100 × the card's double
    is the card's value, any other is divided by 100 as the sacreBLEU adapter
    does). Compared field: ``bleu``. Tool:
    bleu-corpus-compute.
``"tokens->stats"``
    the same arguments; returns the corpus sufficient statistics: a mapping
    or an object with ``matches`` (clipped n-gram matches per order; also
    ``counts``), ``totals``, ``candidate_length`` (``hyp_len``,
    ``sys_len``) and ``reference_length`` (``ref_len``). Compared fields:
    those four. Tool: bleu-corpus-compute.
``"stats->score"``
    ``fn(matches, totals, candidate_length, reference_length[, smoothing=,
    epsilon=, effective_order=]) -> float``: sufficient statistics in, the
    (smoothed) BLEU out on ``scale``. ``smoothing`` is the card's name
    (``"none"``, ``"method1"``, ``"method2"``, ``"method3"``, Chen & Cherry
    2014). Compared field: ``bleu``. Tool: bleu-smoothing-compute.

Any "score" callable may instead return a mapping of card output fields (e.g.
``{"bleu": ..., "brevity_penalty": ...}``); every card field it returns is
compared. Optional keyword parameters are passed only when the callable's
signature has them; a request that needs one the callable lacks (``max_order``
≠ 4, a smoothing method other than ``"none"``, ``epsilon``,
``effective_order``) is *not representable* for it, never a difference.
``decimals`` is never passed: implementations are compared on full doubles
(the request without ``decimals``).

Non-finite returns: a NaN or ±infinity anywhere in the answer (a Python or
numpy float, in the score or in a statistics array) is replaced at this
boundary by the marker ``{"non_finite": "NaN"}`` (``"Infinity"``,
``"-Infinity"``; :func:`non_finite`), so the harness never compares, measures
in ULPs or writes a raw NaN: it differs from every card value (UNEXPECTED) and
is valid JSON in every report. A string where a list of counts is expected is
kept as it is (a wrong type, reported as returned), never split into
characters.

Declaring a callable: ``@declare("tokens->score", scale="0-1")`` (sets
``fn.bleu_compat = {"signature": ..., "scale": ...}``; a module may also set
that attribute by hand without importing bleu_compat), or an
:class:`Implementation` object at ``MODULE:NAME``.

Specs (:func:`load`): ``package.module:callable``, ``path/to/file.py:callable``,
or the name of an entry point in the group ``bleu_compat.implementations``
whose object is a declared callable or an :class:`Implementation`. The
implementation's id in reports is ``"impl:<spec>"``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import inspect
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

__all__ = [
    "SIGNATURES", "SCALES", "ENTRY_POINT_GROUP", "PREFIX", "Implementation", "ImplementationError",
    "NotRepresentableForImpl", "declare", "load", "register", "resolve", "impl_id", "is_impl",
    "non_finite", "NonFinite", "NON_FINITE_KEY", "to_card_units", "revive_markers",
]

SIGNATURES = ("tokens->score", "tokens->stats", "stats->score")
SCALES = ("0-1", "0-100")
ENTRY_POINT_GROUP = "bleu_compat.implementations"
PREFIX = "impl:"

_TOOL_OF = {
    "tokens->score": "bleu-corpus-compute",
    "tokens->stats": "bleu-corpus-compute",
    "stats->score": "bleu-smoothing-compute",
}
_STATS_ALIASES = {
    "matches": ("matches", "counts", "correct"),
    "totals": ("totals", "total"),
    "candidate_length": ("candidate_length", "hyp_len", "sys_len", "translation_length"),
    "reference_length": ("reference_length", "ref_len"),
}
_SCORE_FIELDS = ("bleu", "brevity_penalty", "candidate_length", "reference_length", "matches",
                 "totals", "smoothed_matches", "smoothed_totals", "orders_used", "max_order")


NON_FINITE_KEY = "non_finite"


class NonFinite(dict):  # type: ignore[type-arg]
    """The marker ``{"non_finite": "NaN" | "Infinity" | "-Infinity"}`` (a dict, so it is
    JSON as it is); its ``repr`` and ``str`` are the bare name, for text reports."""

    def __repr__(self) -> str:
        return str(self.get(NON_FINITE_KEY))

    __str__ = __repr__


def non_finite(x: float) -> NonFinite:
    """The JSON-safe marker that stands for a non-finite float an implementation returned.

    ``non_finite(float("nan")) == {"non_finite": "NaN"}``; ``+inf`` gives
    ``"Infinity"`` and ``-inf`` ``"-Infinity"`` (JavaScript's names; JSON
    cannot hold them as numbers). ``repr`` of the marker is the bare name.

    Raises:
        ValueError: ``x`` is finite.
    """
    if math.isnan(x):
        return NonFinite({NON_FINITE_KEY: "NaN"})
    if math.isinf(x):
        return NonFinite({NON_FINITE_KEY: "Infinity" if x > 0 else "-Infinity"})
    raise ValueError(f"{x!r} is finite")


def revive_markers(value: Any) -> Any:
    """JSON data (a checkpoint's, a child process' answer) with each ``{"non_finite": NAME}``
    object made the :class:`NonFinite` marker it was (its ``repr`` the bare name)."""
    if isinstance(value, dict):
        if len(value) == 1 and value.get(NON_FINITE_KEY) in ("NaN", "Infinity", "-Infinity"):
            return NonFinite(value)
        return {k: revive_markers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [revive_markers(v) for v in value]
    return value


def _mark_non_finite(value: Any) -> Any:
    """``value`` with every non-finite float (also a numpy float scalar) replaced by
    :func:`non_finite`'s marker, in lists and tuples too; anything else as it is."""
    if _is_numpy_scalar(value) and not isinstance(value, (int, float)):
        try:
            item = value.item()
        except Exception:  # an odd object with .item(): leave it for the comparison
            return value
        return non_finite(item) if isinstance(item, float) and not math.isfinite(item) else value
    if isinstance(value, float):
        return value if math.isfinite(value) else non_finite(value)
    if isinstance(value, (list, tuple)):
        return [_mark_non_finite(x) for x in value]
    return value


class ImplementationError(ValueError):
    """A spec that does not name a usable implementation (the reason in words)."""


class NotRepresentableForImpl(Exception):
    """The request needs a parameter the callable does not take (the reason)."""


def declare(signature: str, *, scale: str = "0-1", target: str | None = None,
            allow: Sequence[str] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: declare a callable's signature and scale for ``--impl``, and what it is judged
    against (issue 36).

    Args:
        signature: one of :data:`SIGNATURES`.
        scale: ``"0-1"`` (the card's) or ``"0-100"`` (sacreBLEU's); ignored for
            ``"tokens->stats"``.
        target: ``"card"`` (the default) or a configuration of ``score --compare``
            (``"sacrebleu"``, ``"nltk"``, ``"torcheval"``, ...) whose dialect it means to
            compute; every difference from it is a finding
            (:mod:`bleu_compat.harness.target`). The command line's ``--target`` overrides it.
        allow: catalog entry ids whose quirks it has on purpose (the command line's
            ``--allow`` adds to them).

    Raises:
        ImplementationError: unknown signature or scale; a target that is not a string or an
            allow list that is not strings (the names themselves are checked when the
            implementation is judged).
    """
    if callable(signature):  # `@declare` without its call: the function came as the signature
        raise ImplementationError(
            f"@declare needs the signature: write @declare(\"tokens->score\") (one of "
            f"{', '.join(SIGNATURES)}) above {getattr(signature, '__name__', 'the function')}, "
            "not a bare @declare")
    _check(signature, scale)
    allowed = _check_judging(target, allow)
    declared: dict[str, Any] = {"signature": signature, "scale": scale}
    if target is not None:
        declared["target"] = target
    if allowed:
        declared["allow"] = list(allowed)

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.bleu_compat = dict(declared)  # type: ignore[attr-defined]
        return fn

    return mark


def _check_judging(target: Any, allow: Any) -> tuple[str, ...]:
    """``allow`` as a tuple of strings, after checking the types of ``target`` and ``allow``.

    Raises:
        ImplementationError: a target that is not a string, an allow list that is not a list
            of strings.
    """
    if target is not None and not isinstance(target, str):
        raise ImplementationError(f"target={target!r} must be a configuration name (a string) "
                                  "such as 'card' or 'torcheval'")
    if isinstance(allow, (str, bytes)) or not isinstance(allow, (list, tuple)) or not all(
            isinstance(a, str) for a in allow):
        raise ImplementationError(f"allow={allow!r} must be a list of catalog entry ids")
    return tuple(allow)


def _check(signature: str, scale: str) -> None:
    if signature not in SIGNATURES:
        shown = repr(signature) if isinstance(signature, str) else f"a value of type {type(signature).__name__}"
        raise ImplementationError(f"signature={shown} must be one of {', '.join(SIGNATURES)}")
    if scale not in SCALES:
        shown = repr(scale) if isinstance(scale, str) else f"a value of type {type(scale).__name__}"
        raise ImplementationError(f"scale={shown} must be '0-1' or '0-100'")


@dataclass(frozen=True)
class Implementation:
    """A user's BLEU callable with its declared signature.

    Attributes:
        name: the id shown in reports (``"impl:<spec>"``).
        fn: the callable.
        signature: one of :data:`SIGNATURES`.
        scale: ``"0-1"`` or ``"0-100"`` for the score.
        accepts: the optional keyword parameters ``fn`` takes (``max_order``,
            ``smoothing``, ``epsilon``, ``effective_order``).
        target: its declared target (None: the card), allow: its declared allowances
            (:func:`declare`).
    """

    name: str
    fn: Callable[..., Any]
    signature: str
    scale: str = "0-1"
    accepts: frozenset[str] = field(default_factory=frozenset)
    target: str | None = None
    allow: tuple[str, ...] = ()

    @property
    def tool_id(self) -> str:
        """The card whose requests this implementation answers."""
        return _TOOL_OF[self.signature]

    def call(self, tool_id: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """Run the callable on a card ``request``; its answer as card output fields, ``bleu``
        on the implementation's own scale (:meth:`to_card_units` converts it). A NaN or
        ±infinity in the answer is replaced by :func:`non_finite`'s marker.

        Raises:
            NotRepresentableForImpl: another tool, or a parameter the callable lacks.
            ImplementationError: the callable returned something of the wrong shape.
            Exception: whatever the callable raises (the harness records it).
        """
        if tool_id != self.tool_id:
            raise NotRepresentableForImpl(f"a {self.signature} implementation answers {self.tool_id} only")
        kwargs: dict[str, Any] = {}
        if self.signature.startswith("tokens"):
            n = request.get("max_order", 4)
            if "max_order" in self.accepts:
                kwargs["max_order"] = n
            elif n != 4:
                raise NotRepresentableForImpl(f"max_order={n}: the callable takes no max_order")
            value = self.fn(request["hypotheses"], request["references"], **kwargs)
        else:
            for key, default in (("smoothing", "none"), ("epsilon", None), ("effective_order", False)):
                present = request.get(key, default)
                if key in self.accepts:
                    if key in request:
                        kwargs[key] = request[key]
                elif present != default:
                    raise NotRepresentableForImpl(f"{key}={present!r}: the callable takes no {key}")
            value = self.fn(list(request["matches"]), list(request["totals"]),
                            request["candidate_length"], request["reference_length"], **kwargs)
        out = _stats_of(value) if self.signature == "tokens->stats" else self._score_of(value)
        return {k: _mark_non_finite(v) for k, v in out.items()}

    def _score_of(self, value: Any) -> dict[str, Any]:
        if isinstance(value, Mapping):
            out = {k: value[k] for k in _SCORE_FIELDS if k in value}
            if not out:
                raise ImplementationError(
                    f"returned a mapping with no card output field ({', '.join(_SCORE_FIELDS)})")
        elif _is_number(value) or _is_numpy_scalar(value):
            out = {"bleu": value}
        else:
            raise ImplementationError(f"returned {type(value).__name__}, not a number")
        if "bleu" in out:
            out["bleu"] = float(out["bleu"])
        return out

    def to_card_units(self, output: dict[str, Any], expected_bleu: Any = None) -> dict[str, Any]:
        """``output`` with ``bleu`` on the card's 0–1 scale (:func:`to_card_units`)."""
        return to_card_units(self.scale, output, expected_bleu)


def to_card_units(scale: str, output: dict[str, Any], expected_bleu: Any = None) -> dict[str, Any]:
    """``output`` of an implementation on ``scale`` with ``bleu`` on the card's 0–1 scale.

    A 0–100 score equal to ``100 * expected_bleu`` (the card's double times 100:
    the card's value on that scale) *is* the card's value and becomes
    ``expected_bleu``; any other is divided by 100, as the sacreBLEU adapter
    does with sacreBLEU's score. Exact comparisons, no tolerance.
    """
    if scale != "0-100" or not isinstance(output.get("bleu"), float):
        return output
    out = dict(output)
    if isinstance(expected_bleu, (int, float)) and out["bleu"] == 100 * expected_bleu:
        out["bleu"] = expected_bleu
    else:
        out["bleu"] = out["bleu"] / 100
    return out


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_numpy_scalar(x: Any) -> bool:
    return hasattr(x, "item") and hasattr(x, "dtype") and getattr(x, "shape", None) == ()


def _field_of(value: Any, names: tuple[str, ...]) -> Any:
    for name in names:
        if isinstance(value, Mapping) and name in value:
            return value[name]
        if not isinstance(value, Mapping) and hasattr(value, name):
            return getattr(value, name)
    raise ImplementationError(f"returned statistics without {names[0]} (nor {', '.join(names[1:])})")


def _stats_of(value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for card_field, names in _STATS_ALIASES.items():
        v = _field_of(value, names)
        if card_field in ("matches", "totals") and not isinstance(v, (str, bytes, Mapping)):
            # a string is a wrong type, reported as returned (not a list of its characters)
            try:
                v = [_int(x) for x in v]
            except TypeError:  # not iterable (a number): a wrong type, reported as returned
                v = _int(v)
        else:
            v = _int(v)
        out[card_field] = v
    return out


def _int(x: Any) -> Any:
    # Keep a float as it is (a float count is a difference the harness reports).
    if hasattr(x, "item") and not isinstance(x, (int, float)):
        x = x.item()
    return x


def _accepts(fn: Callable[..., Any]) -> frozenset[str]:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return frozenset(("max_order", "smoothing", "epsilon", "effective_order"))
    return frozenset(k for k in ("max_order", "smoothing", "epsilon", "effective_order") if k in params)


def wrap(name: str, obj: Any, *, signature: str | None = None, scale: str | None = None) -> Implementation:
    """An :class:`Implementation` of ``obj`` (a declared callable or an Implementation).

    ``signature``/``scale`` override (or supply) the declaration.

    Raises:
        ImplementationError: ``obj`` is not callable or declares no signature.
    """
    if isinstance(obj, Implementation):
        return Implementation(name, obj.fn, signature or obj.signature, scale or obj.scale,
                              obj.accepts, obj.target, obj.allow)
    if not callable(obj):
        raise ImplementationError(f"{name}: {type(obj).__name__} object is not callable")
    declared = getattr(obj, "bleu_compat", None)
    malformed = declared is not None and not isinstance(declared, Mapping)
    declared = declared if isinstance(declared, Mapping) else {}
    sig = signature or declared.get("signature")
    if sig is None:
        what = (f"its bleu_compat attribute is a {type(getattr(obj, 'bleu_compat')).__name__}, "
                "not a dict" if malformed else "the callable declares no signature")
        raise ImplementationError(
            f"{name}: {what}; decorate it with "
            f"@bleu_compat.implementations.declare(...) or set its bleu_compat attribute to "
            f"{{'signature': one of {', '.join(SIGNATURES)}, 'scale': '0-1' or '0-100'}}")
    sc = scale or declared.get("scale", "0-1")
    _check(sig, sc)
    target = declared.get("target")
    try:
        allow = _check_judging(target, declared.get("allow", ()))
    except ImplementationError as exc:
        raise ImplementationError(f"{name}: its bleu_compat declaration: {exc}") from None
    return Implementation(name, obj, sig, sc, _accepts(obj), target, allow)


def _import_file(path: Path) -> Any:
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    module_name = f"bleu_compat_user_{path.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImplementationError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise ImplementationError(f"importing {path} failed: {type(exc).__name__}: {exc}") from exc
    return module


def _entry_point(name: str) -> Any:
    from bleu_compat.libraries.plugin import installed_entry_points

    points = installed_entry_points(ENTRY_POINT_GROUP)
    found = [ep for ep in points if ep.name == name]
    if not found:
        known = sorted(ep.name for ep in points)
        raise ImplementationError(
            f"{name!r} is not MODULE:CALLABLE, FILE.py:CALLABLE nor an entry point of group "
            f"{ENTRY_POINT_GROUP} (installed: {', '.join(known) or 'none'})")
    try:
        return found[0].load()
    except Exception as exc:
        raise ImplementationError(f"loading entry point {name!r} failed: {type(exc).__name__}: {exc}") from exc


_REGISTRY: dict[str, Implementation] = {}


def register(implementation: Any) -> str:
    """Make ``implementation`` (an :class:`Implementation`, or an
    :class:`~bleu_compat.isolation.IsolatedImplementation`) runnable in this process, and
    in processes forked from it, under its name; returns the name."""
    _REGISTRY[implementation.name] = implementation
    return implementation.name


def impl_id(spec: str) -> str:
    """The implementation id of a spec: ``"impl:<spec>"``."""
    return spec if spec.startswith(PREFIX) else PREFIX + spec


def is_impl(implementation: str) -> bool:
    """True for an implementation id naming a user's callable."""
    return implementation.startswith(PREFIX)


@functools.lru_cache(maxsize=None)
def load(spec: str) -> Implementation:
    """The implementation a spec names (see the module docstring), loaded once per process.

    Args:
        spec: ``MODULE:CALLABLE``, ``FILE.py:CALLABLE`` or an entry-point name
            (with or without the ``impl:`` prefix). ``CALLABLE`` may be dotted
            (``module:Class.method``).

    Raises:
        ImplementationError: the module, file, attribute or entry point is
            missing, or the object declares no signature.
    """
    bare = spec[len(PREFIX):] if spec.startswith(PREFIX) else spec
    name = impl_id(bare)
    if ":" not in bare:
        return wrap(name, _entry_point(bare))
    module_part, _, attr = bare.rpartition(":")
    if not module_part or not attr:
        raise ImplementationError(f"{bare!r}: give MODULE:CALLABLE or FILE.py:CALLABLE")
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        path = Path(module_part).resolve()
        if not path.exists():
            raise ImplementationError(f"{module_part}: no such file")
        if not path.is_file():
            raise ImplementationError(f"{module_part}: not a regular file (a Python source file is needed)")
        module = _import_file(path)
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            raise ImplementationError(f"cannot import module {module_part!r}: {exc}") from exc
        except Exception as exc:
            raise ImplementationError(
                f"importing {module_part!r} failed: {type(exc).__name__}: {exc}") from exc
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ImplementationError(f"{module_part} has no attribute {attr!r}") from None
    return wrap(name, obj)


def resolve(implementation: str) -> Any:
    """The implementation behind an ``impl:`` id: the one registered under it
    (:func:`register`: an in-process :class:`Implementation`, or the
    :class:`~bleu_compat.isolation.IsolatedImplementation` the command line
    registers), else the spec run in a child process of its own
    (:func:`bleu_compat.isolation.isolated`, default timeout).

    Raises:
        ImplementationError: as :func:`load`.
    """
    if implementation in _REGISTRY:
        return _REGISTRY[implementation]
    from bleu_compat.isolation import isolated

    return isolated(implementation)
