"""Checks on the files ``score`` writes (``--segments``, ``--html``), made before anything runs."""

from __future__ import annotations

import os
from typing import Sequence

__all__ = ["output_problem"]


def output_problem(path: str, inputs: Sequence[str], other_outputs: Sequence[str]) -> str | None:
    """Why ``path`` must not be written as an output of this run, or None.

    Refused before anything runs: an empty name; ``-`` (standard output carries the
    scores; a file named ``-`` would be a surprise); an input file of this run,
    also through a link or another spelling (writing it would destroy the input
    being read); the path of the other output; a path that cannot be written
    (:func:`bleu_compat.atomic.output_problem`, the rule of every command).
    """
    if path == "":
        return "an empty file name"
    if path == "-":
        return "- (standard output) is not an output file here; give a file name"
    for other in (*inputs, *other_outputs):
        if other == "-":
            continue
        same = other == path
        if not same:
            try:
                same = os.path.samefile(path, other)
            except OSError:  # one of them does not exist (yet): not the same file
                same = False
        if same and other in inputs:
            return (f"{path} is an input file of this run ({other}): writing it would destroy "
                    "it; give another path")
        if same:
            return f"{path} is also the other output's path: give each output its own file"
    return _unwritable(path)


def _unwritable(path: str) -> str | None:
    """Why ``path`` cannot be written, or None; checked before anything runs: the rule every
    command's output files follow (:func:`bleu_compat.atomic.output_problem`: a pipe with no
    reader, a directory, a loop of symbolic links, a missing directory... are refused)."""
    from bleu_compat.atomic import output_problem

    return output_problem(path)
