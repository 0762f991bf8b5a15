"""Crosscheck reports: JSON (machines), Markdown (people), JUnit XML (CI).

All three are deterministic for a seed, case counts, code and library
versions: no timestamps or durations inside (the CLI writes timing to a
separate ``crosscheck.timing.json``). Keys and rows are sorted.
"""

from __future__ import annotations

import json
import platform
from typing import Any, Sequence
from xml.etree import ElementTree as ET

from bleu_compat.jsonio import dumps_js

from bleu_compat.libraries.registry import libraries as _libraries

from .classify import IMPLEMENTATIONS
from .run import ULP_BUCKETS, Tally

__all__ = ["build_report", "to_markdown", "to_junit", "FORMAT", "run_command", "group_reproducers",
           "run_id_of", "with_run_id", "card_text"]

FORMAT = "bleu-compat-crosscheck/1"


def _kind_name(tool: str, impl: str, field: str, entries: tuple[str, ...]) -> str:
    return f"{tool} | {impl} | {field} | {'+'.join(entries) or 'UNEXPECTED'}"


def run_command(tool_id: str, request: dict[str, Any], implementation: str = "ours") -> str:
    """A shell command that runs ``request`` through ours (``bleu-compat run``), or
    through a user's implementation (``impl:SPEC``: ``bleu-compat explain --impl SPEC``).

    An invalid request kept as JSON text (``{"json_text": ...}``) is sent as that text.
    """
    body = request["json_text"] if set(request) == {"json_text"} else dumps_js(request)
    if implementation.startswith("impl:"):
        return (f"bleu-compat explain {tool_id} --impl {implementation[len('impl:'):]} "
                f"<<'EOF'\n{body}\nEOF")
    return f"bleu-compat run {tool_id} <<'EOF'\n{body}\nEOF"


def build_report(tally: Tally, *, seed: int, cases: dict[str, int], versions: dict[str, str],
                 implementations: Sequence[str] | None = None) -> dict[str, Any]:
    """The JSON report of a crosscheck (plain data, deterministic).

    ``implementations`` are the ones that ran (default: ours and every library mode).
    """
    from bleu_compat import catalog

    entry_counts: dict[str, dict[str, Any]] = {}
    kinds = []
    for (tool, impl, field, entries), (count, example) in sorted(tally.kinds.items()):
        kinds.append({"tool": tool, "implementation": impl, "field": field,
                      "entries": list(entries), "unexpected": not entries, "count": count,
                      "reproduced_by": dict(sorted(tally.kind_sets.get((tool, impl, field, entries), {}).items())),
                      "name": _kind_name(tool, impl, field, entries), "example": example})
        for e in entries:
            row = entry_counts.setdefault(e, {"count": 0, "example": example})
            row["count"] += count
    for real in tally.real:
        for d in real["discrepancies"]:
            for e in d["entries"]:
                row = entry_counts.setdefault(e, {"count": 0, "example": dict(d, case_id=d["case_id"])})
                row["count"] += 1
    titles = {e.id: e.title for e in getattr(catalog, "ENTRIES", ())}
    entries_out = {
        e: {"title": titles.get(e, ""), "count": row["count"], "example": row["example"]}
        for e, row in sorted(entry_counts.items())
    }
    ulps = []
    for (tool, impl, field), hist in sorted(tally.ulps.items()):
        ulps.append({"tool": tool, "implementation": impl, "field": field,
                     "histogram": {b: hist.get(b, 0) for b in ULP_BUCKETS},
                     "max": tally.ulps_max[(tool, impl, field)]})
    unexpected = []
    for d in tally.unexpected:
        item = d.to_json()
        repro = d.reproducer if d.reproducer is not None else (
            d.request if not {"real_corpus", "token_check", "self_check"} & set(d.request)
            else None)
        item["reproducer"] = repro
        item["command"] = run_command(d.tool_id, repro, d.implementation) if repro is not None else None
        unexpected.append(item)
    too_broad = [
        {"tool": t, "implementation": i, "entry": e, "title": titles.get(e, ""), "count": count,
         "example": example}
        for (t, i, e), (count, example) in sorted(tally.too_broad.items())]
    findings = []
    for d in tally.findings:
        item = d.to_json()
        item["unexpected"] = False
        repro = d.reproducer if d.reproducer is not None else (
            d.request if "real_corpus" not in d.request else None)
        item["reproducer"] = repro
        item["command"] = run_command(d.tool_id, repro, d.implementation) if repro is not None else None
        findings.append(item)
    return {
        "format": FORMAT,
        "seed": seed,
        "cases": {t: cases.get(t, 0) for t in sorted(cases)},
        "versions": dict(sorted(versions.items())),
        "implementations": list(implementations or IMPLEMENTATIONS),
        "summary": {t: {i: row for i, row in sorted(rows.items())}
                    for t, rows in sorted(tally.case_outcomes.items())},
        "entries": entries_out,
        "kinds": kinds,
        "not_representable": [
            {"tool": t, "implementation": i, "reason": r, "count": n}
            for (t, i, r), n in sorted(tally.not_representable.items())
        ],
        "ulps_vs_exact": ulps,
        "real": sorted(tally.real, key=lambda r: r["name"]),
        "invalid": {t: dict(row) for t, row in sorted(tally.invalid.items())},
        "unexpected_count": len(tally.unexpected),
        "unexpected": unexpected,
        "reproducers": group_reproducers(unexpected),
        "too_broad_count": len(too_broad),
        "too_broad": too_broad,
        "decompositions": {"checked": tally.decompositions,
                           "failures": list(tally.decomposition_failures)},
        "decomposition_failures_count": len(tally.decomposition_failures),
        "exact_side": {"checked": tally.exact_checked,
                       "regimes": dict(sorted(tally.exact_regimes.items())),
                       "findings": list(tally.exact_findings)},
        "exact_findings_count": len(tally.exact_findings),
        # a user's implementation against its target (issue 36): the verdict per implementation,
        # and the named findings (one library's consistent quirks; UNEXPECTED ones are above)
        "judging": {i: tally.judgements[i] for i in sorted(tally.judgements)},
        "tokenizers": dict(tally.tokenizer_checks),
        "findings_count": len(findings),
        "findings": findings,
        "finding_reproducers": group_reproducers(findings),
        "never_reproduced": never_reproduced(versions, implementations or IMPLEMENTATIONS,
                                             set(entries_out)),
    }


