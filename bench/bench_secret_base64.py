"""Secret scan benchmark: a fixture holding a 1 MB base64 image beside one of 1 MB of text.

Run: ``.venv/bin/python bench/bench_secret_base64.py [--repeat R]`` (prints markdown tables).

A recording and ``replaygate verify`` scan every string of a fixture for secrets; an
image sent to a vision model, a document or audio is one string of base64. Measured,
best of R runs, side by side in one process:

- ``find_fixture_secrets`` of a fixture holding 1 MB of random base64 as an Anthropic
  image block, of one holding 1 MB of English text as a message (naming a key and a URL, so
  that it is read whole), and their ratio;
- the patterns that made the first slow, as they were (kept here only to compare) and
  as they are: the credential name written in text (``KEYWORD``) over the 1 MB of
  base64 and over 8 KB of digits, and the password in a URL over 87 KB of base64 of
  zero bytes (``AAAA...``) followed by a URL, as a document holding a link would be.
"""

from __future__ import annotations

import argparse
import base64
import random
import re
import time
from collections.abc import Callable

from replaygate.sanitize.secret_entropy import _QUERY_WORDS, _VALUE, AUTH_WORDS, KEYWORD
from replaygate.sanitize.secret_rules import DETECTORS
from replaygate.sanitize.secret_scan import find_fixture_secrets

SIZE = 1_000_000
OLD_KEYWORD = re.compile(
    rf"(?i)(?:(?<=[?&;])(?:{_QUERY_WORDS})|(?<![A-Za-z])[A-Za-z0-9_.-]*?(?:{AUTH_WORDS})"
    rf"[A-Za-z0-9_.-]*?)[\"']?\s*[=:]\s*[\"']?({_VALUE}{{20,}})"
)
OLD_PASSWORD_IN_URL = re.compile(
    r"[A-Za-z][A-Za-z0-9+.\-]*://[!#-.0-9;-?A-~]+:[!#-.0-9;-?A-~]{3,}@[!#-.0-9;-?A-~]+"
)
PASSWORD_IN_URL = next(d.pattern for d in DETECTORS if d.name == "password in URL")


def fixture(content: object) -> dict[str, object]:
    """A fixture of one user message of ``content``."""
    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": content}],
    }
    response = {"content": [{"type": "text", "text": "A cat on a mat."}]}
    return {"key": "0" * 16, "request": request, "response": response, "meta": {}}


def image_fixture() -> dict[str, object]:
    """A fixture holding ``SIZE`` characters of random base64 as an image block."""
    data = base64.b64encode(random.Random(1).randbytes(SIZE * 3 // 4)).decode()
    source = {"type": "base64", "media_type": "image/png", "data": data}
    return fixture([{"type": "image", "source": source}])


def text_fixture() -> dict[str, object]:
    """A fixture holding ``SIZE`` characters of English text that the scan reads whole (a
    URL and the name of a key in it: a text without them is passed over at once)."""
    sentence = "The api_key setting is described at https://example.com/docs, and read. "
    return fixture((sentence * (SIZE // len(sentence) + 1))[:SIZE])


def best(fn: Callable[[], object], repeat: int) -> float:
    """The best wall time of ``repeat`` runs of ``fn``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    image, text = image_fixture(), text_fixture()
    assert find_fixture_secrets(image) == [] and find_fixture_secrets(text) == []
    scan_image = best(lambda: find_fixture_secrets(image), repeat)
    scan_text = best(lambda: find_fixture_secrets(text), repeat)
    print("| scan (`find_fixture_secrets`) | seconds |")
    print("| --- | --- |")
    print(f"| 1 MB base64 image | {scan_image:.3f} |")
    print(f"| 1 MB text | {scan_text:.3f} |")
    print(f"| image / text | {scan_image / scan_text:.1f}x |")
    print()
    data = image["request"]["messages"][0]["content"][0]["source"]["data"]  # type: ignore[index]
    digits = "0" * 8_000
    zeros = "A" * 87_000 + " see https://example.com/a"
    rows = [
        ("credential name in text, 1 MB base64", OLD_KEYWORD, KEYWORD, data),
        ("credential name in text, 8 KB of digits", OLD_KEYWORD, KEYWORD, digits),
        ("password in URL, 87 KB of `A` and a URL", OLD_PASSWORD_IN_URL, PASSWORD_IN_URL, zeros),
    ]
    print("| pattern, text | as it was (s) | as it is (s) | was / is |")
    print("| --- | --- | --- | --- |")
    for label, old, new, sample in rows:
        assert [m.group(0) for m in old.finditer(sample)] == [
            m.group(0) for m in new.finditer(sample)
        ]
        before = best(lambda: list(old.finditer(sample)), 1)  # noqa: B023
        after = best(lambda: list(new.finditer(sample)), repeat)  # noqa: B023
        print(f"| {label} | {before:.3f} | {after:.4f} | {before / after:,.0f}x |")


if __name__ == "__main__":
    main()
