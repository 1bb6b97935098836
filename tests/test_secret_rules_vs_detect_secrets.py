"""replaygate's secret rules measured against the plugins of ``detect-secrets``.

For every plugin of ``detect-secrets`` that recognizes a kind of credential (its
generic entropy and key-word plugins and the public-IP one aside), a sample that the
plugin flags is found by replaygate's scan too, whichever rule finds it. The families
``detect-secrets`` has no plugin for (Anthropic, OpenAI project keys, fine-grained
GitHub tokens, Google and GCP keys, Hugging Face...) are in ``test_secret_corpus.py``.
"""

from __future__ import annotations

import pytest
from detect_secrets.core.scan import scan_line
from detect_secrets.settings import default_settings

from replaygate.sanitize.secret_scan import detect_in_text

_B62 = "Zq8Xv7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9bQx7Wm2Kp9Rt4Ly6Hb8Nc3Jd5Fg1Ss0Aa9b"
_HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

SAMPLES: dict[str, str] = {
    "Artifactory Credentials": "AKCp8" + _B62[:64],
    "AWS Access Key": "AKIA" + "Q3EGRTZ5KX7NMBPL",
    "Azure Storage Account access key": "AccountKey=" + (_B62 + "+/" + _B62)[:86] + "==",
    "Basic Auth Credentials": "https://admin:" + "Pa55w0rdX9@db.example.test/",
    "Cloudant Credentials": "https://acct:" + _HEX + "@acct.cloudant.com",
    "Discord Bot Token": "MTk4NjIyNDgzNDcxOTI1MjQ4" + ".Cl2FMQ." + "ZnCjm1XVW7vRze4b7Cq4se7kKWs",
    "GitHub Token": "ghp_" + _B62[:36],
    "GitLab Token": "glpat-" + _B62[:20],
    "IBM Cloud IAM Key": 'ibm_cloud_iam_api_key = "' + _B62[:44] + '"',
    "IBM COS HMAC Credentials": 'secret_access_key = "' + _HEX[:48] + '"',
    "JSON Web Token": "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + "." + _B62[:43],
    "Mailchimp Access Key": _HEX[:32] + "-us12",
    "NPM tokens": "//registry.npmjs.org/:_authToken=" + "npm_" + _B62[:36],
    "OpenAI Token": "sk-" + _B62[:20] + "T3BlbkFJ" + _B62[20:40],
    "Private Key": "-----BEGIN RSA " + "PRIVATE KEY-----",
    "PyPI Token": "pypi-AgEIcHlwaS5vcmc" + _B62[:70],
    "SendGrid API Key": "SG." + _B62[:22] + "." + _B62[22:65],
    "Slack Token": "xoxb-" + "2048113-1024557-abcdefghijklmn",
    "SoftLayer Credentials": 'softlayer_api_key = "' + _HEX + '"',
    "Square OAuth Secret": "sq0csp-" + _B62[:43],
    "Stripe Access Key": "sk_live_" + _B62[:24],
    "Telegram Bot Token": "110201543:AA" + _B62[:33],
    "Twilio API Key": "AC" + _HEX[:32],
}
"""A sample for each plugin of ``detect-secrets``, by the type name it reports."""


def _reference(line: str) -> set[str]:
    with default_settings():
        return {secret.type for secret in scan_line(line)}


@pytest.mark.parametrize("kind", list(SAMPLES))
def test_what_a_detect_secrets_plugin_finds_replaygate_finds(kind: str) -> None:
    sample = SAMPLES[kind]
    assert kind in _reference(sample), "the sample is one the plugin finds"
    assert detect_in_text(sample) is not None
    assert detect_in_text(f"config: {sample} (end)") is not None