def never_reproduced(versions: dict[str, str], implementations: Sequence[str],
                     seen: set[str]) -> list[dict[str, Any]]:
    """The entries of the installed releases' dialects (in the modes that ran) that no case
    of the run reproduced (issue 25), in catalog order: ``{"library", "release", "entry",
    "title", "reachable", "why"}``; ``reachable`` False with ``why`` for an entry the default
    generators do not reach (its ``unreached``, :func:`bleu_compat.harness.consistency.unreachable`)."""
    from bleu_compat import catalog

    from .consistency import unreachable

    unreached = unreachable()

    ran = {i for i in implementations if "/" in i and not i.startswith("impl:")}
    out = []
    for e in catalog.ENTRIES:
        release = versions.get(e.library)
        if not release or release not in e.verified or e.id in seen:
            continue
        if not any(f"{e.library}/{m}" in ran for m in e.modes):
            continue
        out.append({"library": e.library, "release": release, "entry": e.id, "title": e.title,
                    "reachable": e.id not in unreached, "why": unreached.get(e.id)})
    return out


#: Case ids listed per reproducer in the reports (the count says how many there are).
MAX_CASE_IDS = 20


def group_reproducers(unexpected: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The UNEXPECTED differences grouped by what reproduces them: one entry per tool,
    implementation, field and reproducer (a real corpus' difference is its own entry),
    in order of first appearance, with ``count`` and up to :data:`MAX_CASE_IDS` ``case_ids``;
    ``first`` is the first difference of the group (its values, ULPs and nearest dialect).
    The Markdown and HTML reports list each reproducer once, with its count."""
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for u in unexpected:
        key = (u["tool_id"], u["implementation"], u["field"],
               dumps_js(u["reproducer"]) if u.get("reproducer") is not None else ("case", u["case_id"]))
        group = groups.get(key)
        if group is None:
            groups[key] = group = {
                "tool_id": u["tool_id"], "implementation": u["implementation"], "field": u["field"],
                "reproducer": u.get("reproducer"), "command": u.get("command"), "count": 0,
                "case_ids": [], "first": {**{k: u.get(k) for k in (
                    "case_id", "card_value", "library_value", "ulps", "nearest")},
                    **{k: u["request"][k] for k in ("token_check", "self_check")
                       if isinstance(u.get("request"), dict) and k in u["request"]}}}
        group["count"] += 1
        if len(group["case_ids"]) < MAX_CASE_IDS:
            group["case_ids"].append(u["case_id"])
    return list(groups.values())


def _case_list(group: dict[str, Any]) -> str:
    ids = ", ".join(group["case_ids"])
    more = group["count"] - len(group["case_ids"])
    return ids + (f" and {more} more" if more > 0 else "")


def run_id_of(report: dict[str, Any]) -> str:
    """The id of a report's run: the first 16 hex digits of the SHA-256 of the report's JSON
    (without ``run_id``). Computed from the content, so a seed gives the same id on any
    machine, and every file of one run's report set names it: a set mixing two runs'
    files shows two ids."""
    import hashlib

    body = {k: v for k, v in report.items() if k != "run_id"}
    return hashlib.sha256(dumps_js(body).encode("utf-8")).hexdigest()[:16]


def with_run_id(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with ``run_id`` (:func:`run_id_of`) as its second key, after ``format``."""
    body = {k: v for k, v in report.items() if k != "run_id"}
    out: dict[str, Any] = {}
    for k, v in body.items():
        out[k] = v
        if k == "format":
            out["run_id"] = run_id_of(body)
    if "run_id" not in out:
        out["run_id"] = run_id_of(body)
    return out


def versions_now() -> dict[str, str]:
    """bleu_compat's, every installed registered implementation's, mpmath's, Hypothesis' and
    Python's versions.

    An implementation is keyed by its registered name, read from its distribution; one that
    is not installed is left out (a crosscheck does not run it).
    """
    from importlib import metadata

    from bleu_compat import __version__
    from bleu_compat.libraries.registry import installed

    out = {"bleu_compat": __version__, "python": platform.python_version()}
    for lib in installed():
        try:
            out[lib.name] = lib.installed_version()
        except ImportError:  # not installed, or a script the environment does not name
            out[lib.name] = "not installed"
    for dist in ("mpmath", "hypothesis"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def library_versions_text(versions: dict[str, Any]) -> str:
    """``"sacreBLEU 2.6.0, NLTK 3.10.4"``: the version of each registered implementation that
    ``versions`` names, in registry order."""
    from bleu_compat.libraries.registry import libraries

    return ", ".join(f"{lib.display_name} {versions.get(lib.name)}" for lib in libraries()
                     if lib.name in versions)


def card_text(difference: dict[str, Any], fmt: Any = repr) -> str:
    """The card's side of a difference, as text: ``fmt(card_value)``, except for the field
    ``error`` where the card gives a result (``card_value`` None): "no error"."""
    if difference.get("field") == "error" and difference.get("card_value") is None:
        return "no error"
    return fmt(difference.get("card_value"))


def _md_value(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "…"


def to_markdown(report: dict[str, Any]) -> str:
    """The Markdown report for people."""
    v = report["versions"]
    lines = [
        "# bleu-compat crosscheck",
        "",
        f"Run `{report.get('run_id', 'unknown')}` (crosscheck.json, .junit.xml, .html and "
        ".timing.json of the same run carry the same id).",
        "",
        f"Seed {report['seed']}; generated cases: "
        + ", ".join(f"{t} {n}" for t, n in report["cases"].items())
        + f" ({sum(report['cases'].values())} in all); real corpora: {len(report['real'])}.",
        f"Versions: bleu_compat {v.get('bleu_compat')}, {library_versions_text(v)}, "
        f"mpmath {v.get('mpmath')}, Python {v.get('python')}.",
        "",
        f"**UNEXPECTED differences: {report['unexpected_count']}.**",
        "",
        f"**Catalog entries too broad: {report.get('too_broad_count', 0)}.**",
        "",
        f"**Decompositions checked: {report.get('decompositions', {}).get('checked', 0)}; "
        f"failed checks: {report.get('decomposition_failures_count', 0)}.**",
        "",
        f"**Exact side recomputed on {report.get('exact_side', {}).get('checked', 0)} cases; "
        f"differences: {report.get('exact_findings_count', 0)}.**",
        "",
    ]
    if report.get("judging"):
        lines += [f"**Your implementations: findings against their targets: "
                  f"{report.get('findings_count', 0)} (UNEXPECTED ones counted above).**", "",
                  "## Your implementations: target, allowances, verdict", "",
                  "| implementation | target | allowed | verdict | cases judged | differ from the card "
                  "| findings |", "|---|---|---|---|---:|---:|---:|"]
        for impl, j in report["judging"].items():
            target = j["target"] + (f" ({j['library']} {j['release']})" if j.get("library") else "")
            lines.append(f"| {impl} | {target} | {', '.join(j['allowed']) or 'nothing'} | "
                         f"{j['status'].upper()} | {j['judged']} | {j['differ_from_card']} | "
                         f"{j['failing']} |")
        lines.append("")
        for impl, j in report["judging"].items():
            lines += [f"- {_md_value(j['message']) if len(j['message']) <= 120 else j['message']}", ""]
        for g in report.get("finding_reproducers") or ():
            u = g["first"]
            cases = (f"{g['count']} cases: {_case_list(g)}" if g["count"] > 1 else u["case_id"])
            lines += [f"### Finding: {g['implementation']} `{g['field']}` ({cases})", "",
                      f"target value {card_text(dict(u, field=g['field']), _md_value)}, "
                      f"implementation value {_md_value(u['library_value'])}", ""]
            if g["command"]:
                lines += ["Minimal reproducer (shrunk):", "", "```sh", g["command"], "```", ""]
    lines += [
        "## Summary (cases per tool and implementation)",
        "",
        "| tool | implementation | agree | explained | UNEXPECTED | not representable | findings |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for tool, rows in report["summary"].items():
        for impl, row in rows.items():
            lines.append(f"| {tool} | {impl} | {row['agree']} | {row['explained']} | "
                         f"{row['unexpected']} | {row['not_representable']} | "
                         f"{row.get('finding', 0)} |")
    if report.get("invalid"):
        lines += ["", "## Invalid requests (ours against the truth's own SPEC.md §2 checks)", "",
                  "| tool | cases | same error code and path | UNEXPECTED |", "|---|---:|---:|---:|"]
        for tool, row in report["invalid"].items():
            lines.append(f"| {tool} | {row['cases']} | {row['agree']} | {row['unexpected']} |")
    lines += ["", "## Catalog entries seen (differences counted per field; one example each)", "",
              "| entry | count | title | example (case, implementation, field: card → library) |",
              "|---|---:|---|---|"]
    for e, row in report["entries"].items():
        ex = row["example"]
        lines.append(
            f"| `{e}` | {row['count']} | {_md_value(row['title'])} | {ex.get('case_id')}, "
            f"{ex.get('implementation')}, {ex.get('field')}: {_md_value(ex.get('card_value'))} → "
            f"{_md_value(ex.get('library_value'))} |")
    lines += ["", "## Catalog entries too broad (model consistency)", "",
              "Each entry claimed for an installed release and mode, switched on beside the entries "
              "that reproduce the library's output, must leave that output alone; each entry's "
              "model, alone on its negative reproducer, must leave the card's output alone.", ""]
    if not report.get("too_broad"):
        lines.append("None: every claimed entry is consistent with its library on every case.")
    for t in report.get("too_broad", ()):
        ex = t["example"]
        lines += [f"### `{t['entry']}` too broad: {t['tool']}, {t['implementation']} "
                  f"(release {ex.get('release')}; {t['count']} case(s), first {ex.get('case_id')})", "",
                  f"With {' + '.join(ex.get('with', ()))} on, the model gives "
                  f"{_md_value(ex.get('model'))} where the library gives {_md_value(ex.get('library'))}"
                  + (f" ({ex['note']})" if ex.get("note") else "") + ".", "",
                  "```json", dumps_js(ex.get("request")), "```", ""]
    lines += ["", "## Decompositions (score --compare, checked independently)", "",
              "Generated raw-text corpora and a slice of each bundled real corpus, through every "
              "pair of the built-in configurations whose implementation ran; each decomposition "
              "judged by `bleu_compat.harness.decomposition_check` (end states, factors, inert, "
              "telescoping, Shapley).", ""]
    dec = report.get("decompositions") or {}
    lines.append(f"Checked: {dec.get('checked', 0)}.")
    if not dec.get("failures"):
        lines += ["", "None failed."]
    for f in dec.get("failures", ()):
        lines.append(f"- **{f['check']}** failed for {f['pair']} on {f.get('corpus')}: "
                     f"{_md_value(f['detail'])}")
    exact = report.get("exact_side") or {}
    lines += ["", "## The truth's exact side, recomputed by a second route", "",
              f"Cases: {exact.get('checked', 0)}; aimed at its special ranges: "
              + (", ".join(f"{k} {n}" for k, n in exact.get("regimes", {}).items()) or "none")
              + ".", ""]
    if not exact.get("findings"):
        lines.append("None differ.")
    for f in exact.get("findings", ()):
        lines.append(f"- {f['case_id']} `{f['field']}`: truth {f['truth']!r}, second route "
                     f"{f['direct']!r} (c {f.get('candidate_length')}, r {f.get('reference_length')})")
    tok = report.get("tokenizers") or {}
    if tok:
        lines += ["", "## Our tokenizers against their peers (issue 36)", "",
                  f"Each on {tok.get('lines', 0)} crafted lines, through every path of ours; a "
                  "difference is UNEXPECTED (below), with the shortest line that shows it.", "",
                  "| tokenizer | peer | paths | same |", "|---|---|---|---|"]
        for c in tok.get("checked", ()):
            lines.append(f"| {c['tokenizer']} | {c['peer']} | {', '.join(c['paths'])} | "
                         f"{'yes' if c['same'] else '**no**'} |")
        for n in tok.get("not_checked", ()):
            lines.append(f"| {n['tokenizer']} | not checked here | {_md_value(n['why'])} | — |")
    lines += ["", "## Entries of the installed releases never reproduced in this run", ""]
    if not report.get("never_reproduced"):
        lines.append("None: every entry of the installed releases' dialects was reproduced.")
    for n in report.get("never_reproduced", ()):
        lines.append(f"- `{n['entry']}` ({n['library']} {n['release']}): "
                     + (f"not reached by the default generators: {n['why']}" if not n["reachable"]
                        else "reachable, not reached by this run's cases"))
    lines += ["", "## Kinds of difference (tool | implementation | field | entries)", "",
              "| kind | count |", "|---|---:|"]
    lines += [f"| {_md_value(k['name'])} | {k['count']} |" for k in report["kinds"]]
    lines += ["", "## Not representable", "", "| tool | implementation | reason | cases |",
              "|---|---|---|---:|"]
    lines += [f"| {r['tool']} | {r['implementation']} | {_md_value(r['reason'])} | {r['count']} |"
              for r in report["not_representable"]]
    lines += ["", "## ULP distance to the correctly rounded exact value (mpmath, 60 digits)", "",
              "Unrounded doubles. Libraries only on requests without `decimals` where they compute "
              "the card's quantity (every difference, if any, is a floating-point order-of-"
              "operations entry); semantic divergences are counted by their catalog entries "
              "above, not as ULP distances.", "",
              "| tool | implementation | field | " + " | ".join(ULP_BUCKETS) + " | max |",
              "|---|---|---|" + "---:|" * (len(ULP_BUCKETS) + 1)]
    for u in report["ulps_vs_exact"]:
        lines.append(f"| {u['tool']} | {u['implementation']} | {u['field']} | "
                     + " | ".join(str(u["histogram"][b]) for b in ULP_BUCKETS) + f" | {u['max']} |")
    lines += ["", "## Real corpora", "",
              "Each library's own number on its own scale, as it returns it ("
              + "; ".join(f"{lib.native.describe}, {lib.native.scale.replace('-', '–')}"
                          for lib in _libraries() if lib.name in report["versions"])
              + "); ours and the exact value as BLEU on the 0–100 scale (100 × the card's bleu).",
              "",
              "| corpus | segments | refs | tokenize | published | implementation | value | scale |",
              "|---|---:|---:|---|---|---|---:|---|"]
    for r in report["real"]:
        head = f"| {r['name']} | {r['segments']} | {r['references']} | {r['tokenize']} | {r['published']} |"
        rows = [("ours", r["scores"].get("ours"), None)] + [
            (i, r["scores"].get(i), (r.get("library_values") or {}).get(i))
            for i in report["implementations"] if i != "ours"]
        for impl, score, own in rows:
            if own is not None:
                lines.append(f"{head} {impl} | {own['text']} | {own['scale']} |")
            elif score is not None:
                lines.append(f"{head} {impl} | {100 * score!r} | 0-100 (100 × bleu) |")
            elif impl in (r.get("outcomes") or {}) and impl not in r.get("not_representable", {}):
                lines.append(f"{head} {impl} | no score (below) | |")
            head = "| | | | | |"
        lines.append(f"{head} exact | {100 * r['truth_exact_bleu']!r} | 0-100 (100 × bleu) |")
    for r in report["real"]:
        for d in r["discrepancies"]:
            lines.append(f"- {r['name']}: {d['implementation']} `{d['field']}` "
                         f"{card_text(d, _md_value)} → {_md_value(d['library_value'])}"
                         f" ({'finding: ' if d.get('finding') else ''}"
                         f"{'+'.join(d['entries']) or ('the card' if d.get('finding') else 'UNEXPECTED')})")
    lines += ["", "## UNEXPECTED differences", ""]
    if not report["unexpected"]:
        lines.append("None: every difference is reproduced bit for bit by a set of catalog entries.")
    groups = report.get("reproducers")
    if groups is None:
        groups = group_reproducers(report["unexpected"])
    for g in groups:
        u = g["first"]
        cases = (f"{g['count']} cases: {_case_list(g)}" if g["count"] > 1 else u["case_id"])
        lines += [f"### {g['tool_id']}: {g['implementation']} `{g['field']}` ({cases})", "",
                  f"card value {card_text(dict(u, field=g['field']), _md_value)}, implementation value "
                  f"{_md_value(u['library_value'])}"
                  + (f" ({u['ulps']} ULPs)" if u["ulps"] is not None else "")
                  + (f" (first case, {u['case_id']})" if g["count"] > 1 else ""), ""]
        near = u.get("nearest")
        if near is not None:
            lines += [f"Nearest dialect ({' + '.join(near['entries']) or 'the card alone'}) gives "
                      f"{_md_value(near['value'])}; no set of catalog entries reproduces the "
                      "implementation's output.", ""]
        if g["command"]:
            lines += ["Minimal reproducer (shrunk by hypothesis):", "", "```sh", g["command"], "```", ""]
        elif (u.get("request") or {}).get("self_check"):  # the judge on its canary (issue 36)
            lines += [f"(a self-check of the judge) {u['request']['self_check']}", ""]
        elif (u.get("request") or {}).get("token_check"):  # a library's tokens, or ours (issue 36)
            where = "real corpus; not shrunk" if "real_corpus" in u["request"] else (
                "tokenizer check; the line is the shortest that shows it")
            lines += [f"({where}) {u['request']['token_check']}", ""]
        else:
            lines += ["(real corpus; not shrunk)", ""]
    return "\n".join(lines) + "\n"


def to_junit(report: dict[str, Any]) -> str:
    """JUnit XML: one testcase per tool × implementation × catalog entry, plus
    one ``agreement`` testcase per tool × implementation that fails on UNEXPECTED."""
    suites = ET.Element("testsuites", name="bleu-compat crosscheck")
    versions = report["versions"]
    by_tool: dict[str, list[ET.Element]] = {}
    for tool, rows in report["summary"].items():
        for impl, row in rows.items():
            case = ET.Element("testcase", classname=f"{tool}.{impl}", name="agreement")
            bad = [u for u in report["unexpected"] if u["tool_id"] == tool and u["implementation"] == impl]
            if bad:
                failure = ET.SubElement(case, "failure", message=f"{len(bad)} UNEXPECTED difference(s)",
                                        type="UNEXPECTED")
                failure.text = "\n\n".join(
                    f"{u['case_id']} {u['field']}: card {card_text(u)}, got {u['library_value']!r}\n"
                    + (u["command"] or "") for u in bad)
            by_tool.setdefault(tool, []).append(case)
    for k in report["kinds"]:
        for e in k["entries"]:
            case = ET.Element("testcase", classname=f"{k['tool']}.{k['implementation']}",
                              name=f"{e} [{k['field']}]")
            out = ET.SubElement(case, "system-out")
            out.text = f"explained by {e}: {k['count']} case(s)"
            by_tool.setdefault(k["tool"], []).append(case)
    for impl, j in (report.get("judging") or {}).items():
        case = ET.Element("testcase", classname=f"target.{impl}",
                          name=f"against {j['target']}"
                               + (f" allowing {', '.join(j['allowed'])}" if j["allowed"] else ""))
        if j["status"] != "pass":
            failure = ET.SubElement(case, "failure", type="FINDING" if j["status"] == "finding"
                                    else "UNEXPECTED", message=f"{j['failing']} case(s) differ from "
                                    f"the target {j['target']}")
            failure.text = j["message"] + "\n\n" + "\n\n".join(
                f"{u['case_id']} {u['field']}: target {card_text(u)}, got {u['library_value']!r}\n"
                + (u["command"] or "") for u in report.get("findings", ())
                if u["implementation"] == impl)
        else:
            out = ET.SubElement(case, "system-out")
            out.text = j["message"]
        by_tool.setdefault("targets", []).append(case)
    for t in report.get("too_broad", ()):
        ex = t["example"]
        case = ET.Element("testcase", classname=f"{t['tool']}.{t['implementation']}",
                          name=f"{t['entry']} consistent")
        failure = ET.SubElement(case, "failure", type="TOO-BROAD",
                                message=f"{t['entry']} too broad on {t['count']} case(s)")
        failure.text = (f"{ex.get('case_id')}: with {' + '.join(ex.get('with', ()))} the model gives "
                        f"{ex.get('model')!r}, the library {ex.get('library')!r}\n"
                        + dumps_js(ex.get("request")))
        by_tool.setdefault("consistency", []).append(case)
    for f in (report.get("decompositions") or {}).get("failures", ()):
        case = ET.Element("testcase", classname="decompositions", name=f"{f['pair']} {f['check']}")
        failure = ET.SubElement(case, "failure", type="DECOMPOSITION", message=f"{f['check']} failed")
        failure.text = f"{f.get('corpus')}: {f['detail']}"
        by_tool.setdefault("decompositions", []).append(case)
    for c in (report.get("tokenizers") or {}).get("checked", ()):
        case = ET.Element("testcase", classname="tokenizers", name=f"{c['tokenizer']} vs {c['peer']}")
        bad = [u for u in report["unexpected"] if u["implementation"] == f"ours/{c['tokenizer']}"]
        if bad:
            failure = ET.SubElement(case, "failure", type="UNEXPECTED",
                                    message=f"{len(bad)} path(s) give other tokens")
            failure.text = "\n".join(u["request"]["token_check"] for u in bad)
        by_tool.setdefault("tokenizers", []).append(case)
    for f in (report.get("exact_side") or {}).get("findings", ()):
        case = ET.Element("testcase", classname="exact-side", name=f"{f['case_id']} {f['field']}")
        failure = ET.SubElement(case, "failure", type="EXACT-SIDE", message="exact doubles differ")
        failure.text = f"truth {f['truth']!r}, second route {f['direct']!r}"
        by_tool.setdefault("exact-side", []).append(case)
    for r in report["real"]:
        for impl in report["implementations"]:
            case = ET.Element("testcase", classname=f"real.{r['name']}", name=impl)
            bad = [d for d in r["discrepancies"] if d["implementation"] == impl
                   and (not d["entries"] or d.get("finding"))]
            if bad:
                failure = ET.SubElement(case, "failure", type="UNEXPECTED", message="UNEXPECTED difference")
                failure.text = "\n".join(f"{d['field']}: {d['card_value']!r} -> {d['library_value']!r}" for d in bad)
            by_tool.setdefault("real-corpora", []).append(case)
    for tool in sorted(by_tool):
        cases = by_tool[tool]
        failures = sum(1 for c in cases if c.find("failure") is not None)
        suite = ET.SubElement(suites, "testsuite", name=tool, tests=str(len(cases)),
                              failures=str(failures), errors="0")
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="run_id", value=str(report.get("run_id")))
        for key in (*(lib.name for lib in _libraries() if lib.name in versions), "bleu_compat"):
            ET.SubElement(props, "property", name=key, value=str(versions.get(key)))
        ET.SubElement(props, "property", name="seed", value=str(report["seed"]))
        suite.extend(cases)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
