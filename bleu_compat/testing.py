"""Check your own BLEU in your own test suite: :func:`assert_bleu_parity`.

::

    from bleu_compat.testing import assert_bleu_parity
    from my_project.metrics import corpus_bleu

    def test_bleu_matches_the_card():
        assert_bleu_parity(corpus_bleu, "tokens->score", scale="0-100")

Hypothesis generates card requests (the harness' own strategies,
:mod:`bleu_compat.harness.strategies`: empty hypotheses, segments shorter
than max_order, 1–8 references, tokens with spaces and Unicode, zero matches,
...), each is run through the callable and compared field by field with the
independent truth (:mod:`bleu_compat.harness.truth`). The first difference
found is shrunk (hypothesis, then :func:`bleu_compat.harness.classify.shrink`)
to a minimal request, and the test fails with that request, the differing
fields and the explanation: which known dialect reproduces it bit for bit
("NLTK-DENOMINATOR-FLOOR: NLTK floors each segment's n-gram total at 1") or
UNEXPECTED with the nearest dialect's value.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

__all__ = ["assert_bleu_parity", "parity_failure"]


def _name_of(fn: Callable[..., Any]) -> str:
    module = getattr(fn, "__module__", None) or "callable"
    return f"impl:{module}:{getattr(fn, '__qualname__', type(fn).__name__)}"


def parity_failure(
    fn: Callable[..., Any],
    signature: str | None = None,
    *,
    scale: str | None = None,
    max_examples: int = 200,
    allow: Iterable[str] = (),
    derandomize: bool = True,
    target: str | None = None,
) -> str | None:
    """The failure message :func:`assert_bleu_parity` would raise, or None when none is found.

    Same arguments as :func:`assert_bleu_parity`.
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    from bleu_compat.harness.classify import differs_from_target, evaluate, shrink
    from bleu_compat.harness.strategies import requests
    from bleu_compat.harness.target import make_judging
    from bleu_compat.implementations import register, wrap

    implementation = wrap(_name_of(fn), fn, signature=signature, scale=scale)
    name = register(implementation)
    tool_id = implementation.tool_id
    # the target and allowances: as given here, else as declared (issue 36)
    judging = make_judging(target if target is not None else implementation.target,
                           [*implementation.allow, *allow])

    def fails(request: dict[str, Any]) -> bool:
        return bool(differs_from_target(name, judging, tool_id, request))

    # Hypothesis finds a failing request; the harness' shrinker (reductions of the
    # request itself) makes it minimal, far faster than shrinking the generator's draws.
    config = settings(max_examples=max_examples, database=None, deadline=None,
                      derandomize=derandomize, suppress_health_check=list(HealthCheck),
                      phases=[Phase.explicit, Phase.generate])
    try:
        found = find(requests(tool_id), fails, settings=config)
    except (NoSuchExample, Unsatisfiable):
        return None
    minimal = shrink(tool_id, {k: v for k, v in found.items() if k != "decimals"}, fails)
    result = evaluate(tool_id, "parity", minimal, implementations=(name,), keep_outputs=True)
    return _message(implementation, minimal, result, judging, found)


def _message(implementation: Any, request: dict[str, Any], result: Any, judging: Any,
             found: dict[str, Any]) -> str:
    from bleu_compat import catalog
    from bleu_compat.harness.compare import compare_outputs
    from bleu_compat.harness.target import target_output
    from bleu_compat.jsonio import dumps_js

    against = (f"the {implementation.tool_id} card" if judging.library is None
               else f"its target {judging.describe()}")
    allowing = f" (allowing {', '.join(judging.allow)})" if judging.allow and judging.library is None else ""
    output = result.outputs.get(implementation.name) or {}
    target = target_output(judging, implementation.tool_id, request, result.truth.expected)
    side = "card" if judging.library is None else "target"
    lines = [f"BLEU parity failed: {implementation.name} ({implementation.signature}, "
             f"{implementation.scale} scale) differs from {against}{allowing}.",
             f"  minimal request: {dumps_js(request)}",
             f"  {side} output: {dumps_js(target)}"]
    diffs = compare_outputs({f: target.get(f) for f in output}, output)
    for d in diffs:
        ulps = f" ({d.ulps} ULPs)" if isinstance(d.ulps, int) and d.ulps < 2**20 else ""
        lines.append(f"  {d.field}: yours {dumps_js(d.actual)}, {side} {dumps_js(d.expected)}{ulps}")
    named, judged = _named(implementation, request, judging)
    if named is not None and named.entries:
        dialect = f"{named.library}/{named.mode}"
        lines.append(f"  reproduced bit for bit by the {dialect} dialect with "
                     + " + ".join(named.entries) + f", on this request and on every one of "
                     f"{judged} generated requests ({named.text()}):")
        for e in named.entries:
            entry = catalog.entry(e)
            facts = entry.facts(request) if entry.facts is not None else None
            lines.append(f"    {e}: {entry.title}" + (f" (here: {facts})" if facts else ""))
        lines.append("  (pass allow=[...] with these ids to accept this known divergence, or "
                     "target=... when your implementation means to be that library's)")
    elif named is not None:  # the card's output everywhere, where a library target differs
        lines.append(f"  yours gives the card's output on every one of {judged} generated requests; "
                     f"the target {judging.target} does not (its entries: "
                     + ", ".join(_required(judging, implementation.tool_id)) + ")")
    else:
        nearest = next((x.nearest for x in result.discrepancies if x.nearest), None)
        near = ""
        if nearest is not None:
            near = (f"; the nearest dialect, {nearest.get('dialect')} with "
                    f"{' + '.join(nearest['entries'])}, gives {dumps_js(nearest['value'])}"
                    if nearest["entries"] else "; nearest is the card itself")
        from bleu_compat.libraries.registry import libraries

        known = ", ".join(f"{lib.display_name}'s" for lib in libraries())
        lines.append(f"  UNEXPECTED: no known dialect ({known}) reproduces it on every one of "
                     f"{judged} generated requests" + near)
        lines.append(f"  (shrunk from a generated request: {dumps_js(found)[:300]})")
    return "\n".join(lines)


