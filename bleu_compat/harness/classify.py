"""Run every implementation on one request, classify each difference, shrink.

For one request, :func:`evaluate` computes the truth (the card's output,
independently), runs ours (``bleu_compat.execute``) and each library in
each mode (:func:`bleu_compat.libraries.run_adapter`), compares every field
(:func:`~bleu_compat.harness.compare.compare_outputs`) and explains a
library's differences only when its dialect reproduces its output bit for
bit (:func:`bleu_compat.catalog.classify`, SPEC.md §7); otherwise they are
UNEXPECTED. Ours is never explained by the catalog: any difference between
ours and the card is UNEXPECTED.
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
from bleu_compat.libraries.registry import implementation_ids, libraries
from bleu_compat.errors import OracleUnavailableError, ToolError
from bleu_compat.ulp import ulp_distance

from .compare import Discrepancy, FieldDiff, compare_outputs
from .consistency import too_broad
from .truth import FLOAT_FIELDS, Truth, truth

__all__ = [
    "IMPLEMENTATIONS",
    "CaseResult",
    "DialectMatch",
    "classify_impl",
    "evaluate",
    "evaluate_invalid",
    "shrink",
    "OursFn",
]

#: ours, then each registered implementation in each of its modes (registry order)
IMPLEMENTATIONS: tuple[str, ...] = ("ours",) + implementation_ids()

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
        raw: implementation -> the library's own values (kept only when asked).
        reproductions: implementation -> its :class:`~bleu_compat.harness.dialect.Reproduction`
            (libraries whose output differs from the card).
        too_broad: catalog entries claimed for the installed release and mode whose models
            change the library's reproduced output here
            (:func:`bleu_compat.harness.consistency.too_broad`, issue 25).
        impl_cases: for each user's implementation judged here, its
            :class:`~bleu_compat.harness.target.Case` (its fields, its output where it differs
            from the card, each dialect's smallest reproducing set there): the run's verdict
            against its target is taken over all of them (:func:`bleu_compat.harness.target.judge`).
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
    raw: dict[str, Any] = field(default_factory=dict)
    reproductions: dict[str, Any] = field(default_factory=dict)
    too_broad: list[dict[str, Any]] = field(default_factory=list)
    impl_cases: list[tuple[str, Any]] = field(default_factory=list)


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

    Ours is compared with the truth and never explained: any difference is
    UNEXPECTED. A library's output is explained only when its dialect (the
    card plus some of its catalog entries' models, :func:`bleu_compat.catalog.classify`)
    reproduces every field bit for bit; each differing field is then attributed
    to the smallest part of that entry set that reproduces it. Otherwise every
    differing field is UNEXPECTED, with the nearest dialect's value beside it.

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
    from bleu_compat import catalog

    ours = ours or _tools.execute
    adapter = adapter or _adapters.run_adapter
    the_truth = truth(tool_id, request)
    result = CaseResult(tool_id, case_id, request, the_truth)
    expected = the_truth.expected
    has_decimals = "decimals" in request

    for impl in implementations:
        if impl == "ours":
            try:
                output = ours(tool_id, request)
                unrounded = ours(tool_id, _without_decimals(request)) if has_decimals else output
            except Exception as exc:  # ours must not raise on a valid request
                result.discrepancies.append(Discrepancy(
                    tool_id, case_id, "ours", "error", None, f"{type(exc).__name__}: {exc}",
                    None, (), request))
                continue
            if keep_outputs:
                result.outputs["ours"] = output
            for d in compare_outputs(expected, output):
                result.discrepancies.append(Discrepancy(
                    tool_id, case_id, "ours", d.field, d.expected, d.actual, d.ulps, (), request))
            result.ulps_vs_exact["ours"] = {
                f: ulp_distance(unrounded[f], the_truth.exact[f])
                for f in FLOAT_FIELDS if f in unrounded and isinstance(unrounded[f], (int, float))
            }
            continue
        if impl.startswith("impl:"):
            _evaluate_impl(result, impl, keep_outputs)
            continue
        library, mode = impl.split("/")
        try:
            ar = adapter(library, mode, tool_id, request)
        except OracleUnavailableError as exc:
            result.not_representable[impl] = f"unavailable: {exc}"
            continue
        except Exception as exc:  # a broken adapter is a finding, not a crash
            result.discrepancies.append(Discrepancy(
                tool_id, case_id, impl, "error", None, f"{type(exc).__name__}: {exc}", None, (),
                request))
            continue
        result.versions[library] = ar.version
        if keep_outputs:
            result.outputs[impl] = ar.output
            result.raw[impl] = ar.raw
        if ar.not_representable is not None:
            result.not_representable[impl] = ar.not_representable
            continue
        if ar.output is None:
            library_output: dict[str, Any] = {"error": ar.error or "no output"}
            diffs = [FieldDiff("error", None, library_output["error"])]
        else:
            library_output = ar.output
            # a field the library does not return (torchmetrics: the brevity penalty) is not compared
            diffs = compare_outputs({k: v for k, v in expected.items() if k in ar.output}, ar.output)
        if not diffs:
            result.ulps_vs_exact[impl] = _library_ulps(ar.output, the_truth, has_decimals)
            result.too_broad.extend(too_broad(library, mode, ar.version, tool_id, request,
                                              library_output, (), case_id))
            continue
        rep = catalog.classify(library, mode, tool_id, request, expected, library_output)
        result.reproductions[impl] = rep
        if rep.explained:
            result.too_broad.extend(too_broad(library, mode, ar.version, tool_id, request,
                                              library_output, tuple(rep.entries or ()), case_id))
        for d in diffs:
            if rep.explained:
                causes = rep.causes.get(d.field, rep.entries or ())
                nearest = None
            else:
                causes = ()
                out = rep.nearest_output or {}
                nearest = {"entries": list(rep.nearest), "value": out.get(d.field),
                           "reproduced": d.field not in rep.unreproduced}
            result.discrepancies.append(Discrepancy(
                tool_id, case_id, impl, d.field, d.expected, d.actual, d.ulps, tuple(causes),
                request, reproduced_by=rep.entries, nearest=nearest))
        if rep.explained and all(catalog.entry(e).arithmetic_only for e in rep.entries or ()):
            # The library's float accuracy is measured only where it computes the
            # card's quantity (its only differences are floating-point order).
            result.ulps_vs_exact[impl] = _library_ulps(ar.output, the_truth, has_decimals)
    return result


@dataclass(frozen=True)
class DialectMatch:
    """How a user's implementation (``impl:...``) relates to the known dialects.

    Attributes:
        reproduction: the :class:`~bleu_compat.harness.dialect.Reproduction` of
            the dialect that reproduces it (or, UNEXPECTED, of the nearest one).
        dialect: ``"<library>/<mode>"`` of that dialect (None: the card itself
            is nearest).
        sets: every dialect tried -> its smallest reproducing entry set on this request, or
            None (what the run-level verdict, :func:`bleu_compat.harness.target.judge`, builds
            its candidates from).
    """

    reproduction: Any
    dialect: str | None
    sets: dict[str, tuple[str, ...] | None] = field(default_factory=dict)

    @property
    def entries(self) -> tuple[str, ...] | None:
        """The smallest reproducing entry set (None: UNEXPECTED)."""
        return self.reproduction.entries

    @property
    def explained(self) -> bool:
        """True when some dialect reproduces every returned field bit for bit."""
        return self.reproduction.explained


def classify_impl(tool_id: str, request: dict[str, Any], expected: dict[str, Any],
                  output: dict[str, Any]) -> DialectMatch:
    """Which known dialect, if any, gives a user's implementation's ``output``.

    Tries each library's dialect (:data:`bleu_compat.catalog.MODELS`) in each
    mode with the entry sets of :func:`bleu_compat.catalog.entries_for`
    (smallest set first, :func:`~bleu_compat.harness.dialect.reproduce`), on
    the fields ``output`` has only. The smallest reproducing set wins (ties:
    library order, then mode order); when none reproduces, the nearest one
    (fewest wrong fields, then smallest set) is kept for the report.

    Args:
        tool_id: the card; request: the valid request (without ``decimals``).
        expected: the card's output on it; output: the implementation's fields
            (card units, 0–1 scale); an exception is ``{"error": "Type: message"}``.
    """
    from bleu_compat import catalog
    from bleu_compat.harness.dialect import reproduce

    fields = [f for f in output if f in expected]
    sub_expected = {f: expected[f] for f in fields}
    best: DialectMatch | None = None
    nearest: tuple[int, int, DialectMatch] | None = None
    sets: dict[str, tuple[str, ...] | None] = {}
    for lib in libraries():
        for mode in lib.modes:
            rep = reproduce(catalog.entries_for(lib.name, tool_id, mode), catalog.MODELS[lib.name],
                            tool_id, mode, request, sub_expected, output)
            match = DialectMatch(rep, f"{lib.name}/{mode}")
            sets[f"{lib.name}/{mode}"] = rep.entries
            if rep.explained:
                if best is None or len(rep.entries) < len(best.entries or ()):
                    best = match
            else:
                key = (len(rep.unreproduced), len(rep.nearest))
                if nearest is None or key < nearest[:2]:
                    nearest = (*key, match)
    if best is not None:
        return DialectMatch(best.reproduction, best.dialect, sets)
    assert nearest is not None
    if not nearest[2].reproduction.nearest:  # the card itself is nearest: no dialect to name
        return DialectMatch(nearest[2].reproduction, None, sets)
    return DialectMatch(nearest[2].reproduction, nearest[2].dialect, sets)


def _evaluate_impl(result: CaseResult, impl: str, keep_outputs: bool) -> None:
    """Run a user's implementation on ``result.request`` (without ``decimals``) and classify it."""
    from bleu_compat.implementations import NotRepresentableForImpl, resolve
    from bleu_compat.isolation import ImplementationCrashed, ImplementationHung

    tool_id, case_id, request = result.tool_id, result.case_id, result.request
    implementation = resolve(impl)
    plain = _without_decimals(request)
    the_truth = truth(tool_id, plain) if "decimals" in request else result.truth
    expected = the_truth.expected
    try:
        output = implementation.to_card_units(implementation.call(tool_id, plain), expected.get("bleu"))
    except NotRepresentableForImpl as exc:
        result.not_representable[impl] = str(exc)
        return
    except ImplementationHung as exc:  # not a case result: the run stops and says so
        raise ImplementationHung(f"{exc} (on {case_id})") from None
    except Exception as exc:  # the user's code raised, or its process ended: a finding, not a crash
        output = {"error": getattr(exc, "as_reported", None) or f"{type(exc).__name__}: {exc}"}
        crashed = isinstance(exc, ImplementationCrashed)
    else:
        crashed = False
    if keep_outputs:
        result.outputs[impl] = output
    if "error" in output:
        diffs = [FieldDiff("error", None, output["error"])]
    else:
        diffs = compare_outputs({f: expected[f] for f in output if f in expected}, output)
    bleu = output.get("bleu")
    if isinstance(bleu, float) and bleu == bleu and bleu not in (float("inf"), float("-inf")):
        result.ulps_vs_exact[impl] = {"bleu": ulp_distance(bleu, the_truth.exact["bleu"])}
    from bleu_compat.harness.target import Case

    # the request travels with the case (a real corpus' is reloaded only if a model must run)
    kept = None if case_id.startswith("real:") else plain
    if not diffs:
        result.impl_cases.append((impl, Case(case_id, tool_id, tuple(output), request=kept,
                                             expected=dict(expected))))
        return
    if crashed:  # no dialect ends a process: UNEXPECTED without trying them all (on a real
        # corpus that search took 30 s per corpus to find nothing)
        from bleu_compat.harness.dialect import Reproduction

        match = DialectMatch(Reproduction(("error",), None, unreproduced=("error",)), None)
    else:
        match = classify_impl(tool_id, plain, expected, output)
    result.reproductions[impl] = match
    result.impl_cases.append((impl, Case(case_id, tool_id, tuple(output), dict(output),
                                         dict(match.sets), kept, dict(expected))))
    rep = match.reproduction
    for d in diffs:
        if rep.explained:
            causes, nearest = rep.causes.get(d.field, rep.entries or ()), None
        else:
            causes = ()
            out = rep.nearest_output or {}
            nearest = {"entries": list(rep.nearest), "dialect": match.dialect,
                       "value": out.get(d.field), "reproduced": d.field not in rep.unreproduced}
        result.discrepancies.append(Discrepancy(
            tool_id, case_id, impl, d.field, d.expected, d.actual, d.ulps, tuple(causes),
            plain, reproduced_by=rep.entries, nearest=nearest))


