"""Field-by-field comparison of card outputs, and the Discrepancy record.

Integers and arrays compare exactly (JSON number equality: ``1 == 1.0``,
a bool is never a number); floats compare by distance in ULPs
(:func:`bleu_compat.ulp.ulp_distance`, the project's one float comparison).
Nothing is rounded before comparing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from bleu_compat.ulp import ulp_distance

__all__ = ["FieldDiff", "Discrepancy", "compare_outputs", "float_ulps"]


@dataclass(frozen=True)
class FieldDiff:
    """One output field that differs.

    Attributes:
        field: the output field name (``"error"`` when the library raised).
        expected: the card's value (the truth's card-order output).
        actual: the implementation's value (None when the field is missing).
        ulps: for float fields (and arrays holding floats), the distance in
            ULPs (the largest over the array); None otherwise.
    """

    field: str
    expected: Any
    actual: Any
    ulps: int | None = None


@dataclass(frozen=True)
class Discrepancy:
    """A difference between an implementation and the card on one request.

    Attributes:
        tool_id: the card.
        case_id: ``"<tool_id>#<case>"`` or ``"real:<set>"``.
        implementation: ``"ours"`` or ``"<library>/<mode>"``.
        field: the output field.
        card_value: the card's value; library_value: the implementation's.
        ulps: distance in ULPs for floats, else None.
        entries: ids of the catalog entries that explain it (empty: UNEXPECTED).
        request: the request it was seen on.
        reproducer: for UNEXPECTED differences, the shrunk minimal request.
        reproduced_by: the smallest entry set whose models reproduce the
            implementation's whole output on this request (None: no set does).
        nearest: for UNEXPECTED library differences, the nearest dialect
            (``{"entries", "value", "reproduced"}``: its entry set, its value of
            this field, whether that value equals the library's).
    """

    tool_id: str
    case_id: str
    implementation: str
    field: str
    card_value: Any
    library_value: Any
    ulps: int | None
    entries: tuple[str, ...]
    request: dict[str, Any] = field(repr=False, compare=False)
    reproducer: dict[str, Any] | None = None
    reproduced_by: tuple[str, ...] | None = None
    nearest: dict[str, Any] | None = None

    @property
    def unexpected(self) -> bool:
        """True when no catalog entry explains the difference."""
        return not self.entries

    def to_json(self, *, with_request: bool = True) -> dict[str, Any]:
        """Plain JSON data (``request`` omitted when ``with_request`` is False).

        The request is shared, not copied (``dataclasses.asdict`` deep-copied
        every token list: a quarter of a crosscheck's time); callers do not
        mutate it.
        """
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["entries"] = list(self.entries)
        data["reproduced_by"] = list(self.reproduced_by) if self.reproduced_by is not None else None
        data["unexpected"] = self.unexpected
        if not with_request:
            data.pop("request")
        return data


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def float_ulps(a: Any, b: Any) -> int | None:
    """ULP distance between two numbers when either is a float, else None."""
    if _is_number(a) and _is_number(b) and (isinstance(a, float) or isinstance(b, float)):
        return ulp_distance(float(a), float(b))
    return None


def _equal(a: Any, b: Any) -> bool:
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _array_ulps(a: Any, b: Any) -> int | None:
    if not (isinstance(a, list) and isinstance(b, (list, tuple)) and len(a) == len(b)):
        return None
    gaps = [float_ulps(x, y) for x, y in zip(a, b)]
    if any(g is None and not _equal(x, y) for g, x, y in zip(gaps, a, b)):
        return None
    known = [g for g in gaps if g is not None]
    return max(known) if known else None


def compare_outputs(expected: dict[str, Any], actual: dict[str, Any]) -> list[FieldDiff]:
    """The fields where ``actual`` differs from ``expected``, in ``expected``'s order.

    A field present in only one of them is a difference (its missing value
    is None). Floats differ when they are at least 1 ULP apart.
    """
    diffs: list[FieldDiff] = []
    for key in list(expected) + [k for k in actual if k not in expected]:
        a, b = expected.get(key), actual.get(key)
        if key not in actual or key not in expected:
            diffs.append(FieldDiff(key, a, b))
        elif not _equal(a, b):
            ulps = float_ulps(a, b)
            diffs.append(FieldDiff(key, a, b, ulps if ulps is not None else _array_ulps(a, b)))
    return diffs
