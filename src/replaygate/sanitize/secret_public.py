"""PEM blocks of public data (a certificate, a public key), no secret.

A certificate or a public key written as PEM is base64 in lines of 64 characters, each
of which reads as a free-standing random token: a tool result holding a server's
certificate chain, or a public key a prompt asks about, was refused as holding a secret.
Such a block is taken out of the text before the free-standing check, as an SSH public
key is let through (:func:`~.secret_entropy.ssh_public_key`), when its label is one of
public data and its body is the DER its label says: an ASN.1 ``SEQUENCE`` that fills it
exactly, opening with another ``SEQUENCE`` (a certificate's ``tbsCertificate``, a public
key's algorithm, a request's or a revocation list's body), or, for a PKCS #1 ``RSA
PUBLIC KEY``, holding exactly its two integers. A private key carries a version integer
first (PKCS #1, PKCS #8, SEC 1), so its body under such a label is still read; the
``PRIVATE KEY`` label itself is a rule of its own (:mod:`.secret_rules`).
"""

from __future__ import annotations

import base64
import binascii
import re

__all__ = ["without_public_pem"]

PUBLIC_PEM = re.compile(
    r"-----BEGIN (CERTIFICATE|TRUSTED CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|"
    r"(?:NEW )?CERTIFICATE REQUEST|X509 CRL)-----"
    r"((?:[A-Za-z0-9+/=\s]|\\[rn])+)"
    r"-----END \1-----"
)
"""A PEM block of public data: its label, and its body (base64, its lines broken by line
breaks or by the ``\\n`` escapes of a string written into code or a ``.env`` file)."""
_BREAKS = re.compile(r"\s|\\[rn]")
_SEQUENCE, _INTEGER = 0x30, 0x02


def _element(der: bytes, at: int) -> tuple[int, int, int] | None:
    """``(tag, start of content, end)`` of the DER element at ``at``, or None when its
    length is not one DER writes or runs past ``der``."""
    if at + 2 > len(der):
        return None
    tag, size, start = der[at], der[at + 1], at + 2
    if size & 0x80:
        count = size & 0x7F
        if not 1 <= count <= 4 or start + count > len(der):
            return None
        size, start = int.from_bytes(der[start : start + count], "big"), start + count
    end = start + size
    return None if end > len(der) else (tag, start, end)


def public_der(label: str, der: bytes) -> bool:
    """Whether ``der`` is the DER of public data its PEM ``label`` names."""
    outer = _element(der, 0)
    if outer is None or outer[0] != _SEQUENCE or outer[2] != len(der):
        return False
    _, at, end = outer
    if label != "RSA PUBLIC KEY":
        return at < end and der[at] == _SEQUENCE
    tags = []
    while at < end and (inner := _element(der, at)) is not None:
        tags.append(inner[0])
        at = inner[2]
    return at == end and tags == [_INTEGER, _INTEGER]


def _public(match: re.Match[str]) -> bool:
    try:
        der = base64.b64decode(_BREAKS.sub("", match.group(2)), validate=True)
    except (binascii.Error, ValueError):
        return False
    return public_der(match.group(1), der)


def without_public_pem(text: str) -> str:
    """``text`` with each PEM block of public data (:data:`PUBLIC_PEM`, :func:`public_der`)
    taken out."""
    if "-----BEGIN " not in text:
        return text
    return PUBLIC_PEM.sub(lambda match: " " if _public(match) else match.group(), text)
