"""pytest-retry's retries and the flaky package's reruns of a sampled test are refused as
pytest-rerunfailures' reruns are (law 7): a ``flaky(retries=N)`` marker, ``--retries``,
``@flaky(max_runs=N)`` or ``--force-flaky`` reran a sampled test whose verdict was ``block``
until its samples passed, and the test passed on its second attempt."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from replaygate.pytest_plugin.reruns import item_retries, without_retries


@dataclass
class Plugins:
    names: tuple[str, ...]

    def hasplugin(self, name: str) -> bool:
        return name in self.names


@dataclass
class Config:
    pluginmanager: Plugins
    options: dict[str, Any] = field(default_factory=dict)
    ini: dict[str, Any] = field(default_factory=dict)

    def getoption(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)

    def getini(self, name: str) -> Any:
        return self.ini.get(name, 0)


@dataclass
class Flaky:
    """A ``flaky`` marker's arguments (pytest-retry's and pytest-rerunfailures' name)."""

    kwargs: dict[str, Any] = field(default_factory=dict)
    args: tuple[Any, ...] = ()


@dataclass
class Item:
    config: Config
    marker: Flaky | None = None
    obj: Any = None

    def get_closest_marker(self, name: str) -> Flaky | None:
        return self.marker if name == "flaky" else None


RETRY = Plugins(("pytest-retry",))
FLAKY = Plugins(("flaky",))


def decorated(max_runs: int) -> Any:
    """A test function as the flaky package's ``@flaky(max_runs=N)`` leaves it."""

    def test() -> None:
        pass

    test._flaky_max_runs = max_runs  # type: ignore[attr-defined]
    return test


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (Item(Config(RETRY), Flaky({"retries": 2})), ("pytest-retry", 2)),
        (Item(Config(RETRY), Flaky()), ("pytest-retry", 1)),
        (Item(Config(RETRY, ini={"retries": "3"}), Flaky()), ("pytest-retry", 3)),
        (Item(Config(RETRY, options={"retries": 4})), ("pytest-retry", 4)),
        (Item(Config(RETRY, ini={"retries": "2"})), ("pytest-retry", 2)),
        (Item(Config(RETRY, options={"retries": 0}, ini={"retries": "2"})), ("", 0)),
        (Item(Config(RETRY), Flaky({"retries": 2, "condition": False})), ("", 0)),
        (Item(Config(RETRY)), ("", 0)),
        (Item(Config(Plugins(())), Flaky({"retries": 2})), ("", 0)),
        (Item(Config(FLAKY), obj=decorated(3)), ("the flaky plugin", 2)),
        (Item(Config(FLAKY), Flaky({"max_runs": 4})), ("the flaky plugin", 3)),
        (Item(Config(FLAKY), Flaky()), ("the flaky plugin", 1)),
        (Item(Config(FLAKY, options={"force_flaky": True})), ("the flaky plugin", 1)),
        (
            Item(Config(FLAKY, options={"force_flaky": True, "max_runs": 5})),
            ("the flaky plugin", 4),
        ),
        (Item(Config(FLAKY), obj=decorated(1)), ("", 0)),
        (Item(Config(FLAKY)), ("", 0)),
    ],
)
def test_the_retries_pytest_retry_would_make_are_found(
    item: Item, expected: tuple[str, int]
) -> None:
    assert item_retries(item) == expected  # type: ignore[arg-type]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")  # pytest-retry's mark
def test_a_flaky_run_keeps_pytest_retry_from_retrying_the_test(
    request: pytest.FixtureRequest,
) -> None:
    # pytest-retry retries inside each run (its report hook), so a flaky run that failed was
    # retried until it passed, and --flaky-runs listed no flaky test
    without_retries(request.node)
    marker = request.node.get_closest_marker("flaky")
    assert marker is not None and marker.kwargs == {"condition": False}


def test_a_script_is_not_recorded_while_pytest_retry_or_flaky_would_run_a_test_again() -> None:
    # a retried test's requests took the script lines written for the tests after it
    from replaygate.pytest_plugin.recording_run import _runs_again

    retried = Config(RETRY, options={"retries": 2})
    assert _runs_again(retried) == (  # type: ignore[arg-type]
        "pytest-retry retries a test that fails (up to 2 time(s): --retries)"
    )
    forced = Config(FLAKY, options={"force_flaky": True})
    assert _runs_again(forced) == "the flaky plugin reruns a test that fails (--force-flaky)"  # type: ignore[arg-type]
