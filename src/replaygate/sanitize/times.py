"""Times: response timestamps replaced by fixed values (they change on every call).

Fields named in :data:`TIME_FIELDS`, at any depth of a response: a number becomes
``0``, a string ``1970-01-01T00:00:00Z``. Date, latency and rate-limit response
headers never reach a fixture in the first place (the HTTP layer keeps only the
headers the SDKs read, :data:`replaygate.http.RESPONSE_HEADERS`).
"""

from __future__ import annotations

from typing import Any

from replaygate.sanitize.walk import map_members

TIME_FIELDS = frozenset(
    {
        *("created", "created_at", "completed_at", "started_at", "expires_at", "finished_at"),
        *("ended_at", "cancel_initiated_at", "archived_at"),  # an Anthropic Message Batch's
        *("in_progress_at", "finalizing_at", "failed_at", "expired_at"),  # an OpenAI batch's
        *("cancelling_at", "cancelled_at"),
        "createTime",
    }
)
FIXED_NUMBER = 0
FIXED_TEXT = "1970-01-01T00:00:00Z"


def _fixed(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return value
    fixed: int | str = FIXED_TEXT if isinstance(value, str) else FIXED_NUMBER
    return value if type(value) is type(fixed) and value == fixed else fixed


def fix_times(value: Any) -> Any:
    """``value`` with the fields of :data:`TIME_FIELDS` fixed (copy-on-write)."""
    return map_members(
        value, lambda key, member: _fixed(member) if key in TIME_FIELDS else fix_times(member)
    )
