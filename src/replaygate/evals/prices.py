"""Token prices: a table in configuration, never in code.

A price table maps model ids to the price of a million input and a million output
tokens, in one currency::

    currency = "USD"
    as_of = "2026-01-15"
    "claude-sonnet-4-6" = { input = 3.0, output = 15.0 }

replaygate ships a table (``replaygate/evals/data/prices.toml``). A project's own
table, in ``[tool.replaygate.prices]`` of ``pyproject.toml`` (or in a file named by
its ``file`` key), is laid over it: its entries override or extend the shipped ones.
A table in another currency replaces the shipped one, since prices in two currencies
never mix; a currency is an ISO 4217 code, read in upper case (``usd`` is ``USD``).
Every results file says which tables priced it. A model the table has no
price for is an error (:class:`~replaygate.evals.errors.PriceError`), never a cost
left out; a case opts out of cost with ``"cost": false``.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path
from typing import Any

from replaygate.evals.errors import PriceError
from replaygate.evals.toml_reader import TableReader, load_toml
from replaygate.jsondoc import FieldError, got
from replaygate.jsonfields import (
    each,
    known_fields,
    mapping,
    optional_text,
    present,
    text_field,
    within,
)

PER_TOKENS = 1_000_000
"""Prices are per this many tokens."""
_METADATA = ("currency", "as_of", "note", "file")
MAX_PRICE = 1_000_000.0
"""The most a million tokens may cost in a table: an infinite price (TOML's ``inf``) or
one near the largest float made every cost infinite, and the results file written with
it held ``Infinity``, which no JSON reader, replaygate's gate included, takes."""


@dataclass(frozen=True)
class Price:
    """The price of a million input tokens and of a million output tokens."""

    input: float
    output: float


@dataclass(frozen=True)
class PriceTable:
    """Prices by model id, where they came from, and as of when."""

    models: Mapping[str, Price]
    currency: str
    source: str
    as_of: str | None = None
    replaced: str | None = dataclasses.field(default=None, compare=False)
    """The currency of the shipped table this one replaced, being in another currency
    (:func:`with_shipped`): a missing price says so."""

    def cost(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        """The cost of these tokens on ``model``; None when the table has no price for it."""
        if model not in self.models:
            return None
        return self.required_cost(model, input_tokens, output_tokens)

    def require(self, model: str) -> Price:
        """The price of ``model``; :class:`PriceError` when the table has none."""
        price = self.models.get(model)
        if price is None:
            replaced = (
                f" (a table in {self.currency}, which replaces the shipped table in "
                f"{self.replaced}: prices in two currencies never mix)"
                if self.replaced
                else ""
            )
            file = self._price_file()
            raise PriceError(
                f"no price for model {model!r} in {self.source}{replaced}: add it to "
                f"{file or '[tool.replaygate.prices]'} ({json.dumps(model, ensure_ascii=False)}"
                " = { input = ..., output = ... }, per million tokens)"
                f"{'' if file else ' or pass --prices'}, or mark the cases that may run "
                'unpriced with "cost": false'
            )
        return price

    def _price_file(self) -> str | None:
        """The price file this table was read from (``--prices``, ``file`` of
        ``[tool.replaygate.prices]``, :func:`load_price_file`), where a missing price is
        added; None for the shipped table and one in ``pyproject.toml``."""
        own = self.source.removesuffix(f" over {SHIPPED_SOURCE}")
        if own == SHIPPED_SOURCE or own.endswith("[tool.replaygate.prices]"):
            return None
        return own

    def required_cost(self, model: str, input_tokens: int, output_tokens: int) -> float:
        """The cost of these tokens on ``model``; :class:`PriceError` when it has no price."""
        price = self.require(model)
        return (input_tokens * price.input + output_tokens * price.output) / PER_TOKENS

    def to_json(self) -> dict[str, Any]:
        """What a results file records about the table: where it came from, and its
        prices (the gate compares costs of one table only)."""
        return {
            "source": self.source,
            "currency": self.currency,
            "as_of": self.as_of,
            "models": {
                model: {"input": price.input, "output": price.output}
                for model, price in sorted(self.models.items())
            },
        }


KEPT_FIELDS = ("source", "currency", "as_of", "models")
"""The fields of a price table a results file or a baseline keeps (:meth:`PriceTable.to_json`)."""


def kept_prices(about: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The price table that ``about`` (a results file's ``eval``, a baseline's ``source``)
    keeps in ``prices``, as :meth:`PriceTable.to_json` writes it; None when it keeps none
    (null: a run priced at no table). The gate tells by it whether two costs were priced
    alike, so one of another shape, or with a price out of range, is a
    :class:`~replaygate.jsondoc.FieldError` naming the field, never read as no table."""
    value = about.get("prices")
    if value is None:
        return None
    with within("prices"):
        table = mapping(value)
        known_fields(table, KEPT_FIELDS)
        text_field(table, "source")
        text_field(table, "currency")
        optional_text(table, "as_of")
        each(table, "models", _kept_price, key="model id")
    return table


def kept_table(kept: Mapping[str, Any]) -> PriceTable:
    """The price table of ``kept`` (as :func:`kept_prices` returns it, checked), to price
    tokens as the run that kept it did."""
    models = {
        model: Price(float(price["input"]), float(price["output"]))
        for model, price in kept["models"].items()
    }
    return PriceTable(models, kept["currency"], kept["source"], kept.get("as_of"))


def _kept_price(_model: str, obj: Any) -> None:
    """Check a model's entry of a kept price table: ``input`` and ``output``, each the
    price of a million tokens, from 0 to :data:`MAX_PRICE`."""
    entry = mapping(obj)
    known_fields(entry, ("input", "output"))
    bound = f"the price of a million tokens, a number from 0 to {MAX_PRICE:,.0f}"
    for field in ("input", "output"):
        price = present(entry, field, bound)
        is_number = isinstance(price, int | float) and not isinstance(price, bool)
        if not (is_number and 0 <= price <= MAX_PRICE):
            raise FieldError(field, f"must be {bound}, got {got(price)}")


def read_prices(reader: TableReader, source: str) -> PriceTable:
    """A price table from a TOML table (metadata strings and one inline table per model)."""
    models: dict[str, Price] = {}
    for key, value in reader.table.items():
        if key in _METADATA:
            if key != "as_of":  # a date, read by _as_of
                reader.string(key)
            continue
        if not isinstance(value, Mapping):
            raise reader.error(
                key, "expected a model's prices as { input = ..., output = ... } per million tokens"
            )
        if key != key.strip():  # "claude-sonnet-4-5 " overrode nothing: the shipped price held
            raise reader.error(
                key,
                f"the model id {key!r} has spaces at its start or end, which no model's id "
                f"has: the price of {key.strip()!r} would not be this one; remove them",
            )
        entry = reader.sub(key)
        entry.check_known(("input", "output"))
        for field in ("input", "output"):
            if field not in value:
                raise entry.error(field, "missing: the price of a million tokens")
        models[key] = Price(
            entry.number("input", 0.0, maximum=MAX_PRICE),
            entry.number("output", 0.0, maximum=MAX_PRICE),
        )
    currency = reader.string("currency", "USD") or "USD"
    # an ISO 4217 code, in any case: "usd" is the shipped table's USD, not another currency
    return PriceTable(models, currency.upper(), source, _as_of(reader))


def _as_of(reader: TableReader) -> str | None:
    """The table's ``as_of``, a date (``2026-03-01``, quoted or a TOML date), as ISO
    text; a report and a gate note print it as the day the prices were read."""
    value = reader.table.get("as_of")
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value.isoformat()
    text = reader.string("as_of")
    if text is None:
        return None
    try:
        if not text.isascii():
            raise ValueError
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise reader.error("as_of", f"expected a date, YYYY-MM-DD, got {text!r}") from None


def load_price_file(path: Path) -> PriceTable:
    """The price table in a TOML file (its top-level table)."""
    data, text = load_toml(path)
    reader = TableReader(str(path), text, "", data)
    tool = data.get("tool")
    if isinstance(tool, Mapping) and "replaygate" in tool:
        # [tool.replaygate.prices] copied from pyproject.toml, or --prices pyproject.toml:
        # read as a model named "tool", it was refused as one with unknown keys
        raise reader.sub("tool").error(
            "replaygate",
            "a price file holds its prices at its top level (currency, as_of and one "
            '"model" = { input = ..., output = ... } line per model), not under a '
            "[tool.replaygate...] header as pyproject.toml does: delete the header (the "
            "prices of pyproject.toml's [tool.replaygate.prices] are read without --prices)",
        )
    return read_prices(reader, str(path))


def shipped_prices_path() -> Path:
    """The price table shipped with replaygate."""
    return Path(str(files("replaygate.evals").joinpath("data", "prices.toml")))


SHIPPED_SOURCE = "replaygate/evals/data/prices.toml"
"""How results name the shipped price table: by its place in the package, never by the
path of an installation (which differs from machine to machine)."""


def shipped_prices() -> PriceTable:
    """The shipped price table, read from its file (its ``source``:
    :data:`SHIPPED_SOURCE`)."""
    return replace(load_price_file(shipped_prices_path()), source=SHIPPED_SOURCE)


def with_shipped(own: PriceTable | None) -> PriceTable:
    """The shipped table with ``own``'s entries laid over it (``own`` alone in another currency).

    The result's ``source`` names both tables: ``"<own> over <shipped>"``.
    """
    shipped = shipped_prices()
    if own is None:
        return shipped
    if own.currency != shipped.currency:
        return replace(own, replaced=shipped.currency)
    return PriceTable(
        {**shipped.models, **own.models},
        own.currency,
        f"{own.source} over {shipped.source}",
        own.as_of or shipped.as_of,
    )
