"""The model a recording command calls: the embedded loopback simulator or a real API.

Only ``--approve-live`` commands get here; the SDK is imported when one does.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import click

from replaygate.extras import require
from replaygate.models.live import AnthropicModel
from replaygate.models.replay import RequestSettings


@contextlib.contextmanager
def live_model(settings: RequestSettings, simulator: bool, seed: int) -> Iterator[AnthropicModel]:
    """An ``anthropic`` SDK model with ``settings``, for the duration of the block.

    With ``simulator``, of a simulator started here (seed ``seed``) and stopped on exit;
    otherwise of ``ANTHROPIC_BASE_URL`` (the SDK reads ``ANTHROPIC_API_KEY``).
    """
    from replaygate.sim import Simulator

    anthropic = require("anthropic", "anthropic", "recording")

    with contextlib.ExitStack() as stack:
        if simulator:
            sim = stack.enter_context(Simulator(behavior="research-copilot", seed=seed))
            click.echo(f"recording from the simulator at {sim.url} (seed {seed})", err=True)
            client = anthropic.Anthropic(base_url=sim.url, api_key="sim-key", max_retries=0)
        else:
            client = anthropic.Anthropic(base_url=os.environ.get("ANTHROPIC_BASE_URL"))
        yield AnthropicModel(
            client, model=settings.model, max_tokens=settings.max_tokens, system=settings.system
        )
