"""sacreBLEU's statistical tests on bleu-compat's statistics: ``-ci``, ``--paired-bs``, ``--paired-ar``.

The ``sacrebleu`` command (release 2.6.0) estimates a confidence interval by
bootstrap resampling (``--confidence``) and compares systems with a baseline
by paired bootstrap resampling (``--paired-bs``) or approximate randomization
(``--paired-ar``). Its numbers depend on three things, all reproduced here:

* the segments' sufficient statistics, ``[hyp_len, ref_len, m_1..m_N, l_1..l_N]``
  per segment: counted by bleu-compat (the same tokens and clipping, so the same
  integers);
* its pseudo-random draws: numpy's ``default_rng(seed)`` (PCG64), with the seed
  from ``SACREBLEU_SEED`` (default 12345; ``none`` draws from the operating
  system), ``choice(n_segments, size=(n, n_segments))`` for the resamples and
  ``integers(2, size=(n, n_segments), dtype=bool)`` for the swaps: the same
  generator called the same way gives the same draws;
* its arithmetic: a resample's statistics summed in float32 (``sum(0)`` over the
  segments drawn, as numpy sums them), a swap's in int64 (a boolean matrix
  product), then BLEU by :func:`~bleu_compat.cli.score.sacrebleu_form.sacrebleu_bleu`
  on those arrays (their dtype kept, as sacreBLEU's ``compute_bleu`` keeps it);
  the interval from the sorted scores (the 1/40 quantiles, half their distance)
  with the mean by ``statistics.mean`` (``-ci``) or numpy's ``mean`` (paired);
  the p-value ``(c + 1) / (n + 1)``, c the samples whose statistic exceeds the
  actual difference.

Facts read from sacreBLEU 2.6.0's ``significance.py`` (``_bootstrap_resample``,
``estimate_ci``, ``_compute_p_value``, ``_paired_bs_test``, ``_paired_ar_test``,
``PairedTest``), ``metrics/base.py`` (``Score.estimate_ci``, ``Score.format``,
``Signature``) and ``utils.py`` (``print_results_table``,
``_format_score_lines``); ``oracle_tests/test_score_sacrebleu_tests.py`` runs
the real command beside this one and compares the bytes. numpy is imported
only when one of these options is given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Sequence

__all__ = ["SeedError", "Seed", "seed_setting", "sacrebleu_rows", "confidence",
           "PairedResult", "paired_test", "paired_table", "DEFAULT_SAMPLES"]

#: sacreBLEU's resamples (bs) and trials (ar) when the count given is not positive
DEFAULT_SAMPLES = {"bs": 1000, "ar": 10000}


class SeedError(ValueError):
    """``SACREBLEU_SEED`` is neither a whole number numpy takes nor ``none``."""


@dataclass(frozen=True)
class Seed:
    """``SACREBLEU_SEED`` as sacreBLEU reads it.

    Attributes:
        text: the variable as given (``"12345"`` by default): ``-ci``'s signature
            writes it lowercased.
        value: the generator's seed, or None for ``none`` (entropy from the system).
    """

    text: str
    value: int | None

    @property
    def paired_text(self) -> str:
        """The paired tests' signature value: ``str(int(text))`` or ``none``."""
        return str(self.value).lower()


def seed_setting() -> Seed:
    """``SACREBLEU_SEED`` (default ``12345``), checked before anything runs.

    Raises:
        SeedError: not a whole number (sacreBLEU stops there with a traceback), or a
            negative one (numpy's generator refuses it).
    """
    text = os.environ.get("SACREBLEU_SEED", "12345")
    if text.lower() == "none":
        return Seed(text, None)
    try:
        value = int(text)
    except ValueError:
        raise SeedError(f"SACREBLEU_SEED={text!r}: give a whole number (sacreBLEU's default "
                        "is 12345) or none") from None
    if value < 0:
        raise SeedError(f"SACREBLEU_SEED={text!r}: numpy's generator takes a seed of 0 or more")
    return Seed(text, value)


def sacrebleu_rows(rows: Sequence[Sequence[int]], max_order: int) -> list[list[int]]:
    """bleu-compat's per-segment rows ``[m_1..m_N, l_1..l_N, hyp_len, ref_len]`` in
    sacreBLEU's order ``[hyp_len, ref_len, m_1..m_N, l_1..l_N]`` (Python ints)."""
    k = 2 * max_order
    return [[int(r[k]), int(r[k + 1]), *map(int, r[:k])] for r in rows]


#: BLEU of one row of statistics in sacreBLEU's order (a numpy array), 0-100
RowScore = Callable[[Any], float]


def _row_scorer(max_order: int, smooth_method: str, smooth_value: float | None,
                effective_order: bool) -> RowScore:
    from bleu_compat.cli.score.sacrebleu_form import sacrebleu_bleu

    def score(row: Any) -> float:
        return sacrebleu_bleu(row[2:2 + max_order], row[2 + max_order:], int(row[0]),
                              int(row[1]), smooth_method=smooth_method,
                              smooth_value=smooth_value, effective_order=effective_order).score

    return score


