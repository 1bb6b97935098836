"""Sanitize on record: one pipeline, configured in ``[tool.replaygate.sanitize]``.

Every record path (:class:`~replaygate.models.replay.RecordingModel`, the HTTP transports
and :func:`~replaygate.http.intercept`) runs a :class:`Sanitizer` before writing;
replay runs its request-side steps before fingerprinting. Each class of field of
seed 003's table 4.2 has its module:

- :mod:`~replaygate.sanitize.ids`: volatile ids -> stable ids, consistent between
  the response that makes a tool-use id and the request that answers it;
- :mod:`~replaygate.sanitize.times`: timestamps -> fixed values;
- :mod:`~replaygate.sanitize.usage`: usage kept, or normalized;
- :mod:`~replaygate.sanitize.pii`: personal data and user rules -> constructed values;
- :mod:`~replaygate.sanitize.trim`: response fields the code never reads dropped;
- :mod:`~replaygate.sanitize.secrets`: secrets are never rewritten: a fixture still
  holding one after the pipeline is refused, nothing written
  (:class:`~replaygate.errors.SecretInFixtureError`). The scan
  (:mod:`~replaygate.sanitize.secret_scan`) reads every string as it is and decoded
  (:mod:`~replaygate.sanitize.secret_decode`) against the token families
  (:mod:`~replaygate.sanitize.secret_rules`) and the context and entropy rules
  (:mod:`~replaygate.sanitize.secret_entropy`), after a fast first pass
  (:mod:`~replaygate.sanitize.secret_prefilter`).

Build one in Python::

    from replaygate.sanitize import RedactionRule, SanitizeConfig, Sanitizer
    sanitizer = Sanitizer(SanitizeConfig(ids=True, personal_data=("email",)))
"""

from replaygate._renamed import old_names
from replaygate.config import find_pyproject
from replaygate.sanitize.config import (
    SanitizeConfig,
    SanitizeConfigError,
    load_config,
    store_config,
)
from replaygate.sanitize.ids import VOLATILE_PREFIXES, IdMap
from replaygate.sanitize.pii import BUILTIN_CLASSES, RedactionRule
from replaygate.sanitize.pipeline import Sanitizer, resolve, sanitizer_for
from replaygate.sanitize.secrets import refuse_secrets
from replaygate.sanitize.trim import KNOWN_FIELDS, REQUIRED_FIELDS

__all__ = [
    "BUILTIN_CLASSES",
    "KNOWN_FIELDS",
    "REQUIRED_FIELDS",
    "VOLATILE_PREFIXES",
    "IdMap",
    "RedactionRule",
    "SanitizeConfig",
    "SanitizeConfigError",
    "Sanitizer",
    "find_pyproject",
    "load_config",
    "refuse_secrets",
    "resolve",
    "sanitizer_for",
    "store_config",
]

__getattr__ = old_names(__name__, {"Rule": ("RedactionRule", RedactionRule)})
