"""The simulator's ``--behavior`` option, shared by ``sim serve`` and ``drift --simulator``.

The behaviour is checked when the option is read (a script file that does not read as
one is a usage error before anything is served or sent); the behaviours are imported
only then, so a command taking the option starts as fast as one without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from replaygate.errors import ReplaygateError

BEHAVIOR_HELP = "research-copilot, echo or script:FILE (a JSONL file of responses)."
"""What ``--behavior`` takes, as ``sim serve`` says it."""

_F = TypeVar("_F", bound=Callable[..., Any])


def _behavior(seed: int | None) -> Callable[[click.Context, click.Parameter, str], Any]:
    """The option's callback: ``value`` when it names a behaviour (the behaviour itself,
    built with ``seed``, when one is given), else a usage error saying why."""

    def check(_context: click.Context, _option: click.Parameter, value: str) -> Any:
        from replaygate.sim.behaviors import make_behavior

        try:
            built = make_behavior(value, seed=0 if seed is None else seed)
        except (ReplaygateError, ValueError) as err:
            raise click.BadParameter(str(err)) from None
        return value if seed is None else built

    return check


def behavior_option(
    help_text: str = BEHAVIOR_HELP, *, seed: int | None = None
) -> Callable[[_F], _F]:
    """The simulator's ``--behavior`` option (default research-copilot): its name, or with
    ``seed`` the behaviour built with that seed, once, as the option is read (a
    :class:`~replaygate.sim.Simulator` takes it as it is)."""
    return click.option(
        "--behavior",
        default="research-copilot",
        show_default=True,
        callback=_behavior(seed),
        help=help_text,
    )