def _resampled_scores(stats: Any, idxs: Any, score: RowScore) -> list[float]:
    # sacreBLEU sums each resample's rows of its float32 matrix: stats[idxs] is the
    # (n, segments, fields) stack, and each (segments, fields) slice is summed over
    # axis 0; the same slice taken one at a time is the same C-ordered array, summed
    # the same way (without holding the whole stack)
    return [score(stats[row].sum(0)) for row in idxs]


def _generator(seed: int | None) -> Any:
    import numpy as np

    return np.random.default_rng(seed)


def confidence(rows: list[list[int]], n_samples: int, seed: Seed, max_order: int,
               smooth_method: str, smooth_value: float | None,
               effective_order: bool) -> tuple[float, float]:
    """``-ci``: (mean, half-width of the 95% interval) of ``n_samples`` bootstrap
    resamples of the segments, 0-100 scale, as sacreBLEU's ``corpus_score(...,
    n_bootstrap=n_samples)`` computes them (``Score.estimate_ci``: the mean by
    ``statistics.mean``). ``rows``: :func:`sacrebleu_rows`."""
    import statistics

    import numpy as np

    rng = _generator(seed.value)
    idxs = rng.choice(len(rows), size=(n_samples, len(rows)), replace=True)
    matrix = np.array(rows, dtype="float32")
    scores = sorted(_resampled_scores(matrix, idxs, _row_scorer(
        max_order, smooth_method, smooth_value, effective_order)))
    lower = len(scores) // 40
    upper = len(scores) - lower - 1
    return statistics.mean(scores), 0.5 * (scores[upper] - scores[lower])


def _numpy_ci(scores: Any) -> tuple[Any, Any]:
    """sacreBLEU's ``significance.estimate_ci``: numpy's sort and mean."""
    import numpy as np

    ordered = np.sort(scores)
    lower = len(ordered) // 40
    upper = len(ordered) - lower - 1
    return ordered.mean(), 0.5 * (ordered[upper] - ordered[lower])


def _p_value(statistic: Any, actual: float) -> float:
    import numpy as np

    above = np.sum(statistic > actual).item()
    return (above + 1) / (len(statistic) + 1)


@dataclass
class PairedResult:
    """One system's line in a paired test (0-100 scale): its score, and against the
    baseline its p-value; the bootstrap's mean and 95% half-width (``--paired-bs``)."""

    score: float
    p_value: float | None = None
    mean: float | None = None
    ci: float | None = None


def paired_test(kind: str, systems: Sequence[list[list[int]]], actual: Sequence[float],
                n_samples: int, seed: Seed, max_order: int, smooth_method: str,
                smooth_value: float | None, effective_order: bool) -> list[PairedResult]:
    """``--paired-bs`` (``kind`` ``"bs"``) or ``--paired-ar`` (``"ar"``): the baseline
    (``systems[0]``) and every other system against it.

    Args:
        systems: each system's :func:`sacrebleu_rows`, the baseline first.
        actual: each system's corpus BLEU (0-100) from its summed statistics.
        n_samples: resamples or trials, already defaulted (:data:`DEFAULT_SAMPLES`).
        seed: ``SACREBLEU_SEED``; each system's test seeds a new generator with it
            (sacreBLEU passes 0 as None: entropy from the system).

    Returns:
        one :class:`PairedResult` per system, in order.
    """
    import numpy as np

    score = _row_scorer(max_order, smooth_method, smooth_value, effective_order)
    baseline_rows = systems[0]
    results = [PairedResult(actual[0])]
    if kind == "bs":  # the baseline's own interval, from a generator seeded as -ci's
        rng = _generator(seed.value)
        idxs = rng.choice(len(baseline_rows), size=(n_samples, len(baseline_rows)), replace=True)
        matrix = np.array(baseline_rows, dtype="float32")
        results[0].mean, results[0].ci = _numpy_ci(
            np.array(_resampled_scores(matrix, idxs, score)))
    per_test_seed = seed.value if seed.value else None
    for rows, own in zip(systems[1:], actual[1:]):
        difference = abs(actual[0] - own)
        rng = _generator(per_test_seed)
        if kind == "bs":
            idxs = rng.choice(len(rows), size=(n_samples, len(rows)), replace=True)
            base = np.array(baseline_rows, dtype="float32")
            mine = np.array(rows, dtype="float32")
            scores_base = np.array(_resampled_scores(base, idxs, score))
            scores_mine = np.array(_resampled_scores(mine, idxs, score))
            mean, ci = _numpy_ci(scores_mine)
            gaps = np.abs(scores_mine - scores_base)
            results.append(PairedResult(own, _p_value(gaps - gaps.mean(), difference), mean, ci))
        else:
            keep = rng.integers(2, size=(n_samples, len(rows)), dtype=bool)
            base = np.asarray(baseline_rows)
            mine = np.asarray(rows)
            scores_a: list[float] = []
            scores_b: list[float] = []
            # the swaps' statistics are integer matrix products (exact), taken a slice of
            # trials at a time so that no (trials x segments) int64 matrix is held whole
            for start in range(0, n_samples, 512):
                pos = keep[start:start + 512]
                neg = ~pos
                for row in pos @ base + neg @ mine:
                    scores_a.append(score(row))
                for row in neg @ base + pos @ mine:
                    scores_b.append(score(row))
            results.append(PairedResult(
                own, _p_value(np.abs(np.array(scores_a) - np.array(scores_b)), difference)))
    return results


