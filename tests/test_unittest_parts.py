"""How unittest took a replay error that left a test: as its error, or as the failure a
test marked ``@unittest.expectedFailure`` expects, which passes it."""

from __future__ import annotations

import unittest

import pytest

from replaygate.errors import FixtureMismatchError, ReplaygateError, SecretInFixtureError
from replaygate.pytest_plugin.caught import caught_message
from replaygate.unittest_parts import unittest_took


def _left(
    test: str, made: ReplaygateError | None = None
) -> tuple[ReplaygateError, unittest.TestResult]:
    """The replay error (a miss, else ``made``) that left ``test`` of a unittest case, and
    the case's result."""
    raised: list[ReplaygateError] = []

    def miss() -> None:
        error = made or FixtureMismatchError("no fixture recorded for this request")
        raised.append(error)
        raise error

    class Case(unittest.TestCase):
        def test_error(self) -> None:
            miss()

        def test_subtest(self) -> None:
            with self.subTest("plan"):
                miss()

        @unittest.expectedFailure
        def test_expected(self) -> None:
            miss()

        def test_caught(self) -> None:
            with self.assertRaises(ReplaygateError):
                miss()

    result = unittest.TestResult()
    Case(test).run(result)
    return raised[0], result


@pytest.mark.parametrize(
    ("test", "took"),
    [
        ("test_error", "error"),
        ("test_subtest", "error"),
        ("test_expected", "expected"),
        ("test_caught", None),
    ],
)
def test_what_unittest_took_an_error_for(test: str, took: str | None) -> None:
    error, _ = _left(test)
    assert unittest_took(error) == took


def test_a_miss_an_expected_failure_passed_is_named_as_that() -> None:
    # under the plugin it failed at teardown as a miss "the code under test caught and
    # went on" from, where unittest's @expectedFailure took it for the failure it expects
    error, result = _left("test_expected")
    assert result.wasSuccessful() and len(result.expectedFailures) == 1
    assert caught_message([error], frozenset()).startswith(
        "replaygate: the test caught a replay error with `@unittest.expectedFailure`, which "
        "takes any error for the failure the test expects and passes it, so the miss did not "
        "fail it: a miss must reach the test."
    )


def test_an_error_other_than_a_miss_is_named_by_its_class() -> None:
    # a refusal of a live answer (kept as a replay error) was called a miss, and the test
    # told to catch FixtureMismatchError, which would not catch it
    refused = SecretInFixtureError("response.body.key", "Anthropic API key")
    error, _ = _left("test_expected", refused)
    said = caught_message([error], frozenset())
    assert "so the replay error did not fail it: a replay error must reach the test." in said
    assert "(pytest.raises(SecretInFixtureError), except SecretInFixtureError)" in said
    assert "miss" not in said.split("The first:")[0]