def _required(judging: Any, tool_id: str) -> list[str]:
    from bleu_compat.harness.target import families

    return sorted(families(judging, tool_id)[0].required)


#: generated requests the failure's name is checked on: one library's set must reproduce the
#: implementation on every one of them (issue 36: never a quirk of the one request alone)
NAMING_REQUESTS = 80


def _named(implementation: Any, request: dict[str, Any], judging: Any) -> tuple[Any, int]:
    """(one library's consistent set reproducing the implementation on ``request`` and the first
    :data:`NAMING_REQUESTS` generated requests of its card, or None; how many were judged),
    as a crosscheck names a finding (:func:`bleu_compat.harness.target.judge`)."""
    from bleu_compat.harness.classify import evaluate
    from bleu_compat.harness.generate import generate_case
    from bleu_compat.harness.target import judge
    from bleu_compat.harness.truth import truth

    tool_id = implementation.tool_id
    cases = []
    for k, req in enumerate([request] + [generate_case(0, tool_id, n).request
                                         for n in range(NAMING_REQUESTS)]):
        result = evaluate(tool_id, f"parity#{k}", req, implementations=(implementation.name,))
        cases += [case for _, case in result.impl_cases]
    verdict = judge(implementation.name, judging, cases, lambda c: c.request,
                    lambda c, r: truth(tool_id, r).expected)
    return verdict.named, len(cases)


def assert_bleu_parity(
    fn: Callable[..., Any],
    signature: str | None = None,
    *,
    scale: str | None = None,
    max_examples: int = 200,
    allow: Iterable[str] = (),
    derandomize: bool = True,
    target: str | None = None,
) -> None:
    """Fail unless ``fn`` computes its target's BLEU (the card's by default) on
    hypothesis-generated requests.

    Args:
        fn: your BLEU callable (see :mod:`bleu_compat.implementations` for the
            signatures: ``"tokens->score"``, ``"tokens->stats"``, ``"stats->score"``).
        signature: its signature; may be omitted when ``fn`` is declared
            (``@bleu_compat.implementations.declare`` or a ``bleu_compat`` attribute).
        scale: ``"0-1"`` (default) or ``"0-100"`` for the score.
        max_examples: generated requests to try (hypothesis' ``max_examples``).
        allow: catalog entry ids whose quirks are accepted on purpose (e.g.
            ``["NLTK-FLOAT-ORDER"]`` for an implementation that sums with ``math.fsum`` as
            NLTK does); added to those ``fn`` declares. A difference no allowed entry
            reproduces fails, named by the library dialect that reproduces it when one does.
        derandomize: a fixed search (the same requests every run; default True).
        target: ``"card"`` or a configuration of ``score --compare`` (``"torcheval"``, ...)
            whose dialect ``fn`` means to compute (:mod:`bleu_compat.harness.target`); default
            what ``fn`` declares, else the card.

    Raises:
        AssertionError: with the shrunk request, the differing fields and
            their explanation (the known dialect that reproduces them, or
            UNEXPECTED with the nearest dialect's value).
        ImplementationError: ``fn`` is not callable or declares no signature.
        bleu_compat.harness.target.TargetError: an unknown target or allowed entry.
    """
    __tracebackhide__ = True  # pytest shows the user's test line, not this helper's body
    message = parity_failure(fn, signature, scale=scale, max_examples=max_examples, allow=allow,
                             derandomize=derandomize, target=target)
    if message is not None:
        raise AssertionError(message)