def differs_from_target(implementation: str, judging: Any, tool_id: str,
                        request: dict[str, Any]) -> set[str]:
    """The fields where a user's implementation, run on ``request``, differs from what its
    target accepts on this one request (:func:`bleu_compat.harness.target.accepted_here`);
    empty when it is accepted or cannot take the request. The shrinker's and ``explain``'s
    question."""
    from bleu_compat.harness.target import accepted_here, target_output

    result = evaluate(tool_id, "judge", request, implementations=(implementation,),
                      keep_outputs=True)
    if implementation in result.not_representable or implementation not in result.outputs:
        return set()
    output = result.outputs[implementation]
    plain = _without_decimals(request)
    expected = truth(tool_id, plain).expected if "decimals" in request else result.truth.expected
    if accepted_here(judging, tool_id, plain, output, expected) is not None:
        return set()
    target = target_output(judging, tool_id, plain, expected)
    return {d.field for d in compare_outputs({f: target.get(f) for f in output}, output)}


def evaluate_invalid(
    tool_id: str,
    case_id: str,
    request: Any,
    *,
    ours: OursFn | None = None,
) -> list[Discrepancy]:
    """Send an invalid request to ours and compare its refusal with the truth's own checks.

    The truth is :func:`bleu_compat.harness.checks.expected_error`, an
    implementation of SPEC.md §2's order of checks that shares no code with
    the product. Ours must refuse with the same error code and JSON Pointer
    path; accepting the request, another code or path, or any other exception
    is UNEXPECTED (a limit off by one, the schema checked after the limits).

    Args:
        tool_id: the card.
        case_id: a label for reports.
        request: the request as sent: JSON text (``str``/``bytes``) or a dict.
        ours: how to run ours (default :func:`bleu_compat.tools.execute`).

    Returns:
        The discrepancies (field ``"error"``; empty when ours refused it right).
    """
    from .checks import expected_error

    ours = ours or _tools.execute
    want = expected_error(tool_id, request)
    expected = None if want is None else {"code": want[0], "path": want[1]}
    try:
        output = ours(tool_id, request)
        got: Any = {"accepted": output}
    except ToolError as exc:
        got = {"code": exc.code, "path": exc.path}
    except Exception as exc:  # a crash on a bad request is a finding
        got = {"crash": f"{type(exc).__name__}: {exc}"}
    if got == expected:
        return []
    shown = request if isinstance(request, dict) else {"json_text": request if isinstance(request, str)
                                                        else request.decode("utf-8", "backslashreplace")}
    return [Discrepancy(tool_id, case_id, "ours", "error", expected, got, None, (), shown)]


