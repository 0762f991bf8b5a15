"""Distance between doubles in units in the last place (ULPs).

The one float comparison of the project (STYLE.md): the harness, the
catalog and the tests all measure float differences with
:func:`ulp_distance`, never with a relative tolerance. Standard library only.
"""

from __future__ import annotations

import math
import struct

__all__ = ["ulp_distance", "ordinal"]


def ordinal(x: float) -> int:
    """The position of ``x`` in the ordered sequence of doubles.

    Consecutive doubles have consecutive ordinals; ``+0.0`` and ``-0.0`` both
    map to 0.

    Raises:
        ValueError: ``x`` is NaN.
    """
    if math.isnan(x):
        raise ValueError("NaN has no ordinal")
    (bits,) = struct.unpack("<q", struct.pack("<d", float(x)))
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def ulp_distance(a: float, b: float) -> int:
    """How many doubles lie between ``a`` and ``b``, plus one (0 when equal).

    ``ulp_distance(1.0, math.nextafter(1.0, 2.0)) == 1``; ``0.0`` and ``-0.0``
    are 0 apart; the distance from 0.0 to the smallest subnormal is 1.

    Raises:
        ValueError: either argument is NaN.
    """
    return abs(ordinal(a) - ordinal(b))
