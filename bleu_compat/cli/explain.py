"""Command ``explain``: one request in; every implementation's output, verdict and reasons out.

``bleu-compat explain TOOL [FILE|-]`` reads one card request, runs ours and
every registered implementation (each as called and mapped) on it, and prints for each:
its output (the library's own number on its own scale beside the card-units
value), the verdict (``identical``, ``explained``, ``UNEXPECTED`` or ``not
representable``), the smallest set of catalog entries whose models reproduce
the output bit for bit, and for every differing field the entries that cause
it (SPEC.md §7). It is the tool for documenting an edge case, and its output
is what a bug report can paste. ``--format json`` gives the same as data.

Exit status: 0 nothing UNEXPECTED; 1 some implementation UNEXPECTED, or a user's
implementation (``--impl``) differs from its target (``--target``, ``--allow``); 2 a bad
request (the ``{"error": ...}`` object on standard output) or usage error.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "cmd_explain", "explain_request"]

FORMATS = ("text", "json")


def register(subparsers: Any) -> None:
    """Add the ``explain`` command."""
    from bleu_compat.libraries.registry import join_names, libraries
    from bleu_compat.tools import MAX_REQUEST_BYTES, TOOL_IDS

    p = subparsers.add_parser(
        "explain", help="explain one request: every implementation's output and why it differs",
        description=(
            f"Run ours, {join_names([lib.display_name for lib in libraries()])} "
            "(as called and mapped) on one card request read from "
            "FILE (or standard input) and print each output, the verdict and the catalog entries "
            "whose models reproduce it bit for bit, field by field. Exit 0: nothing UNEXPECTED; "
            "1: some output no dialect reproduces; 2: a bad request (its error JSON on standard "
            f"output) or usage error. Requests over {MAX_REQUEST_BYTES} bytes, or holding more "
            "',' '[' '{' bytes than any valid request, are refused unread. "
            "A usage error is one line on standard error, or with --format json the error "
            "object (code usage_error) on standard output."
        ),
    )
    p.add_argument("tool", metavar="TOOL", help="one of: " + ", ".join(TOOL_IDS))
    p.add_argument("file", metavar="FILE", nargs="?", help="request JSON (default: standard input, or -)")
    p.add_argument("--format", "-f", choices=FORMATS, default="text", help="text (default) or json")
    from bleu_compat.cli.crosscheck import add_impl_argument

    add_impl_argument(p)
    p.set_defaults(func=cmd_explain)
    from bleu_compat.cli.usage import asks_for, report_usage_errors

    report_usage_errors(p, json=asks_for("--format", "-f", value="json"))


def _library_own(impl: str, raw: dict[str, Any] | None, output: dict[str, Any] | None) -> str | None:
    """The library's own number, on its own scale, as it prints it (repr of the double):
    where its declaration's ``native`` says it is."""
    from bleu_compat.libraries.registry import of_implementation

    lib = of_implementation(impl)
    value = lib.native.of(raw) if lib is not None and raw is not None else None
    if value is None:
        return None
    return f"{lib.native.label} {value!r} ({lib.native.scale})"


