"""The differential harness (SPEC.md §7): generators, truth, comparison, reports.

Modules: :mod:`.strategies` (hypothesis strategies and the shared
generators), :mod:`.generate` (the seeded generator), :mod:`.invalid`
(seeded invalid requests, one per SPEC §2 check and limit), :mod:`.truth`
(independent high-precision evaluation of the cards), :mod:`.compare`
(field-by-field comparison in ULPs), :mod:`.classify` (catalog attribution,
shrinking), :mod:`.run` (orchestration over processes), :mod:`.report`
(JSON, Markdown, JUnit XML). Layering: core → tools → adapters → harness.
"""

from __future__ import annotations
