"""Big CSV and HTML bodies through the text rules: the escapes written back, as they were and are.

Run: ``.venv/bin/python bench/bench_sanitize_big_bodies.py [--sizes 0.25 1 2] [--repeat R]``
(sizes in MB; about three minutes at the defaults; prints a markdown table).

A tool's document echoed into a request is often JSON text: ``json.dumps`` writes every
letter beyond ASCII as a ``\\u`` escape, and some serializers also ``<``, ``>`` and ``&``
(HTML-safe JSON). The text rules (``personal_data = ["email", "phone", "card"]``, alone
and after a user rule redacting the company's domain) read such a string decoded and
write what they changed back escaped (:func:`replaygate.sanitize.encoded.unescaped`).
Best CPU of R runs, side by side in one process:

- as it was (kept here only to compare): the rules run on the decoded text, then the two
  texts walked side by side to find what changed, each change's end looked for as three
  characters of the text after it met again anywhere in the rest of the text before it
  (a search of the whole rest for each place tried: it grew with the square of the size);
- as it is: the rules record each replacement as they make it
  (:class:`replaygate.sanitize.aligned.Edited`).

Bodies: a CSV export of customers (names with accents, an address and a phone a row) and
an HTML table of the same, each JSON-escaped; the HTML one HTML-safe too. The secret scan
of the same request (``check_writable``) is timed beside them, for scale. "as it was" is
skipped (shown "-") where it would take more than a minute.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from bisect import bisect_left
from collections.abc import Callable
from itertools import accumulate

from replaygate.fixtures.fixture import Fixture
from replaygate.fixtures.store.writing import check_writable
from replaygate.sanitize.aligned import Plain
from replaygate.sanitize.encoded import _DECODED_ASCII, ESCAPE, _escape, escaped_char
from replaygate.sanitize.pii import RedactionRule, TextRules
from replaygate.sanitize.secret_allow import NOTHING_SAFE

PERSONAL = TextRules(["email", "phone", "card"])
DOMAIN = TextRules(["email", "phone", "card"], [RedactionRule(literal="corp-mail", replace="[co]")])
"""The personal data, and a user rule that redacts the company's domain first."""
NAMES = ("José García", "Zoë Müller", "Björn Øster", "李雷", "Chloé Dubois", "Tom Smith")
CITIES = ("São Paulo", "Zürich", "上海", "Paris", "Kraków")
TOO_SLOW = 60.0


def csv_text(size: int) -> str:
    rng = random.Random(1)
    rows, n, i = ["id,name,email,phone,city,note"], 0, 0
    while n < size:
        i += 1
        name = rng.choice(NAMES)
        row = (
            f"{i},{name},{name.split()[0].lower()}.{i}@corp-mail.com,"
            f'+1 415 555 {rng.randrange(1000, 9999)},{rng.choice(CITIES)},"since {2000 + i % 24}"'
        )
        rows.append(row)
        n += len(row) + 1
    return json.dumps("\n".join(rows))[1:-1]


def html_text(size: int) -> str:
    rng = random.Random(2)
    rows, n, i = ["<html><body><table>"], 0, 0
    while n < size:
        i += 1
        name = rng.choice(NAMES)
        mail = f"{name.split()[0].lower()}{i}@corp-mail.com"
        row = (
            f'<tr><td>{name}</td><td><a href="mailto:{mail}">{mail}</a></td>'
            f"<td>{rng.choice(CITIES)}</td><td>{rng.random():.3f}</td></tr>"
        )
        rows.append(row)
        n += len(row) + 1
    escaped = json.dumps("\n".join([*rows, "</table></body></html>"]))[1:-1]
    return escaped.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# -- as it was (kept here only to compare) ----------------------------------------------


def _same(a: str, i: int, b: str, j: int, most: int) -> int:
    n, step = 0, 4096
    while step:
        if n + step <= most and a[i + n : i + n + step] == b[j + n : j + n + step]:
            n += step
        else:
            step //= 2
    return n


