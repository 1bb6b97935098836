"""The plugin's asynchronous client factories make clients whose first calls in an
``asyncio.gather`` reach the transport in the order the tasks make them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.mark.replaygate(expect_requests=False)
def test_an_async_client_of_a_factory_knows_its_platform(
    async_anthropic_client: Callable[..., Any], async_openai_client: Callable[..., Any]
) -> None:
    """An SDK client looks its platform up in a worker thread at each task's first call
    until it knows it: the identical sends of a ``gather`` then reached the transport, and
    got their recorded answers, in the order those threads ended, another at each run."""
    for client in (async_anthropic_client(), async_openai_client()):
        assert client._platform is not None