def _library_ulps(output: dict[str, Any] | None, the_truth: Truth, has_decimals: bool) -> dict[str, int]:
    if output is None or has_decimals:
        return {}
    return {
        f: ulp_distance(float(output[f]), the_truth.exact[f])
        for f in FLOAT_FIELDS
        if isinstance(output.get(f), (int, float)) and not isinstance(output.get(f), bool)
    }


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
                # every kept segment keeps one reference (a segment needs one to be valid)
                own = request["references"][i]
                first = draw(st.integers(0, len(own) - 1))
                refs.append([r for k, r in enumerate(own) if k == first or draw(st.booleans())])
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


#: A shrinking stage that would draw more choices than this is skipped (hypothesis'
#: data buffer overruns, and each wasted try costs seconds on a 50,000-token corpus).
MAX_STAGE_DRAWS = 4000


def _stage_draws(tool_id: str, request: dict[str, Any], stage: int) -> int:
    """About how many choices stage ``stage`` of :func:`_stage_strategies` draws."""
    if tool_id == "bleu-corpus-compute":
        if stage == 0:
            return len(request["hypotheses"]) + sum(len(refs) for refs in request["references"])
        tokens = sum(len(h) for h in request["hypotheses"]) + sum(
            len(r) for refs in request["references"] for r in refs)
        if stage == 1:
            return tokens
        return min(tokens, len({t for h in request["hypotheses"] for t in h}
                               | {t for refs in request["references"] for r in refs for t in r})) + 2
    if tool_id == "bleu-brevity-penalty":
        return sum(2 + 2 * len(s["reference_lengths"]) for s in request["segments"])
    return 2 * len(request["matches"]) + 6


