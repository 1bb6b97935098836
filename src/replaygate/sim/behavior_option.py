"""The simulator's ``--behavior`` option, shared by ``sim serve`` and ``drift --simulator``.

The behaviour is checked when the option is read (a script file that does not read as
one is a usage error before anything is served or sent), and built then, once: a script
is read once. The behaviours are imported only then, so a command taking the option
starts as fast as one without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from replaygate.errors import ReplaygateError

if TYPE_CHECKING:
    from replaygate.sim.behaviors import Behavior

BEHAVIOR_HELP = "research-copilot, echo or script:FILE (a JSONL file of responses)."
"""What ``--behavior`` takes, as ``sim serve`` says it."""
SEEDED = "research-copilot"
"""The one behaviour that takes a seed: built by :meth:`ChosenBehavior.build`, with the
command's ``--seed``."""

_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ChosenBehavior:
    """What ``--behavior`` named, read once: its ``name`` as given and, for a behaviour
    that takes no seed (``echo``, ``script:FILE``, its file read here), the behaviour
    itself (:attr:`built`)."""

    name: str
    built: Behavior | None

    def build(self, seed: int) -> Behavior:
        """The behaviour, seeded with ``seed`` when it takes one (:data:`SEEDED`)."""
        if self.built is not None:
            return self.built
        from replaygate.sim.behaviors import make_behavior

        return make_behavior(self.name, seed=seed)


def _read(value: str, seed: int | None) -> Behavior | ChosenBehavior:
    """The behaviour ``value`` names, built with ``seed``; without one, what it names
    (:class:`ChosenBehavior`), the behaviour built unless it takes a seed."""
    from replaygate.sim.behaviors import make_behavior

    if seed is None and value == SEEDED:
        return ChosenBehavior(value, None)
    built = make_behavior(value, seed=0 if seed is None else seed)
    return built if seed is not None else ChosenBehavior(value, built)


def _behavior(seed: int | None) -> Callable[[click.Context, click.Parameter, str], Any]:
    """The option's callback: the behaviour ``value`` names, built with ``seed`` when one
    is given, else a :class:`ChosenBehavior`; a usage error saying why when it names
    none."""

    def check(_context: click.Context, _option: click.Parameter, value: str) -> Any:
        try:
            return _read(value, seed)
        except (ReplaygateError, ValueError) as err:
            raise click.BadParameter(str(err)) from None

    return check


def behavior_option(
    help_text: str = BEHAVIOR_HELP, *, seed: int | None = None
) -> Callable[[_F], _F]:
    """The simulator's ``--behavior`` option (default research-copilot), built once, as
    the option is read: with ``seed``, the behaviour built with that seed (a
    :class:`~replaygate.sim.Simulator` takes it as it is); without, a
    :class:`ChosenBehavior`, for a command whose seed is an option of its own
    (``sim serve --seed``), which builds the behaviour with it
    (:meth:`ChosenBehavior.build`)."""
    return click.option(
        "--behavior",
        default="research-copilot",
        show_default=True,
        callback=_behavior(seed),
        help=help_text,
    )
