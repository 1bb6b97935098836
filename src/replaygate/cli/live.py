"""The model a recording command calls: the embedded loopback simulator or a real API.

Only ``--approve-live`` commands get here; the SDK is imported when one does.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import click

from replaygate.base_url import LOOPBACK_KEY, loopback_url, refused_base_url, shown_url
from replaygate.cli.interrupts import interrupts_deferred
from replaygate.cli.options import CommandError
from replaygate.errors import LiveAPIError
from replaygate.extras import require
from replaygate.fixtures.spending import SpendingCap, spending_status
from replaygate.key_names import misnamed_keys
from replaygate.models.live import (
    ANTHROPIC_CREDENTIAL_NAMES,
    ANTHROPIC_CREDENTIALS,
    AnthropicModel,
    anthropic_credential_set,
    unserved_model,
)
from replaygate.models.replay import RequestSettings
from replaygate.sanitize.secret_mask import masked_texts

_INSTEAD = "record from the loopback simulator instead with --simulator"
_API_URL = "https://api.anthropic.com"  # where the SDK sends without ANTHROPIC_BASE_URL

F = TypeVar("F", bound=Callable[..., Any])


def source_option(fn: F) -> F:
    """``--source live|sim``: what ``meta.source`` of the fixtures recorded says."""
    return click.option(
        "--source",
        type=click.Choice(["live", "sim"]),
        default=None,
        help="What meta.source says (default: sim with --simulator or for an answer of a "
        "replaygate sim serve that ANTHROPIC_BASE_URL names, else live).",
    )(fn)


def recorded_source(source: str | None, simulator: bool) -> str | None:
    """The ``meta.source`` of what a recording command writes: ``sim`` from the embedded
    simulator, else ``--source``, else None: each answer's own (``sim`` for one of a
    ``replaygate sim serve``, told by its request id, else ``live``). ``--source live``
    with ``--simulator`` is refused: the fixtures would say a real API answered them."""
    if not simulator:
        return source
    if source == "live":
        raise CommandError(
            "--source live with --simulator: what the embedded simulator answers is recorded "
            "as 'sim'; drop --source, or drop --simulator to record from ANTHROPIC_BASE_URL"
        )
    return "sim"


def spent(cap: SpendingCap | None) -> str:
    """What a capped recording spent, for the command's last line."""
    if cap is None:
        return ""
    return f" ({spending_status(cap.spent, cap.limit, cap.calls, cap.prices.currency)})"


