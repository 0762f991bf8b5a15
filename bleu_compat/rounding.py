"""JavaScript ``Number.prototype.toFixed`` and ``Number.prototype.toString``.

``toFixed`` rounds the *exact binary value* of a double to the nearest
decimal with ``decimals`` places, an exact tie going to the larger magnitude
(ECMA-262, Number.prototype.toFixed, step 10.a: "if there are two such n,
pick the larger n"). Python's ``round``/``format`` break exact ties to even:
``round(0.625, 2) == 0.62`` where ``(0.625).toFixed(2) == "0.63"``.
Standard library only.
"""

from __future__ import annotations

import decimal
import math

__all__ = ["to_fixed", "to_fixed_str", "js_number_str"]

_CONTEXT = decimal.Context(prec=2000, rounding=decimal.ROUND_HALF_UP)

#: ints below this magnitude (at most 640 digits, the least value Python's
#: int-to-str digit limit can be set to) are written with str().
_STR_SAFE = 10**640


def to_fixed_str(x: float, decimals: int) -> str:
    """``x.toFixed(decimals)`` as JavaScript writes it, e.g. ``"0.63"``.

    Args:
        x: a finite double.
        decimals: places after the point, 0–100 (the cards allow 0–15).

    Raises:
        ValueError: ``decimals`` outside 0–100 or ``x`` not finite.
    """
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 100:
        raise ValueError(f"decimals={decimals!r} must be an int in [0, 100]")
    if not math.isfinite(x):
        raise ValueError(f"x={x!r} must be finite")
    if abs(x) >= 1e21:  # ECMA-262: toFixed falls back to ToString
        return js_number_str(x)
    if x == 0:
        x = 0.0  # (-0).toFixed(2) is "0.00": -0 is not < 0 (ECMA-262 step 9)
    exact = decimal.Decimal(x)  # the exact binary value
    q = exact.quantize(decimal.Decimal(1).scaleb(-decimals), context=_CONTEXT)
    return f"{q:f}"


def to_fixed(x: float, decimals: int) -> float:
    """``Number(x.toFixed(decimals))``: round like JavaScript, read back as a double.

    Examples (SPEC.md §2): ``to_fixed(0.625, 2) == 0.63``,
    ``to_fixed(0.5, 0) == 1.0``, ``to_fixed(0.0625, 3) == 0.063``,
    ``to_fixed(1.005, 2) == 1.0`` (1.005's binary value lies below the tie).
    """
    return float(to_fixed_str(x, decimals))


def js_number_str(x: float | int) -> str:
    """A number as JavaScript's ``Number::toString`` (and ``JSON.stringify``) writes it.

    Integral values have no fraction (``1``, not ``1.0``); the digits are
    the shortest that round-trip (as Python's ``repr``); the exponent form
    is used below 1e-6 and from 1e21 on (``1e-7``, ``1e+21``), as ECMA-262
    Number::toString specifies.

    Raises:
        ValueError: ``x`` is NaN or infinite (JSON cannot hold them).
    """
    if isinstance(x, bool):
        raise ValueError("a bool is not a number")
    if isinstance(x, int):
        if -_STR_SAFE < x < _STR_SAFE:
            return str(x)
        # str() refuses ints over sys.get_int_max_str_digits() digits (4300 by
        # default, 640 at least); Decimal converts any int exactly.
        return f"{decimal.Decimal(x):f}"
    if not math.isfinite(x):
        raise ValueError(f"{x!r} cannot be written as JSON")
    if x == 0:
        return "0"  # also -0, as JSON.stringify writes it
    text = repr(x)
    if "e" not in text:
        # 1e-4 <= |x| < 1e16: repr already writes the shortest digits in fixed
        # notation, as Number::toString does; only an integral value's ".0" goes
        return text[:-2] if text.endswith(".0") else text
    return _js_float_str(x)


def _js_float_str(x: float) -> str:
    """:func:`js_number_str` of a finite non-zero float, from repr's digits in every range."""
    sign = "-" if x < 0 else ""
    # repr gives the shortest round-tripping digits; value = int(digits) * 10**exp
    _, digit_tuple, exp = decimal.Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    exp = int(exp)
    point = len(digits) + exp  # value = 0.digits * 10**point
    k, n = len(digits), point
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        body = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body