def _drop_one_by_one(request: dict[str, Any], predicate: Callable[[dict[str, Any]], bool],
                     *, segments_only: bool = False) -> dict[str, Any]:
    """Greedy pass over a corpus request: drop each segment, then each reference, then
    each token, keeping every drop after which ``predicate`` still holds (the last pass:
    hypothesis' shrinker can stop with a few removable segments left). ``segments_only``:
    the segments alone (the first pass of :func:`shrink` on a request of few segments)."""
    current = request

    def attempt(candidate: dict[str, Any]) -> bool:
        nonlocal current
        if predicate(candidate):
            current = candidate
            return True
        return False

    for i in reversed(range(len(current["hypotheses"]))):
        attempt(dict(current, hypotheses=current["hypotheses"][:i] + current["hypotheses"][i + 1:],
                     references=current["references"][:i] + current["references"][i + 1:]))
    if segments_only:
        return current
    for i in range(len(current["references"])):
        for k in reversed(range(len(current["references"][i]))):
            refs = current["references"][i]
            if len(refs) > 1:
                attempt(dict(current, references=current["references"][:i]
                             + [refs[:k] + refs[k + 1:]] + current["references"][i + 1:]))
    for i in range(len(current["hypotheses"])):
        for k in reversed(range(len(current["hypotheses"][i]))):
            hyp = current["hypotheses"][i]
            attempt(dict(current, hypotheses=current["hypotheses"][:i] + [hyp[:k] + hyp[k + 1:]]
                         + current["hypotheses"][i + 1:]))
        for j in range(len(current["references"][i])):
            for k in reversed(range(len(current["references"][i][j]))):
                refs = current["references"][i]
                ref = refs[j]
                new_refs = refs[:j] + [ref[:k] + ref[k + 1:]] + refs[j + 1:]
                attempt(dict(current, references=current["references"][:i] + [new_refs]
                             + current["references"][i + 1:]))
    return current


