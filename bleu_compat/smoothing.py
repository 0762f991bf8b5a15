"""Chen & Cherry (2014) smoothing of BLEU counts, methods 1–3.

Boxing Chen and Colin Cherry, "A Systematic Comparison of Smoothing
Techniques for Sentence-Level BLEU", WMT 2014, section 2.2; the
bleu-smoothing-compute card, semantics 2. One pure function per method;
each maps (matches, totals) to (smoothed_matches, smoothed_totals) without
touching its arguments. Standard library only.
"""

from __future__ import annotations

import enum
from typing import Sequence, Union

from .errors import ConfigError

__all__ = [
    "Smoothing",
    "Count",
    "DEFAULT_EPSILON",
    "smooth_none",
    "smooth_method1",
    "smooth_method2",
    "smooth_method3",
    "smooth",
]

Count = Union[int, float]
DEFAULT_EPSILON = 0.1


class Smoothing(str, enum.Enum):
    """The smoothing methods of the bleu-smoothing-compute card."""

    NONE = "none"
    METHOD1 = "method1"  # epsilon for zero matches (sacreBLEU 'floor')
    METHOD2 = "method2"  # add one to orders n >= 2 (sacreBLEU 'add-k', k = 1)
    METHOD3 = "method3"  # 1/2^k for the k-th zero-match order (sacreBLEU 'exp', mteval NIST)


Smoothed = tuple[tuple[Count, ...], tuple[Count, ...]]


def smooth_none(matches: Sequence[int], totals: Sequence[int]) -> Smoothed:
    """No smoothing: the counts unchanged."""
    return tuple(matches), tuple(totals)


def smooth_method1(
    matches: Sequence[int], totals: Sequence[int], epsilon: Count = DEFAULT_EPSILON
) -> Smoothed:
    """Method 1: every zero match count becomes ``epsilon`` (as given).

    Raises:
        ConfigError: ``epsilon`` is outside [0, 1].
    """
    if isinstance(epsilon, bool) or not 0 <= epsilon <= 1:
        raise ConfigError(f"epsilon={epsilon!r} must be a number in [0, 1]")
    return tuple(epsilon if m == 0 else m for m in matches), tuple(totals)


def smooth_method2(matches: Sequence[int], totals: Sequence[int]) -> Smoothed:
    """Method 2: add 1 to the match count and the total of every order n >= 2
    (so 0/0 becomes 1/1); order 1 is unchanged."""
    return (
        tuple(m if k == 0 else m + 1 for k, m in enumerate(matches)),
        tuple(t if k == 0 else t + 1 for k, t in enumerate(totals)),
    )


def smooth_method3(matches: Sequence[int], totals: Sequence[int]) -> Smoothed:
    """Method 3 (mteval-v13a's NIST smoothing): the k-th order with zero
    matches, counting k = 1, 2, ... over all orders (those with total 0
    included, SPEC.md §4), gets the match count 1/2^k (exact in binary)."""
    smoothed: list[Count] = []
    k = 0
    for m in matches:
        if m == 0:
            k += 1
            smoothed.append(0.5**k)
        else:
            smoothed.append(m)
    return tuple(smoothed), tuple(totals)


def smooth(
    matches: Sequence[int],
    totals: Sequence[int],
    smoothing: Smoothing | str = Smoothing.NONE,
    *,
    epsilon: Count | None = None,
) -> Smoothed:
    """Apply ``smoothing`` to the counts.

    Args:
        matches: m_n per order, ints.
        totals: l_n per order, ints.
        smoothing: a :class:`Smoothing` or its string value.
        epsilon: method1's floor; omitted means 0.1.

    Raises:
        ConfigError: unknown smoothing, or ``epsilon`` given with another method.
    """
    try:
        method = Smoothing(smoothing)
    except ValueError:
        raise ConfigError(
            f"smoothing={smoothing!r} must be one of {[m.value for m in Smoothing]}"
        ) from None
    if epsilon is not None and method is not Smoothing.METHOD1:
        raise ConfigError(f"epsilon={epsilon!r} is accepted only with smoothing='method1'")
    if method is Smoothing.NONE:
        return smooth_none(matches, totals)
    if method is Smoothing.METHOD1:
        return smooth_method1(matches, totals, DEFAULT_EPSILON if epsilon is None else epsilon)
    if method is Smoothing.METHOD2:
        return smooth_method2(matches, totals)
    return smooth_method3(matches, totals)
