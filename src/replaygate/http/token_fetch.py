"""A client fetching an access token: a request whose request and answer are credentials.

google-auth refreshes Vertex AI's token (``POST https://oauth2.googleapis.com/token``,
the metadata server's ``/computeMetadata/v1/instance/service-accounts/default/token``, or
an impersonated service account's ``:generateAccessToken``) and
azure-identity fetches Azure OpenAI's Entra ID token (``POST
https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token``, or the managed identity
endpoint ``/metadata/identity/oauth2/token``) before the model call; botocore (boto3's)
fetches AWS credentials from STS (``AssumeRole``, ``AssumeRoleWithWebIdentity``, ...), IAM
Identity Center (``/federation/credentials``), the instance metadata server
(``/latest/api/token``, ``/latest/meta-data/iam/security-credentials/...``) or a
container's credentials endpoint (ECS's ``169.254.170.2``, EKS Pod Identity's
``169.254.170.23``), through the send replaygate answers. Such a request is
never recorded, and so never replayed: recording refuses it before it is sent, and a replay
that meets it says how to give the client its token instead.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

GRANT_FIELDS = ("grant_type", "grantType")
"""The field of an OAuth 2.0 token request (RFC 6749 section 4, and Google STS's JSON)."""

OAUTH_GRANT = re.compile(r"authorization_code|client_credentials|refresh_token|password|urn:\S+")
"""A grant type of OAuth 2.0 (RFC 6749 section 4, or an extension's URN): a field of that
name holding anything else (a permission grant of the user's own API) is not one."""

FORM = re.compile(r"\S*")
"""A URL-encoded form: it never holds a raw space or line break, which a multipart upload
and prose that merely quotes a form always do."""

METADATA_TOKEN = re.compile(
    r"/computeMetadata/v1/instance/service-accounts/[^/]+/(?:token|identity)$"
    r"|/metadata/identity/oauth2/token$"
    r"|^/latest/api/token$|^/latest/meta-data/iam/security-credentials(?:/[^/]*)?$"
)
"""The token paths of Google's, Azure's and AWS's metadata servers (AWS's session token and
an instance role's credentials)."""

AWS_CREDENTIALS = re.compile(
    r"(?:^|&)Action=(AssumeRole(?:WithWebIdentity|WithSAML)?|AssumeRoot|GetSessionToken"
    r"|GetFederationToken)(?:&|$)"
)
"""The actions of AWS STS (a form body) that answer credentials: botocore's role, web
identity (a CI's OIDC token) and session credentials."""

SSO_CREDENTIALS = re.compile(r"^/federation/credentials$")
"""IAM Identity Center's path of a role's credentials (botocore's SSO profiles)."""

IMPERSONATION_TOKEN = re.compile(r"/serviceAccounts/[^/]+:generate(?:Access|Id)Token$")
"""The IAM Credentials API's token paths (``iamcredentials.googleapis.com``), where
google-auth's impersonated credentials fetch a service account's token."""

GIVE_TOKEN = (
    "A replay needs no real token, since auth headers are not matched: give the "
    'client one in tests (`AnthropicVertex(access_token="test", ...)`, '
    "`genai.Client(vertexai=True, "
    'credentials=google.oauth2.credentials.Credentials("test"), ...)`, '
    '`AzureOpenAI(azure_ad_token_provider=lambda: "test", ...)`, boto3\'s keys: '
    "AWS_ACCESS_KEY_ID=test and AWS_SECRET_ACCESS_KEY=test in the environment). To record "
    "from the live API, fetch the token before the recording block (google-auth: "
    "`credentials.refresh(google.auth.transport.requests.Request())`; boto3: "
    "`boto3.Session().get_credentials().get_frozen_credentials()`) and give it to the "
    "client the same way."
)
"""How to give a client its token, so that it fetches none."""

TOKEN_FETCH = (
    "The client is fetching an access token (google-auth for Vertex AI, azure-identity for "
    "Azure OpenAI's Entra ID, botocore for boto3's AWS credentials): its request and its "
    "answer are credentials, so it is never "
    f"recorded. {GIVE_TOKEN}"
)
"""What a refused or missed token fetch says to do."""

METADATA_HOSTS = frozenset(
    {
        "169.254.169.254",
        "metadata.google.internal",
        "metadata",
        "fd00:ec2::254",
        "169.254.170.2",
        "169.254.170.23",
        "fd00:ec2::23",
    }
)
"""The hosts of the cloud metadata servers (Google's by its names and address, Azure's
instance metadata service and AWS's at that address too, AWS's at its IPv6 address) and
of AWS's container credentials endpoints (ECS's, EKS Pod Identity's)."""

METADATA_SERVER = (
    "This request is to a cloud metadata server: the client is looking for its credentials "
    "there (google-auth, given no credentials, probes it and reads the service account "
    "before fetching Vertex AI's token; azure-identity's managed identity; botocore, given "
    "no AWS keys, asks the instance's role or the container's), which is never "
    f"recorded. {GIVE_TOKEN}"
)
"""What a missed request to a metadata server says to do."""


def metadata_server(host: str | None) -> bool:
    """Whether ``host`` is a cloud metadata server's, where a client looks for credentials."""
    return host is not None and host.lower().rstrip(".") in METADATA_HOSTS


def _grant_type(envelope: dict[str, Any]) -> str | None:
    """The grant type a token request's body names (a form, or a JSON object), or None."""
    body = envelope.get("body")
    text = envelope.get("text")
    if isinstance(body, dict):
        fields = body
    elif isinstance(text, str) and "grant" in text and FORM.fullmatch(text):
        fields = dict(parse_qsl(text, keep_blank_values=True))
    else:
        return None
    found = next((fields[name] for name in GRANT_FIELDS if name in fields), None)
    return found if isinstance(found, str) and OAUTH_GRANT.fullmatch(found) else None


def token_fetch(envelope: dict[str, Any]) -> str | None:
    """What ``envelope`` is, when it fetches an access token (an OAuth token request, or a
    metadata server's token path); None for any other request."""
    path = str(envelope.get("path", "")).split("?", 1)[0]
    if METADATA_TOKEN.search(path):
        return "an access token request to a metadata server"
    if IMPERSONATION_TOKEN.search(path):
        return "an access token request for an impersonated service account"
    if SSO_CREDENTIALS.search(path):
        return "an AWS credentials request to IAM Identity Center"
    text = envelope.get("text")
    action = AWS_CREDENTIALS.search(text) if isinstance(text, str) else None
    if action is not None:
        return f"an AWS credentials request to STS (Action={action.group(1)})"
    grant = _grant_type(envelope)
    if grant is None:
        return None
    return f"an access token request (OAuth grant_type={grant})"
