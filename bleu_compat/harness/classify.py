"""Run every implementation on one request, classify each difference, shrink.

For one request, :func:`evaluate` computes the truth (the card's output,
independently), runs ours (``bleu_compat.execute``) and each library in
each mode (:func:`bleu_compat.libraries.run_adapter`), compares every field
(:func:`~bleu_compat.harness.compare.compare_outputs`) and attributes each
difference to the catalog entries :func:`bleu_compat.catalog.explain`
returns, or marks it UNEXPECTED (no entry). Ours is never explained by the
catalog: any difference between ours and the card is UNEXPECTED.
``not_representable`` results are counted, not compared.

:func:`shrink` reduces an UNEXPECTED difference's request to a minimal
reproducer with ``hypothesis.find`` over strategies of *reductions* of the
failing request (drop segments, references, tokens, orders; rename tokens
to plain ones; lower counts, max_order, decimals), in stages; hypothesis
does the search and the shrinking, and the predicate re-runs the one
implementation and asks whether the same field is still UNEXPECTED.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import bleu_compat.libraries as _adapters
import bleu_compat.tools as _tools
from bleu_compat.libraries import LIBRARIES, MODES
from bleu_compat.errors import OracleUnavailableError, ToolError
from bleu_compat.tools import validate_request
from bleu_compat.ulp import ulp_distance

from .compare import Discrepancy, FieldDiff, compare_outputs
from .truth import FLOAT_FIELDS, Truth, truth

__all__ = [
    "IMPLEMENTATIONS",
    "CaseResult",
    "evaluate",
    "explain_ids",
    "shrink",
    "OursFn",
]

IMPLEMENTATIONS: tuple[str, ...] = ("ours",) + tuple(
    f"{library}/{mode}" for library in LIBRARIES for mode in MODES
)

#: (tool_id, request) -> ours' card output; ``execute`` for card requests.
OursFn = Callable[[str, dict[str, Any]], dict[str, Any]]
AdapterFn = Callable[[str, str, str, dict[str, Any]], Any]


@dataclass
class CaseResult:
    """Everything the harness learnt from one request.

    Attributes:
        tool_id, case_id, request: what was run.
        truth: the independent answer.
        discrepancies: every differing field of every implementation.
        not_representable: implementation -> reason, for libraries that
            cannot express the request in that mode.
        ulps_vs_exact: implementation -> field -> ULP distance of its
            unrounded float to the correctly rounded exact value (ours always;
            libraries only on requests without ``decimals``).
        versions: library -> version, for the libraries that ran.
        outputs: implementation -> output (kept only when asked).
    """

    tool_id: str
    case_id: str
    request: dict[str, Any]
    truth: Truth
    discrepancies: list[Discrepancy] = field(default_factory=list)
    not_representable: dict[str, str] = field(default_factory=dict)
    ulps_vs_exact: dict[str, dict[str, int]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)


def explain_ids(
    library: str, mode: str, tool_id: str, request: dict[str, Any], diff: FieldDiff,
    version: str | None, unrounded: tuple[float, float] | None = None,
) -> tuple[str, ...]:
    """Ids of the catalog entries explaining ``diff`` (empty: UNEXPECTED).

    ``unrounded`` is (card, library) doubles of a float field before the
    request's ``decimals`` were applied, so that a few-ULP difference that
    rounding pushes across a decimal boundary is checked on the doubles.
    """
    from bleu_compat import catalog

    card_unrounded, library_unrounded = unrounded if unrounded is not None else (None, None)
    try:
        entries = catalog.explain(
            library, mode, tool_id, request, diff.field, diff.expected, diff.actual,
            library_version=version,
            card_unrounded=card_unrounded, library_unrounded=library_unrounded,
        )
    except NotImplementedError:  # no catalog yet: nothing is explained
        return ()
    return tuple(e.id for e in entries)


def _without_decimals(request: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in request.items() if k != "decimals"}


def evaluate(
    tool_id: str,
    case_id: str,
    request: dict[str, Any],
    *,
    implementations: Sequence[str] = IMPLEMENTATIONS,
    ours: OursFn | None = None,
    adapter: AdapterFn | None = None,
    keep_outputs: bool = False,
) -> CaseResult:
    """Run ``implementations`` on ``request`` and classify every difference.

    Args:
        tool_id: the card.
        case_id: a label for reports.
        request: a valid card request (or, for real corpora, a request dict
            beyond the card limits together with an ``ours`` that skips them).
        implementations: ``"ours"`` and/or ``"<library>/<mode>"``.
        ours: how to run ours (default :func:`bleu_compat.tools.execute`,
            looked up at call time so tests can plant a bug).
        adapter: how to run a library (default :func:`run_adapter`, looked up
            at call time).
        keep_outputs: keep every output in :attr:`CaseResult.outputs`.
    """
    ours = ours or _tools.execute
    adapter = adapter or _adapters.run_adapter
    the_truth = truth(tool_id, request)
    result = CaseResult(tool_id, case_id, request, the_truth)
    expected = the_truth.expected
    has_decimals = "decimals" in request

    def record(impl: str, diffs: list[FieldDiff], explain: Callable[[FieldDiff], tuple[str, ...]]) -> None:
        for d in diffs:
            result.discrepancies.append(Discrepancy(
                tool_id, case_id, impl, d.field, d.expected, d.actual, d.ulps, explain(d), request,
            ))

    for impl in implementations:
        if impl == "ours":
            try:
                output = ours(tool_id, request)
                unrounded = ours(tool_id, _without_decimals(request)) if has_decimals else output
            except Exception as exc:  # ours must not raise on a valid request
                record("ours", [FieldDiff("error", None, f"{type(exc).__name__}: {exc}")], lambda d: ())
                continue
            if keep_outputs:
                result.outputs["ours"] = output
            record("ours", compare_outputs(expected, output), lambda d: ())
            result.ulps_vs_exact["ours"] = {
                f: ulp_distance(unrounded[f], the_truth.exact[f])
                for f in FLOAT_FIELDS if f in unrounded and isinstance(unrounded[f], (int, float))
            }
            continue
        library, mode = impl.split("/")
        try:
            ar = adapter(library, mode, tool_id, request)
        except OracleUnavailableError as exc:
            result.not_representable[impl] = f"unavailable: {exc}"
            continue
        except Exception as exc:  # a broken adapter is a finding, not a crash
            ar_error = f"{type(exc).__name__}: {exc}"
            record(impl, [FieldDiff("error", None, ar_error)], lambda d: ())
            continue
        result.versions[library] = ar.version
        if keep_outputs:
            result.outputs[impl] = ar.output
        if ar.not_representable is not None:
            result.not_representable[impl] = ar.not_representable
            continue

        unrounded_output: list[dict[str, Any] | None] = []

        def library_unrounded(_l: str = library, _m: str = mode) -> dict[str, Any] | None:
            # the library's doubles before ``decimals``: run once more without it, lazily
            if not unrounded_output:
                try:
                    unrounded_output.append(adapter(_l, _m, tool_id, _without_decimals(request)).output)
                except Exception:  # then the rounded values are all there is
                    unrounded_output.append(None)
            return unrounded_output[0]

        def explain(d: FieldDiff, _l: str = library, _m: str = mode, _v: str = ar.version) -> tuple[str, ...]:
            unrounded = None
            if has_decimals and d.field in FLOAT_FIELDS and d.field in the_truth.unrounded:
                raw = library_unrounded()
                if raw is not None and isinstance(raw.get(d.field), (int, float)):
                    unrounded = (the_truth.unrounded[d.field], float(raw[d.field]))
            return explain_ids(_l, _m, tool_id, request, d, _v, unrounded)

        if ar.error is not None or ar.output is None:
            record(impl, [FieldDiff("error", None, ar.error or "no output")], explain)
            continue
        start = len(result.discrepancies)
        record(impl, compare_outputs(expected, ar.output), explain)
        if not has_decimals and _same_semantics(result.discrepancies[start:]):
            # The library's float accuracy is measured only where it computes the
            # card's quantity: every difference is a float-order one (a catalog
            # entry with max_ulps). A semantic divergence (another total, another
            # brevity penalty) is counted by its entry, not as a ULP distance.
            result.ulps_vs_exact[impl] = {
                f: ulp_distance(float(ar.output[f]), the_truth.exact[f])
                for f in FLOAT_FIELDS
                if isinstance(ar.output.get(f), (int, float)) and not isinstance(ar.output.get(f), bool)
            }
    return result


def _same_semantics(discrepancies: Sequence[Discrepancy]) -> bool:
    from bleu_compat import catalog

    for d in discrepancies:
        if d.field not in FLOAT_FIELDS or not d.entries:
            return False
        if any(catalog.entry(entry_id).max_ulps is None for entry_id in d.entries):
            return False
    return True


# --- shrinking -----------------------------------------------------------------


def _stage_strategies(tool_id: str, request: dict[str, Any]) -> list[Any]:
    """Strategies of reductions of ``request``, one per stage; each shrinks
    toward the smallest request (hypothesis shrinks booleans to False = drop,
    integers to 0)."""
    from hypothesis import strategies as st

    def maybe_decimals(draw: Any, out: dict[str, Any]) -> None:
        if "decimals" in request:
            d = draw(st.one_of(st.none(), st.integers(0, request["decimals"])))
            if d is not None:
                out["decimals"] = d

    if tool_id == "bleu-corpus-compute":
        @st.composite
        def drop_segments(draw: Any) -> dict[str, Any]:
            out = dict(request)
            keep = [i for i in range(len(request["hypotheses"])) if draw(st.booleans())]
            out["hypotheses"] = [request["hypotheses"][i] for i in keep]
            refs = []
            for i in keep:
                rs = [r for r in request["references"][i] if draw(st.booleans())]
                refs.append(rs)
            out["references"] = refs
            return out

        @st.composite
        def drop_tokens(draw: Any) -> dict[str, Any]:
            out = dict(request)
            out["hypotheses"] = [[t for t in h if draw(st.booleans())] for h in request["hypotheses"]]
            out["references"] = [
                [[t for t in r if draw(st.booleans())] for r in rs] for rs in request["references"]
            ]
            return out

        @st.composite
        def simplify(draw: Any) -> dict[str, Any]:
            out = dict(request)
            vocab = sorted({t for h in request["hypotheses"] for t in h}
                           | {t for rs in request["references"] for r in rs for t in r})
            names = {t: (t if draw(st.booleans()) else "abcdefghijklmnopqrstuvwxyz"[k % 26] + str(k // 26 or ""))
                     for k, t in enumerate(vocab)}
            out["hypotheses"] = [[names[t] for t in h] for h in request["hypotheses"]]
            out["references"] = [[[names[t] for t in r] for r in rs] for rs in request["references"]]
            out.pop("max_order", None)
            n = draw(st.integers(1, request.get("max_order", 4)))
            if n != 4:
                out["max_order"] = n
            out.pop("decimals", None)
            maybe_decimals(draw, out)
            return out

        return [drop_segments(), drop_tokens(), simplify()]

    if tool_id == "bleu-smoothing-compute":
        @st.composite
        def lower(draw: Any) -> dict[str, Any]:
            n = draw(st.integers(1, len(request["matches"])))
            out = {k: v for k, v in request.items() if k not in ("epsilon", "effective_order", "decimals")}
            out["totals"] = [draw(st.integers(0, t)) for t in request["totals"][:n]]
            out["matches"] = [draw(st.integers(0, m)) for m in request["matches"][:n]]
            out["candidate_length"] = draw(st.integers(0, request["candidate_length"]))
            out["reference_length"] = draw(st.integers(0, request["reference_length"]))
            for key in ("epsilon", "effective_order"):
                if key in request and draw(st.booleans()):
                    out[key] = request[key]
            maybe_decimals(draw, out)
            return out

        return [lower()]

    @st.composite
    def brevity(draw: Any) -> dict[str, Any]:
        segments = []
        for s in request["segments"]:
            if not draw(st.booleans()):
                continue
            refs = [draw(st.integers(0, v)) for v in s["reference_lengths"] if draw(st.booleans())]
            segments.append({"candidate_length": draw(st.integers(0, s["candidate_length"])),
                             "reference_lengths": refs})
        out: dict[str, Any] = {"segments": segments}
        maybe_decimals(draw, out)
        return out

    return [brevity()]


def shrink(
    tool_id: str,
    request: dict[str, Any],
    still_fails: Callable[[dict[str, Any]], bool],
    *,
    max_examples: int = 300,
) -> dict[str, Any]:
    """A small valid request on which ``still_fails`` holds, found by hypothesis.

    Each stage searches reductions of the current request with
    ``hypothesis.find`` (which then shrinks what it found); a stage that
    finds nothing keeps the request as it is. Only requests that pass
    :func:`bleu_compat.tools.validate_request` count.

    Returns:
        The reduced request (``request`` itself when nothing smaller fails).
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    def predicate(candidate: dict[str, Any]) -> bool:
        try:
            validate_request(tool_id, candidate)
        except ToolError:
            return False
        try:
            return bool(still_fails(candidate))
        except Exception:
            return False

    config = settings(
        max_examples=max_examples, database=None, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )
    current = request
    for stage in range(3 if tool_id == "bleu-corpus-compute" else 1):
        strategy = _stage_strategies(tool_id, current)[stage]
        try:
            current = find(strategy, predicate, settings=config)
        except (NoSuchExample, Unsatisfiable):
            continue
    return validate_request(tool_id, current) if current is not request else request
