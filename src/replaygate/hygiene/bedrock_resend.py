"""Where and how drift re-sends an Amazon Bedrock call recorded over HTTP.

A Bedrock call (``/model/<id>/converse``, ``converse-stream``, ``invoke``,
``invoke-with-response-stream``, ``count-tokens``) records as ``http``, whoever sent it
(boto3, LiteLLM, ``anthropic.AnthropicBedrock``). It is re-sent as boto3 sends it: to the
region's ``bedrock-runtime`` endpoint (the one it was recorded from when its host was
kept, else ``AWS_REGION`` or ``AWS_DEFAULT_REGION``, else the AWS configuration's
region), or to ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME`` / ``AWS_ENDPOINT_URL`` as boto3 reads
them; signed with SigV4 by botocore from the credentials boto3 finds (the environment, a
profile, SSO), or with a Bedrock API key (``AWS_BEARER_TOKEN_BEDROCK``).
"""

from __future__ import annotations

import os
import re
from urllib.parse import quote

from replaygate.extras import require
from replaygate.http.envelope import BEDROCK_CALL
from replaygate.hygiene.errors import HygieneError

ENDPOINT_ENVS = ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL")
"""The variables boto3 reads a ``bedrock-runtime`` client's endpoint from, in its order."""
BEARER_ENV = "AWS_BEARER_TOKEN_BEDROCK"
"""The variable boto3 reads a Bedrock API key from (sent as a bearer token, not signed)."""
PLACEHOLDER = "replaygate-drift"
_HOST = re.compile(r"bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?::\d+)?")


def is_bedrock_call(path: str) -> bool:
    """Whether ``path`` is a Bedrock model call (:data:`~.envelope.BEDROCK_CALL`)."""
    return BEDROCK_CALL.search(path.partition("?")[0]) is not None


def sent_path(path: str) -> str:
    """``path`` as boto3 sends it: a model id's ``:`` escaped (``...-v1%3A0``)."""
    return quote(path, safe="/?=&%")


def region(host: object, configured: str | None) -> str:
    """The region a call recorded to ``host`` (None when its host was not kept) is re-sent
    to: the host's, else ``configured`` (the environment's or the AWS configuration's)."""
    match = _HOST.fullmatch(host) if isinstance(host, str) else None
    if match is not None:
        return match.group(1)
    if configured:
        return configured
    raise HygieneError(
        "no AWS region to re-send Amazon Bedrock's calls to: set AWS_REGION (or "
        "AWS_DEFAULT_REGION, or a region in the AWS configuration), or give --base-url"
    )


def configured_region() -> str | None:
    """``AWS_REGION`` (as LiteLLM and the AWS SDKs of other languages read it), else the
    region boto3 would use (``AWS_DEFAULT_REGION``, a profile's)."""
    if os.environ.get("AWS_REGION"):
        return os.environ["AWS_REGION"]
    session = require("botocore.session", "bedrock", "re-sending Amazon Bedrock fixtures")
    found = session.get_session().get_config_variable("region")
    return str(found) if found else None


def signed(
    url: str, body: bytes, headers: dict[str, str], at: str, *, placeholder: bool
) -> dict[str, str]:
    """``headers`` with the credential of a call of ``body`` to ``url`` in region ``at``: a
    SigV4 signature of the credentials boto3 finds, else (``placeholder``, a server of
    --base-url) of placeholder keys; a :class:`HygieneError` names where credentials go
    when none are found."""
    require("botocore", "bedrock", "re-sending Amazon Bedrock fixtures")
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    from botocore.session import get_session

    credentials = get_session().get_credentials()
    if credentials is None and placeholder:
        credentials = Credentials(PLACEHOLDER, PLACEHOLDER)
    if credentials is None:
        raise HygieneError(
            f"no AWS credentials: drift re-sends Amazon Bedrock's calls signed as boto3 signs "
            f"them (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, SSO), or with a "
            f"Bedrock API key ({BEARER_ENV}); or give --base-url for another server"
        )
    request = AWSRequest(method="POST", url=url, data=body, headers=headers)
    SigV4Auth(credentials, "bedrock", at).add_auth(request)
    return {str(name): str(value) for name, value in request.headers.items()}
