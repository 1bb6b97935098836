"""A value's type named in a message with its article (``an int``, never ``a int``)."""

from __future__ import annotations

import pytest

from replaygate.evals.errors import AgentRunError
from replaygate.evals.output import checked_run
from replaygate.type_names import a_type


@pytest.mark.parametrize(
    ("value", "named"), [(1, "an int"), ("x", "a str"), (object(), "an object"), ([], "a list")]
)
def test_a_value_s_type_is_named_with_its_article(value: object, named: str) -> None:
    assert a_type(value) == named


def test_an_agent_returning_an_int_is_told_so() -> None:
    with pytest.raises(AgentRunError, match=r"the agent returned an int \(42\)"):
        checked_run(42)