def explain_request(tool_id: str, request: dict[str, Any],
                    implementations: tuple[str, ...] | None = None,
                    judging: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every implementation on a valid ``request``, classified (JSON-ready data).

    ``implementations`` default to ours and each library mode; ``impl:...`` ids
    (``--impl``) are users' callables, run on the request without ``decimals``;
    their ``dialect`` names the library dialect that reproduces them (or, when
    UNEXPECTED, the nearest one).

    Returns:
        ``{"tool", "request", "card", "versions", "implementations": [...],
        "entries": {id: {"title", "facts"}}, "unexpected": bool}``; each
        implementation has ``name``, ``verdict``, ``output``, ``library_value``
        (its own number on its own scale), ``reproduced_by`` and ``fields``
        (``field``, ``card``, ``value``, ``ulps``, ``causes``, ``nearest``).

        A user's implementation is judged against its target (``judging``: id ->
        :class:`~bleu_compat.harness.target.Judging`, default the card; issue 36): its
        verdict is ``identical``, ``accepted`` (another output its target or allowances
        accept, by ``reproduced_by``), ``finding`` (not accepted; one library's dialect
        reproduces it here: ``reproduced_by``, ``dialect``) or ``UNEXPECTED``; its fields
        compare with the target's output (``card`` is the target's value); ``target``
        says what it was judged against. ``findings`` is True when some implementation
        has a finding.
    """
    import warnings

    from bleu_compat import catalog
    from bleu_compat.harness.classify import IMPLEMENTATIONS, evaluate
    from bleu_compat.libraries.registry import quiet_loggers

    quiet_loggers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        impls = implementations or IMPLEMENTATIONS
        result = evaluate(tool_id, "explain", request, keep_outputs=True, implementations=impls)
    by_impl: dict[str, list[Any]] = {}
    for d in result.discrepancies:
        by_impl.setdefault(d.implementation, []).append(d)
    impls_out: list[dict[str, Any]] = []
    seen: dict[str, None] = {}
    for impl in impls:
        diffs = by_impl.get(impl, [])
        if impl in result.not_representable:
            verdict = "not representable"
        elif not diffs:
            verdict = "identical"
        elif any(d.unexpected for d in diffs):
            verdict = "UNEXPECTED"
        else:
            verdict = "explained"
        rep = result.reproductions.get(impl)
        fields = []
        for d in diffs:
            for e in d.entries:
                seen[e] = None
            fields.append({"field": d.field, "card": d.card_value, "value": d.library_value,
                           "ulps": d.ulps, "causes": list(d.entries), "nearest": d.nearest})
        impls_out.append({
            "name": impl,
            "verdict": verdict,
            "output": result.outputs.get(impl),
            "library_value": _library_own(impl, result.raw.get(impl), result.outputs.get(impl)),
            "reproduced_by": (list(rep.entries) if rep is not None and rep.entries is not None
                              else ([] if verdict == "identical" else None)),
            "not_representable": result.not_representable.get(impl),
            "fields": fields,
        })
        if impl.startswith("impl:"):
            impls_out[-1]["dialect"] = getattr(rep, "dialect", None)
            if impl not in result.not_representable:
                _judge_impl(impls_out[-1], impl, tool_id, request, result, (judging or {}).get(impl))
                for f in impls_out[-1]["fields"]:
                    for e in f["causes"]:
                        seen[e] = None
    entries = {}
    for e_id in seen:
        e = catalog.entry(e_id)
        entries[e_id] = {"title": e.title, "facts": e.facts(request) if e.facts is not None else None}
    return {
        "tool": tool_id,
        "request": request,
        "card": result.truth.expected,
        "versions": dict(sorted(result.versions.items())),
        "implementations": impls_out,
        "entries": entries,
        "unexpected": any(i["verdict"] == "UNEXPECTED" for i in impls_out),
        "findings": any(i["verdict"] == "finding" for i in impls_out),
    }


def _judge_impl(out: dict[str, Any], impl: str, tool_id: str, request: dict[str, Any],
                result: Any, rules: Any) -> None:
    """``out`` (an implementation's entry of :func:`explain_request`) judged against the
    implementation's target on this one request (:func:`bleu_compat.harness.target.accepted_here`)."""
    from bleu_compat.harness.compare import compare_outputs
    from bleu_compat.harness.target import Judging, accepted_here, target_output
    from bleu_compat.harness.truth import truth

    rules = rules or Judging()
    output = out["output"] or {}
    plain = {k: v for k, v in request.items() if k != "decimals"}
    expected = truth(tool_id, plain).expected
    out["target"] = rules.to_json()
    accepted = accepted_here(rules, tool_id, plain, output, expected)
    if accepted is not None:
        fam, on = accepted
        card_diffs = compare_outputs({f: expected.get(f) for f in output}, output)
        out["verdict"] = "identical" if not card_diffs else "accepted"
        out["reproduced_by"] = sorted(on)
        out["dialect"] = fam.dialect if on else None
        out["fields"] = [{"field": d.field, "card": d.expected, "value": d.actual, "ulps": d.ulps,
                          "causes": sorted(on), "nearest": None} for d in card_diffs]
        return
    rep = result.reproductions.get(impl)
    named = rep is not None and rep.explained and rep.entries is not None
    target = target_output(rules, tool_id, plain, expected)
    out["verdict"] = "finding" if named else "UNEXPECTED"
    out["reproduced_by"] = list(rep.entries) if named else None
    old = {f["field"]: f for f in out["fields"]}
    out["fields"] = [{"field": d.field, "card": d.expected, "value": d.actual, "ulps": d.ulps,
                      "causes": list(rep.entries) if named else [],
                      "nearest": None if named else (old.get(d.field) or {}).get("nearest")}
                     for d in compare_outputs({f: target.get(f) for f in output}, output)]


def _short(value: Any) -> str:
    from bleu_compat.jsonio import dumps_js

    text = dumps_js(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _text(doc: dict[str, Any]) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in doc["versions"].items())
    lines = [f"bleu-compat explain {doc['tool']}" + (f" ({versions})" if versions else "")
             + "; values in the card's units (0-1 scale)",
             f"card: {_short(doc['card'])}", ""]
    for impl in doc["implementations"]:
        head = f"{impl['name']}: {impl['verdict']}"
        target = impl.get("target")
        if target is not None:
            head += (f" against {target['target']}"
                     + (f" ({target['library']} {target['release']})" if target["library"] else "")
                     + (f", allowing {', '.join(target['allowed'])}" if target["allowed"] else ""))
        if impl["verdict"] in ("explained", "accepted", "finding") and impl["reproduced_by"]:
            head += (": reproduced by " if impl["verdict"] == "finding" else " by ") + \
                " + ".join(impl["reproduced_by"])
            if impl.get("dialect"):
                head += f" (it behaves as the {impl['dialect']} dialect)"
            if impl["verdict"] == "finding" and target is not None and not target["library"]:
                head += "; accept it on purpose with " + " ".join(
                    f"--allow {e}" for e in impl["reproduced_by"])
        if impl["library_value"]:
            head += f"; the library's own {impl['library_value']}"
        lines.append(head)
        if impl["verdict"] == "not representable":
            lines.append(f"    {impl['not_representable']}")
        for f in impl["fields"]:
            ulps = f" ({f['ulps']} ULPs)" if isinstance(f["ulps"], int) and f["ulps"] < 2**20 else ""
            side = ("target" if (impl.get("target") or {}).get("library")
                    and impl["verdict"] in ("finding", "UNEXPECTED") else "card")
            lines.append(f"    {f['field']}: {_short(f['value'])} vs {side} {_short(f['card'])}{ulps}")
            if f["causes"]:
                lines.append(f"      reproduced by {' + '.join(f['causes'])}")
            elif f["nearest"] is not None:
                near = " + ".join(f["nearest"]["entries"]) or "the card"
                lines.append(f"      UNEXPECTED: no dialect gives it; nearest ({near}) gives "
                             f"{_short(f['nearest']['value'])}")
            else:
                lines.append("      UNEXPECTED")
    if doc["entries"]:
        lines += ["", "Entries:"]
        for e_id, e in doc["entries"].items():
            lines.append(f"  {e_id}: {e['title']}")
            if e["facts"]:
                lines.append(f"    here: {e['facts']}")
    return "\n".join(lines)


def cmd_explain(args: argparse.Namespace) -> int:
    from bleu_compat.errors import ToolError
    from bleu_compat.jsonio import dumps_js
    from bleu_compat.tools import validate_request

    from bleu_compat.cli.run import read_request

    data, refused = read_request(args.tool, args.file)  # the same refusals as `run`
    if data is None:
        return refused or 2
    try:
        request = validate_request(args.tool, data)
    except ToolError as exc:
        print(dumps_js(exc.to_dict()))
        return 2
    from bleu_compat.cli.crosscheck import hung, resolve_impls
    from bleu_compat.isolation import ImplementationHung

    impls, problem = resolve_impls(args.impl, args.impl_timeout)
    if not problem:
        from bleu_compat.cli.crosscheck import resolve_judging

        judging, problem = resolve_judging(impls, args.target, args.allow)
    if problem:
        from bleu_compat.cli.usage import refuse

        return refuse("bleu-compat explain", problem, json=args.format == "json")
    if impls:
        from bleu_compat.implementations import resolve

        served = {resolve(i).tool_id for i in impls}
        if args.tool not in served:  # nothing would be judged: never a green exit
            from bleu_compat.cli.usage import refuse

            return refuse("bleu-compat explain",
                          f"{args.tool}: the --impl implementations answer only "
                          f"{', '.join(sorted(served))}", json=args.format == "json")
    try:
        doc = explain_request(args.tool, request, impls, judging)
    except ImplementationHung as exc:
        return hung("bleu-compat explain", exc, json=args.format == "json")
    if impls and all(i["verdict"] == "not representable" for i in doc["implementations"]):
        from bleu_compat.cli.usage import refuse

        reasons = "; ".join(f"{i['name']}: {i['not_representable']}" for i in doc["implementations"])
        return refuse("bleu-compat explain", f"nothing was judged: the request is not "
                      f"representable for the --impl implementations ({reasons})",
                      json=args.format == "json")
    print(dumps_js(doc, indent=2) if args.format == "json" else _text(doc))
    return 1 if doc["unexpected"] or doc["findings"] else 0
