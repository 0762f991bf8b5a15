"""How the command line's options reach the configurations ``--compare`` runs (issue 23).

``score REF -i SYS -tok zh --compare`` asks for the libraries *run with zh*,
not for the libraries at their defaults under a headline at zh. The rules
(docs/score.md, "Options and configurations"):

* ``card`` is the command's own configuration (the headline's): its tokenizer,
  case, smoothing and value, and max order are the command's, given or default.
* Every other configuration takes each option *given* on the command line
  (``-tok``, or ``-l``'s tokenizer without it, ``-lc``, ``-s``, ``-sv``, ``--effective-order``, ``--max-order``) that it can
  have, unless
  its own spec sets that key (``nltk:smooth=method1`` keeps method1 whatever
  ``-s`` says: the spec names one configuration, the command line all of them).
  A bare name is its built-in configuration with the options given; with no
  option given it is the library as its users run it by default.
* ``--defaults``: every configuration but ``card`` keeps its built-in settings
  (each library as its users run it by default), except the max order:
  ``--max-order`` applies to every configuration, since a decomposition compares
  numbers of one n-gram order.
* An option a configuration cannot have is not applied, and its row says so
  with the implementation's own reason; an option that no compared
  configuration can have is an error naming the option and the configurations.

``-s`` is given in sacreBLEU's names; each implementation gets its own method
of the same computation (its declaration's ``smoothing`` map to the card's
methods: sacreBLEU ``floor`` = NLTK ``method1`` = card ``method1``, ``add-k``
(k = 1) = ``method2``, ``exp`` = ``method3``); ``-sv`` is that method's value
(floor's epsilon = NLTK method1's epsilon, add-k's k) where the method takes one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

__all__ = ["GivenOptions", "Resolved", "resolve_configurations"]


@dataclass(frozen=True)
class GivenOptions:
    """The options given on the command line (None / False: not given).

    Attributes:
        tokenize: ``-tok`` (a tokenizer name), or the one ``-l``'s target chooses.
        lowercase: ``-lc``.
        smooth: ``-s``, in sacreBLEU's names (``none|floor|add-k|exp``).
        smooth_value: ``-sv`` (floor's epsilon or add-k's k).
        effective_order: ``--effective-order``.
        max_order: ``--max-order`` N.
    """

    tokenize: str | None = None
    #: how the tokenizer was asked for, in messages: ``-tok zh``, or ``-l en-zh`` (sacreBLEU's
    #: default tokenizer for the target, which then applies wherever ``-tok`` would)
    tokenize_flag: str | None = None
    lowercase: bool = False
    smooth: str | None = None
    smooth_value: float | None = None
    effective_order: bool = False
    max_order: int | None = None


@dataclass(frozen=True)
class Resolved:
    """One compared configuration as run, and the options it could not take.

    Attributes:
        config: the :class:`~bleu_compat.decompose.Configuration` run (its ``name``
            is the spec as given).
        not_applied: ``(option as given, why)`` for each option given that this
            configuration cannot have (the implementation's own reason).
        kept: ``(option as given, key)`` for each option given that the spec's own
            ``key=`` overrides.
    """

    config: Any
    not_applied: tuple[tuple[str, str], ...] = ()
    kept: tuple[tuple[str, str], ...] = ()


class OptionRefused(ValueError):
    """An option no compared configuration can have (the message names both)."""


def _spec_keys(spec: str) -> set[str]:
    """The keys a ``BASE:key=value,...`` spec sets itself (``lc`` alone is ``lc=yes``)."""
    _, _, rest = spec.partition(":")
    return {item.strip().partition("=")[0] for item in rest.split(",") if item.strip()}


def _with_keys(spec: str, items: Sequence[str]) -> str:
    """``spec`` with ``key=value`` items added first (an own ``path=`` key takes the rest of a
    spec, so the items go before the spec's own)."""
    if not items:
        return spec
    base, colon, rest = spec.partition(":")
    return f"{base}:{','.join(items)}" + (f",{rest}" if colon and rest else "")


def _smoothing_methods(implementation: str) -> dict[str, str]:
    """implementation -> {its method name: the card's method} (the card: its own names)."""
    from bleu_compat.decompose import CARD, CARD_SMOOTHINGS, _library

    lib = _library(implementation)
    if lib is None or implementation == CARD:
        return {m: m for m in CARD_SMOOTHINGS}
    return dict(lib.smoothing)


def _value_methods(implementation: str) -> tuple[str, ...]:
    from bleu_compat.decompose import _library

    lib = _library(implementation)
    return ("method1",) if lib is None else tuple(lib.value_methods)


def _display(implementation: str) -> str:
    from bleu_compat.decompose import _library

    lib = _library(implementation)
    return "the card" if lib is None else lib.display_name


def _smoothing_items(cfg: Any, smooth: str | None, value: float | None
                     ) -> tuple[list[tuple[str, list[str]]], list[tuple[str, str]]]:
    """The ``smooth=``/``value=`` items for ``-s``/``-sv`` on ``cfg``, and what cannot be applied.

    Returns ``([(option, items)], [(option, why)])``.
    """
    from bleu_compat.cli.score.settings import SMOOTH_CARD

    methods = _smoothing_methods(cfg.implementation)
    items: list[tuple[str, list[str]]] = []
    refused: list[tuple[str, str]] = []
    method = cfg.smoothing
    if smooth is not None:
        card = SMOOTH_CARD[smooth]
        same = [name for name, m in methods.items() if m == card]
        if not same:
            refused.append((f"-s {smooth}", f"{_display(cfg.implementation)} has no smoothing "
                            f"computing sacreBLEU's {smooth} (the card's {card}); it has "
                            + ", ".join(methods)))
            if value is not None:
                refused.append((f"-sv {value:g}", f"the value of -s {smooth}, which "
                                f"{_display(cfg.implementation)} does not have"))
            return items, refused
        else:
            method = (cfg.smoothing if cfg.smoothing in same
                      else smooth if smooth in same else same[0])
            items.append((f"-s {smooth}", [f"smooth={method}"]))
    if value is not None:
        flag = f"-sv {value:g}"
        if method not in _value_methods(cfg.implementation):
            takes = _value_methods(cfg.implementation)
            refused.append((flag, f"{_display(cfg.implementation)}'s smoothing {method} takes "
                            "no value" + (f" (only {' and '.join(takes)} "
                                          f"take{'s' if len(takes) == 1 else ''} one)" if takes
                                          else "")))
        else:
            items.append((flag, [f"value={value!r}"]))
    return items, refused


def resolve_configurations(specs: Sequence[str], given: GivenOptions, *, defaults: bool,
                           card_tokenize: str, card_lowercase: bool, card_smooth: str,
                           card_smooth_value: float | None, max_order: int) -> list[Resolved]:
    """Each spec's configuration with the command line's options applied (module docstring).

    Args:
        specs: the configurations compared (built-in names or ``BASE:key=value,...``).
        given: the options given on the command line.
        defaults: ``--defaults`` (only ``card`` and the max order follow the command).
        card_tokenize, card_lowercase, card_smooth (sacreBLEU's name),
            card_smooth_value, max_order: the command's settings, given or default
            (the ``card`` configuration's).

    Returns:
        One :class:`Resolved` per spec, in order.

    Raises:
        ValueError: a bad spec (parse_config's message).
        OptionRefused: an option that no compared configuration can have.
    """
    from bleu_compat.cli.score.settings import SMOOTH_CARD
    from bleu_compat.decompose import parse_config

    out: list[Resolved] = []
    tried: dict[str, list[str]] = {}  # option -> the configurations that could not take it
    for spec in specs:
        original = parse_config(spec, card_tokenize=card_tokenize, card_lowercase=card_lowercase)
        own = _spec_keys(spec)
        base = spec.partition(":")[0]
        if base == "card":  # the command's own configuration: its settings, given or default
            method = SMOOTH_CARD[card_smooth]
            changes: dict[str, Any] = {}
            if "smooth" not in own:
                changes["smoothing"] = method
                if "value" not in own:
                    changes["smooth_value"] = card_smooth_value if method == "method1" else None
            if "order" not in own:
                changes["max_order"] = max_order
            if "eff" not in own:
                changes["effective_order"] = given.effective_order
            refused_card: list[tuple[str, str]] = []
            if given.smooth_value is not None and "value" not in own and method != "method1" \
                    and not (method == "method2" and given.smooth_value == 1):
                refused_card.append((f"-sv {given.smooth_value:g}",
                                     f"the card's {method} takes no value"))
            for flag, _ in refused_card:
                tried.setdefault(flag, []).append(original.name)
            out.append(Resolved(replace(original, **changes), tuple(refused_card)))
            continue
        options: list[tuple[str, str, list[str]]] = []  # (option, key, items)
        if not defaults:
            if given.tokenize is not None:
                flag = given.tokenize_flag or f"-tok {given.tokenize}"
                options.append((flag, "tok", [f"tok={given.tokenize}"]))
            if given.lowercase:
                options.append(("-lc", "lc", ["lc=yes"]))
            if given.effective_order:
                options.append(("--effective-order", "eff", ["eff=yes"]))
        if given.max_order is not None:
            options.append((f"--max-order {given.max_order}", "order",
                            [f"order={given.max_order}"]))
        refused: list[tuple[str, str]] = []
        kept: list[tuple[str, str]] = []
        if not defaults and (given.smooth is not None or given.smooth_value is not None):
            smooth = None if "smooth" in own else given.smooth
            value = None if "value" in own else given.smooth_value
            if given.smooth is not None and smooth is None:
                kept.append((f"-s {given.smooth}", "smooth"))
            if given.smooth_value is not None and value is None:
                kept.append((f"-sv {given.smooth_value:g}", "value"))
            items, why = _smoothing_items(original, smooth, value)
            refused += why
            options += [(flag, flag.split()[0], its) for flag, its in items]
        applied: list[str] = []
        for flag, key, items in options:
            if key in own and key not in ("-s", "-sv"):
                kept.append((flag, key))
                continue
            try:
                parse_config(_with_keys(spec, [*applied, *items]), card_tokenize=card_tokenize,
                             card_lowercase=card_lowercase)
            except ValueError as exc:
                refused.append((flag, _reason(str(exc), spec)))
                continue
            applied += items
        cfg = parse_config(_with_keys(spec, applied), card_tokenize=card_tokenize,
                           card_lowercase=card_lowercase)
        cfg = replace(cfg, name=original.name)
        for flag, _ in refused:
            tried.setdefault(flag, []).append(original.name)
        out.append(Resolved(cfg, tuple(sorted(refused, key=_flag_order)),
                            tuple(sorted(kept, key=_flag_order))))
    names = [r.config.name for r in out]
    for flag, who in tried.items():
        took = [r for r in out if not any(f == flag for f, _ in r.not_applied)
                and not any(f == flag for f, _ in r.kept)]
        if not took:
            reasons = "; ".join(f"{r.config.name}: {why}" for r in out
                                for f, why in r.not_applied if f == flag)
            raise OptionRefused(f"{flag}: no configuration compared ({', '.join(names)}) can "
                                f"have it ({reasons})")
    return out


#: the options in the order they are listed (the command line's: -tok -lc -s -sv --max-order)
_FLAGS = ("-tok", "-l", "-lc", "-s", "-sv", "--effective-order", "--max-order")


def _flag_order(item: tuple[str, str]) -> int:
    return _FLAGS.index(item[0].split()[0])


def _reason(message: str, spec: str) -> str:
    """parse_config's message without the spec it repeats (``SPEC: why`` -> ``why``)."""
    for prefix in (f"{spec}: ",):
        if message.startswith(prefix):
            return message[len(prefix):]
    head, sep, tail = message.partition(": ")
    return tail if sep and ":" in head and "=" in head else message
