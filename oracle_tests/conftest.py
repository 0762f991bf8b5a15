"""Shared test configuration: Hypothesis profiles and paths."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A suite started in the background by a shell without job control (`cmd &` in a script,
# nohup) inherits SIGINT ignored, and so does every command the tests start: the tests that
# press Ctrl-C would see it ignored (exit 0 where 130 is right). They test what a terminal's
# Ctrl-C does to a command started normally, so the suite takes SIGINT back (an ignored
# signal stays ignored across exec; a handled one is reset to the default).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The contract folder ``../shared``; tests that need it skip without it."""
    if not (SHARED / "SPEC.md").is_file():
        pytest.skip(f"../shared is absent ({SHARED}): the contract's data is not on this machine")
    return SHARED


# --- tests that time themselves run alone -------------------------------------------------
#
# pyproject's addopts run the suite on two pytest-xdist workers. A test marked ``serial``
# asserts a wall-clock bound (a SIGINT answered within 2 s, /healthz latency while the server
# is loaded): it runs while the other worker is idle, as it did in the single-process suite.
# Two flock(2) locks in the run's shared temporary directory: every test holds ``tests.lock``
# shared; a serial test holds it exclusively. A serial test first takes ``gate.lock`` and keeps
# it until it ends, and every other test passes through ``gate.lock`` before taking its shared
# lock, so a waiting serial test is not starved by the other worker's next tests.


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "serial: asserts a wall-clock bound; under xdist it runs while no other test runs")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    import fcntl

    folder = item.config._tmp_path_factory.getbasetemp().parent  # type: ignore[attr-defined]
    serial = item.get_closest_marker("serial") is not None
    with open(folder / "gate.lock", "a") as gate, open(folder / "tests.lock", "a") as tests:
        fcntl.flock(gate, fcntl.LOCK_EX)
        if serial:
            fcntl.flock(tests, fcntl.LOCK_EX)
        else:
            fcntl.flock(tests, fcntl.LOCK_SH)
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(tests, fcntl.LOCK_UN)
            fcntl.flock(gate, fcntl.LOCK_UN)


@pytest.fixture()
def allow_unknown_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both opt-ins to unknown foreign code (bleu_compat.foreign), for tests that run a planted
    Perl script or HF module in this process: the option's flag and the environment variable."""
    from bleu_compat import foreign

    monkeypatch.setattr(foreign, "_option", True)
    monkeypatch.setenv(foreign.ENV, "1")