def _api_message(err: Any) -> str:
    """What the API said in its error body (``error.message``), else the SDK's message."""
    body = getattr(err, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return masked_texts([str(message) if message else str(err.message)])[0]  # a key it echoed


def _unknown_model(err: Any, model: str) -> str:
    """What to do about the API's 404 naming ``model`` (:func:`unserved_model`); else
    nothing."""
    unserved = unserved_model(getattr(err, "status_code", None), _api_message(err), model)
    if unserved is None:
        return ""
    return f" ({unserved}; name a current one with --model or `model` in [tool.replaygate])"


def live_errors() -> tuple[type[BaseException], ...]:
    """The SDK errors :func:`live_model` words itself: an agent run lets them through."""
    anthropic = require("anthropic", "anthropic", "recording")
    return (anthropic.APIError,)


def require_credential(instead: str = _INSTEAD) -> None:
    """End the command when the environment holds no credential the ``anthropic`` SDK
    reads, with what to do (``instead``: how it records from the simulator)."""
    if not anthropic_credential_set():
        misnamed = misnamed_keys(ANTHROPIC_CREDENTIALS)
        raise LiveAPIError(
            f"recording from the live API needs {ANTHROPIC_CREDENTIAL_NAMES}"
            f"{f' ({misnamed})' if misnamed else ''}; {instead}"
        )


def _check_base_url(url: str | None, instead: str = _INSTEAD) -> None:
    """End the command when ``url``, set as ``ANTHROPIC_BASE_URL``, is no URL a request
    can be sent to (a port that is no number, no ``http://``), saying what is wrong and
    what to do, before a client is built or anything is sent."""
    refused = None if url is None else refused_base_url("ANTHROPIC_BASE_URL", url)
    if refused is not None:
        raise LiveAPIError(
            f"{refused}; nothing was sent: set it to the server's URL "
            f"(http://127.0.0.1:8765), or unset it to record from {_API_URL}, or "
            f"{instead}"
        )


def python_recording(settings: RequestSettings, mode: str = "record-missing") -> str | None:
    """How to record (in ``mode``) what an agent of ``settings`` requests, where the
    commands cannot (an interface other than ``anthropic.messages``), for an error that
    would otherwise name a command refusing it; None where they can."""
    if settings.interface == AnthropicModel.interface:
        return None
    return (
        f'from Python: a RecordingModel(..., mode="{mode}", approve_live=True), or '
        f"run_eval's RecordPlan, over the live model of interface {settings.interface!r} "
        "(replaygate.models.live.LIVE_MODELS), its client given a replaygate.sim.Simulator's "
        f"URL to record from the simulator; the commands record {AnthropicModel.interface} "
        "only"
    )


def check_recordable(settings: RequestSettings) -> None:
    """End the command when the agent's settings name an interface other than
    ``anthropic.messages``: the commands record through the ``anthropic`` SDK, which would
    refuse the other interface's request with an error of its own arguments."""
    if settings.interface != AnthropicModel.interface:
        raise CommandError(
            f"the agent declares interface {settings.interface!r} in its settings, and this "
            f"command records through the anthropic SDK ({AnthropicModel.interface} only); "
            "nothing was sent: record it from Python, a RecordingModel (or run_eval's "
            "RecordPlan) over the live model of that interface "
            "(replaygate.models.live.LIVE_MODELS), then replay and gate it here"
        )


@contextlib.contextmanager
def live_model(
    settings: RequestSettings, simulator: bool, seed: int, instead: str = _INSTEAD
) -> Iterator[AnthropicModel]:
    """An ``anthropic`` SDK model with ``settings``, for the duration of the block.

    With ``simulator``, of a simulator started here (seed ``seed``) and stopped on exit;
    otherwise of ``ANTHROPIC_BASE_URL`` (the SDK reads ``ANTHROPIC_API_KEY`` or
    ``ANTHROPIC_AUTH_TOKEN``). No key,
    an API that cannot be reached, refuses the key or answers an error status ends the
    command with :class:`~replaygate.errors.LiveAPIError`, which says what to do, ending
    with ``instead``: how the command records from the simulator.
    """
    from replaygate.sim import Simulator

    check_recordable(settings)
    anthropic = require("anthropic", "anthropic", "recording")
    # Given explicitly, as the SDK would choose it for a call of max_tokens (an hour per
    # 128,000 tokens, at least 10 minutes): left to choose, the SDK refuses a call that
    # may take over 10 minutes unless it is streamed, and a recording is not streamed.
    timeout = anthropic.Timeout(max(600.0, 3600.0 * settings.max_tokens / 128_000), connect=5.0)

    with contextlib.ExitStack() as stack:
        if simulator:
            sim = stack.enter_context(Simulator(behavior="research-copilot", seed=seed))
            click.echo(f"recording from the simulator at {sim.url} (seed {seed})", err=True)
            options: dict[str, Any] = {"base_url": sim.url, "api_key": "sim-key"}
        else:
            options = {"base_url": os.environ.get("ANTHROPIC_BASE_URL")}
            _check_base_url(options["base_url"], instead)
            if loopback_url(options["base_url"]) and not anthropic_credential_set():
                options["api_key"] = LOOPBACK_KEY  # a server of this machine's own
            else:
                require_credential(instead)
        with interrupts_deferred():  # a Ctrl-C waits until the client is whole, to be closed
            # No retries (law 7): a paid call that fails is reported, never sent again.
            client = anthropic.Anthropic(**options, timeout=timeout, max_retries=0)
            stack.enter_context(client)  # its connections closed before the simulator stops
        at = shown_url(str(client.base_url))  # a gateway's credentials masked (CI logs)
        try:
            yield AnthropicModel(
                client, model=settings.model, max_tokens=settings.max_tokens, system=settings.system
            )
        except anthropic.APIConnectionError as err:
            (why,) = masked_texts([str(err.__cause__ or err)])
            raise LiveAPIError(
                f"cannot reach the model API at {at}: {why}; check the network and "
                f"ANTHROPIC_BASE_URL, or {instead}"
            ) from None
        except anthropic.AuthenticationError as err:
            raise LiveAPIError(
                f"the model API at {at} refused the key "
                f"({err.status_code}): check {ANTHROPIC_CREDENTIAL_NAMES}, or {instead}"
            ) from None
        except anthropic.APIStatusError as err:
            raise LiveAPIError(
                f"the model API at {at} answered {err.status_code}: {_api_message(err)}"
                f"{_unknown_model(err, settings.model)}; that call was not recorded, the "
                "answers recorded before it are kept"
            ) from None