def _paint(text: str, color: str, on: bool) -> str:
    codes = {"cyan": 36, "yellow": 33, "red": 31, "green": 32}
    return f"\x1b[{codes[color]}m{text}\x1b[0m" if on else text


def paired_table(names: Sequence[str], results: Sequence[PairedResult], signature: str, *,
                 kind: str, n_given: int, width: int, fmt: str, color: bool) -> str:
    """What ``sacrebleu --paired-bs/--paired-ar`` prints (without the final newline).

    ``fmt`` json (a list of ``{"system", "BLEU": {score, p_value, mean, ci}}``), text
    (a ``fancy_grid`` table, the p-value under the score, then the explanation) or
    latex (``latex_booktabs``, the p-value beside it); ``n_given``: the count as typed
    (sacreBLEU's heading repeats it, even where a count of 0 ran the default);
    ``color``: sacreBLEU's terminal colours (a terminal, no -nc, no NO_COLOR).
    """
    if fmt == "json":
        import json

        return json.dumps([{"system": n, "BLEU": {"score": r.score, "p_value": r.p_value,
                                                 "mean": r.mean, "ci": r.ci}}
                           for n, r in zip(names, results)], indent=4)
    from tabulate import tabulate

    tablefmt = "fancy_grid" if fmt == "text" else "latex_booktabs"
    newline = "\n" if tablefmt == "fancy_grid" else " "
    cells = []
    bootstrap = False
    for r in results:
        cell = f"{r.score:.{width}f}"
        if r.mean is not None:
            bootstrap = True
            cell += f" ({r.mean:.{width}f} ± {r.ci:.{width}f})"
        if r.p_value is not None:
            p = f"(p = {r.p_value:.4f})"
            cell += newline + (_paint(p, "red", color) if r.p_value > 0.05 else p + "*")
        cells.append(cell)
    columns = {"System": list(names), "BLEU (μ ± 95% CI)" if bootstrap else "BLEU": cells}
    baseline = names[0] if names[0].startswith("Baseline:") else ""
    table: dict[str, list[str]] = {}
    for title, values in columns.items():
        if baseline:
            values[0] = _paint(values[0], "yellow", color)
        table[_paint(title, "cyan", color)] = values
    text = tabulate(table, headers="keys", tablefmt=tablefmt, colalign=("right",),
                    stralign="center", numalign="center", floatfmt=f".{width}f")
    test = "bootstrap resampling" if kind == "bs" else "approximate randomization"
    unit = "resampling trials" if kind == "bs" else "trials"
    heading = f"Paired {test} test with {n_given} {unit}"
    base = _paint("baseline", "yellow", color)
    null = _paint("Null hypothesis", "green", color)
    lines = [
        text, "", "-" * len(heading), heading, "-" * len(heading),
        f" - Each system is pairwise compared to {_paint(baseline, 'yellow', color)}.",
        "   Actual system score / bootstrap estimated true mean / 95% CI are provided for each "
        "metric." if kind == "bs" else "   Actual system score is provided for each metric.",
        "",
        f" - {null}: the system and the {base} translations are essentially",
        f"   generated by the same underlying process. For a given system and the {base},",
        "   the p-value is roughly the probability of the absolute score difference (delta)",
        f"   or higher occurring due to chance, under the assumption that the {null.lower()} "
        "is correct.",
        "",
        f" - Assuming a significance threshold of 0.05, the {null.lower()} can be rejected",
        '   for p-values < 0.05 (marked with "*"). This means that the delta is unlikely to be '
        "attributed",
        f'   to chance, hence the system is significantly "different" than the {base}.',
        f"   Otherwise, the p-values are {_paint('highlighted in red', 'red', color)}.",
        "",
        f' - NOTE: Significance does not tell whether a system is "better" than the {base} but '
        "rather",
        '   emphasizes the "difference" of the systems in terms of the replicability of the delta.',
        "",
        "-----------------", "Metric signatures", "-----------------",
        f" - {'BLEU':<10} {signature}",
    ]
    return "\n".join(lines)