#: Steps one :func:`shrink` may take (a count, never a clock: the same failing request
#: shrinks to the same reproducer on a quiet and on a loaded machine). A request tried
#: costs one step per started :data:`STEP_BYTES` of its JSON, so the work is bounded
#: too: a request of a few hundred tokens costs 1, one at the card limits (50,000
#: tokens, 400 KB) about 100.
MAX_SHRINK_STEPS = 1500
STEP_BYTES = 4096
#: A corpus request of at most this many segments first loses its segments one by one
#: (at most this many tries) before hypothesis' stages search what is left.
GREEDY_SEGMENTS = 64


def shrink(
    tool_id: str,
    request: dict[str, Any],
    still_fails: Callable[[dict[str, Any]], bool],
    *,
    max_examples: int = 300,
    max_steps: int = MAX_SHRINK_STEPS,
) -> dict[str, Any]:
    """A small valid request on which ``still_fails`` holds, found by hypothesis.

    Each stage searches reductions of the current request with
    ``hypothesis.find`` (derandomized, which then shrinks what it found); a
    stage that finds nothing keeps the request as it is. The stages run again
    while a round changes the request (at most three rounds: a lower
    ``max_order`` found by the last stage can let the first stages drop more),
    and a corpus request then gets a greedy pass dropping each segment,
    reference and token that is not needed (:func:`_drop_one_by_one`). Only
    requests the truth's own checks accept
    (:func:`bleu_compat.harness.checks.expected_error`) count.

    The search is bounded by ``max_steps`` steps, never by time: each distinct
    request tried (checked by the truth, then asked of ``still_fails``; the
    answer is remembered) costs one step per started :data:`STEP_BYTES` of
    its JSON. The result depends only on the request and on what
    ``still_fails`` answers, so a seed gives the same reproducer on any
    machine. When the steps run out, or ``still_fails`` answers differently for
    the same request (hypothesis' ``Flaky``), the search stops with the
    smallest failing request seen (fewest characters of JSON, then the text).

    Returns:
        The reduced request (``request`` itself when nothing smaller fails).

    Raises:
        bleu_compat.isolation.ImplementationHung: a user's implementation did not
            answer in time (not a shrinking result: the run stops).
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import Flaky, NoSuchExample, Unsatisfiable

    from bleu_compat.isolation import ImplementationHung
    from bleu_compat.jsonio import dumps_js

    from .checks import expected_error

    def size(candidate: dict[str, Any]) -> tuple[int, str]:
        text = dumps_js(candidate)
        return len(text), text

    memo: dict[str, bool] = {}
    steps = 0
    best, best_size = request, size(request)

    class OutOfSteps(Exception):
        pass

    def predicate(candidate: dict[str, Any]) -> bool:
        nonlocal steps, best, best_size
        key = dumps_js(candidate)
        if key in memo:
            return memo[key]
        cost = 1 + len(key) // STEP_BYTES
        if steps + cost > max_steps:
            raise OutOfSteps  # ends the search where it stands: the smallest seen is kept
        steps += cost
        if expected_error(tool_id, candidate) is not None:  # the truth's checks, not the product's
            memo[key] = False
            return False
        try:
            verdict = bool(still_fails(candidate))
        except ImplementationHung:
            raise
        except Exception:
            verdict = False
        memo[key] = verdict
        if verdict and (len(key), key) < best_size:
            best, best_size = candidate, (len(key), key)
        return verdict

    config = settings(
        max_examples=max_examples, database=None, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )
    current = request
    stages = 3 if tool_id == "bleu-corpus-compute" else 1
    if tool_id == "bleu-corpus-compute" and len(current["hypotheses"]) <= GREEDY_SEGMENTS:
        # segments first, one by one: on a generated case (tens of segments) this leaves the
        # few that matter for a handful of tries, where hypothesis' token stage would search
        # every token of every segment (issue 24: 11 of the 14 s of a 10 KB reproducer)
        try:
            current = _drop_one_by_one(current, predicate, segments_only=True)
        except OutOfSteps:
            current = best
    for _round in range(3):  # a later stage (a lower max_order) can let an earlier one drop more
        before = current
        for stage in range(stages):
            if steps >= max_steps:
                break
            if _stage_draws(tool_id, current, stage) > MAX_STAGE_DRAWS:
                continue  # hypothesis' buffer overruns on so many choices: every try is wasted
            strategy = _stage_strategies(tool_id, current)[stage]
            try:
                current = find(strategy, predicate, settings=config)
            except (NoSuchExample, Unsatisfiable):
                continue
            except (Flaky, OutOfSteps):  # changed answers, or no steps left: the smallest seen
                current = best
        if current == before or steps >= max_steps:
            break
    if tool_id == "bleu-corpus-compute" and current is not request and steps < max_steps:
        try:
            current = _drop_one_by_one(current, predicate)
        except OutOfSteps:
            current = best
    return current