def old_stretches(before: str, after: str) -> list[tuple[int, int, int, int, bool]]:
    n, m = len(before), len(after)
    head = _same(before, 0, after, 0, min(n, m))
    tail = _same(before[::-1], 0, after[::-1], 0, min(n, m) - head)
    last_i, last_j = n - tail, m - tail
    found = [(0, head, 0, head, True)] if head else []
    i = j = head
    while i < last_i or j < last_j:
        same = _same(before, i, after, j, min(last_i - i, last_j - j))
        if same:
            found.append((i, i + same, j, j + same, True))
            i, j = i + same, j + same
            continue
        end_i, end_j = last_i, last_j
        for at in range(j, min(last_j - 2, j + 4096)):
            met = before.find(after[at : at + 3], i, last_i)
            if met >= 0:
                end_i, end_j = met, at
                break
        found.append((i, end_i, j, end_j, False))
        i, j = end_i, end_j
    if tail:
        found.append((last_i, n, last_j, m, True))
    return found


def old_unescaped(text: str, fn: Callable[[str], str]) -> str:
    places: list[int] = []
    writings: list[str] = []
    parts: list[str] = []
    start = decoded_length = 0
    for match in ESCAPE.finditer(text):
        written = match.group(0)
        char = escaped_char(match)
        if char.isascii() and char not in _DECODED_ASCII:
            char = written
        parts.append(text[start : match.start()])
        decoded_length += match.start() - start
        if char is not written:
            places.append(decoded_length)
            writings.append(written)
        parts.append(char)
        decoded_length += len(char)
        start = match.end()
    parts.append(text[start:])
    decoded = "".join(parts)
    out = fn(decoded)
    if out == decoded:
        return text
    longer = list(accumulate((len(w) - 1 for w in writings), initial=0))

    def origin(at: int) -> int:
        return at + longer[bisect_left(places, at)]

    def first_writings(first: int, last: int) -> dict[str, str]:
        return {decoded[places[k]]: writings[k] for k in reversed(range(first, last))}

    everywhere = first_writings(0, len(places))
    ascii_only = text.isascii()
    written_back: list[str] = []
    for i1, i2, j1, j2, same in old_stretches(decoded, out):
        if same:
            written_back.append(text[origin(i1) : origin(i2)])
            continue
        here = first_writings(bisect_left(places, i1), bisect_left(places, i2))
        written_back.extend(
            here.get(c)
            or (everywhere.get(c) or _escape(c) if ascii_only and not c.isascii() else c)
            for c in out[j1:j2]
        )
    return "".join(written_back)


def old_apply(rules: TextRules, text: str) -> str:
    def run(decoded: str) -> str:
        plain = Plain(decoded)
        rules._apply(plain)
        return plain.text

    return old_unescaped(text, run)


# -- the run --------------------------------------------------------------------------


def best(run: Callable[[], object], repeat: int) -> float:
    took = []
    for _ in range(repeat):
        start = time.process_time()
        run()
        took.append(time.process_time() - start)
    return min(took)


def scan(text: str) -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": text}]}
    check_writable(Fixture.create(request, [{"content": "ok"}], None), NOTHING_SAFE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.25, 1.0, 2.0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        "| body | rules | MB | escapes | as it was (s) | as it is (s) | was / is "
        "| secret scan (s) |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    slow: set[tuple[str, str]] = set()
    bodies = (("CSV, JSON-escaped", csv_text), ("HTML, HTML-safe JSON", html_text))
    for size in args.sizes:
        for (name, make), (label, rules) in itertools.product(
            bodies, (("personal data", PERSONAL), ("domain, then personal data", DOMAIN))
        ):
            text = make(int(size * 1e6))
            new = rules.apply(text)
            after = best(lambda: rules.apply(text), args.repeat)  # noqa: B023
            before_cell, ratio = "-", "-"
            if (name, label) not in slow:
                start = time.process_time()
                old = old_apply(rules, text)
                before = time.process_time() - start
                if before > TOO_SLOW / 4:
                    slow.add((name, label))  # the next size, four times as long at least
                elif args.repeat > 1:
                    again = best(lambda: old_apply(rules, text), args.repeat - 1)  # noqa: B023
                    before = min(before, again)
                before_cell, ratio = f"{before:.3f}", f"{before / after:,.1f}x"
                if old != new:  # where it wrote an escape it left alone otherwise
                    before_cell += " (other text)"
            scanned = best(lambda: scan(text), 1)  # noqa: B023
            escapes = len(ESCAPE.findall(text))
            print(
                f"| {name} | {label} | {size:g} | {escapes:,} | {before_cell} | {after:.3f} "
                f"| {ratio} | {scanned:.3f} |"
            )


if __name__ == "__main__":
    main()
