"""Long strings through the sanitizer: the session's id rewrite and the OpenAI key rule.

Run: ``.venv/bin/python bench/bench_secret_long_text.py [--repeat R]`` (prints a markdown
table).

Once a response's id is mapped, every later request of the session is rewritten with the
stable ids before it is keyed (:meth:`~replaygate.sanitize.ids.IdMap.rewrite`), and an
image, a document or audio is one string of megabytes. Measured, best of R runs, side by
side in one process, as they were (kept here only to compare) and as they are:

- the rewrite of a request holding 4 MB of base64 (an image) and one holding 4 MB of
  English text, with 20 tool-use ids and a call id mapped: a lookup for each token of
  every string, against one search for the ids' common starts first;
- the OpenAI key rule over 48 KB of ``sk-`` repeated with no digit.
"""

from __future__ import annotations

import argparse
import base64
import random
import re
from typing import Any

from bench_secret_base64 import best
from replaygate.sanitize.ids import _TOKEN, IdMap
from replaygate.sanitize.secret_rules import DETECTORS
from replaygate.sanitize.walk import map_strings

SIZE = 4_000_000
OLD_OPENAI = re.compile(
    r"(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{32,}"
)
OPENAI = next(d for d in DETECTORS if d.name == "OpenAI API key")


def session() -> IdMap:
    """A session's map of 20 tool-use ids and a call id."""
    ids = IdMap()
    for n in range(20):
        ids.add(f"toolu_01{random.Random(n).getrandbits(96):024x}", f"toolu_rg_0a1b2c_{n}")
    ids.add("call_Zx9Qm3Lr7Tk2Vb8Nw4Yp6Hs1", "call_rg_0a1b2c_1")
    return ids


def old_rewrite(ids: IdMap, value: Any) -> Any:
    """The rewrite as it was: each token of every string looked up."""
    get = ids.snapshot().get
    return map_strings(
        value, lambda text: get(text) or _TOKEN.sub(lambda m: get(m.group()) or m.group(), text)
    )


def request(content: str) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": content}]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    ids = session()
    data = base64.b64encode(random.Random(1).randbytes(SIZE * 3 // 4)).decode()
    words = ("the quick brown fox jumps over the lazy dog " * (SIZE // 44 + 1))[:SIZE]
    print("| text | as it was (s) | as it is (s) | was / is |")
    print("| --- | --- | --- | --- |")
    for label, value in (("rewrite, 4 MB base64", data), ("rewrite, 4 MB text", words)):
        sent = request(value)
        assert old_rewrite(ids, sent) == ids.rewrite(sent) == sent
        before = best(lambda: old_rewrite(ids, sent), repeat)  # noqa: B023
        after = best(lambda: ids.rewrite(sent), repeat)  # noqa: B023
        print(f"| {label} | {before:.3f} | {after:.4f} | {before / after:,.0f}x |")
    run = "sk-" * 16_000
    assert OLD_OPENAI.search(run) is None and next(OPENAI.starts(run), None) is None
    before = best(lambda: OLD_OPENAI.search(run), 1)
    after = best(lambda: list(OPENAI.starts(run)), repeat)
    print(
        f"| OpenAI key rule, 48 KB of `sk-` | {before:.3f} | {after:.4f} | {before / after:,.0f}x |"
    )


if __name__ == "__main__":
    main()
