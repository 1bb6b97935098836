"""The fixture review as text (a terminal) or Markdown (a pull-request comment)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from replaygate.errors import first_few, shown_file
from replaygate.evals.table import html_text, markdown_table
from replaygate.fixtures.diff import FieldDifference
from replaygate.fixtures.store.folder import OTHER_FILES_NOTE
from replaygate.hygiene.review import (
    KeyMismatch,
    Paired,
    RecordedTwice,
    Renamed,
    ResponseChanged,
    Review,
    SecretHeld,
)
from replaygate.hygiene.snapshot import Entry

DIFF_LINES = 12
VALUE_LIMIT = 100


def diff_lines(differences: Sequence[FieldDifference], limit: int = DIFF_LINES) -> list[str]:
    """``path: old != new`` lines (two long texts shown around their first difference), at
    most ``limit`` of them and a count of the rest."""
    lines = [d.render(VALUE_LIMIT) for d in differences[:limit]]
    if len(differences) > limit:
        lines.append(f"... and {len(differences) - limit} more difference(s)")
    return lines


def _key(entry: Entry) -> str:
    """The stored key of ``entry``, escaped when it holds a character that would garble
    its line (a NUL, a right-to-left override: a hand edit)."""
    return shown_file(entry.fixture.key)


def grouped_pairs(pairs: Sequence[Paired]) -> list[tuple[list[str], list[Paired]]]:
    """Pairs with the same request difference, together (a prompt change touches many)."""
    groups: dict[tuple[str, ...], list[Paired]] = {}
    for pair in pairs:
        groups.setdefault(tuple(diff_lines(pair.differences)), []).append(pair)
    return [(list(lines), members) for lines, members in groups.items()]


def counts(result: Review) -> str:
    """One line of counts."""
    parts = [
        f"{len(result.paired)} paired (request changed)",
        f"{len(result.added)} added",
        f"{len(result.removed)} removed",
        f"{len(result.response_alarms)} ALARM (response changed, request unchanged)",
    ]
    if result.key_alarms:
        parts.append(f"{len(result.key_alarms)} ALARM (key does not match its request)")
    if result.twice_alarms:
        parts.append(f"{len(result.twice_alarms)} ALARM (request recorded twice, other responses)")
    if result.secret_alarms:
        parts.append(f"{len(result.secret_alarms)} ALARM (secret-looking value)")
    if result.samples_added:
        parts.append(f"{len(result.samples_added)} with samples added")
    if result.meta_changed:
        parts.append(f"{len(result.meta_changed)} with meta changed")
    if result.copied:
        parts.append(f"{len(result.copied)} copied (a line repeated)")
    if result.renamed:
        parts.append(f"{len(result.renamed)} file(s) renamed")
    return ", ".join(parts)


def moves(renamed: Sequence[Renamed]) -> list[tuple[str, str, str]]:
    """``(old, new, how alike)`` of each rename to show: files that kept their names, moved
    from one folder to another, as those folders (``fixtures/a/`` -> ``fixtures/b/a/``,
    with how many files and how many were edited) when they are several; any other file
    on its own."""
    folders: dict[tuple[str, str], list[Renamed]] = {}
    for file in renamed:
        (old, old_name), (new, new_name) = posixpath.split(file.old), posixpath.split(file.new)
        key = (f"{old or '.'}/", f"{new or '.'}/") if old_name == new_name else (file.old, file.new)
        folders.setdefault(key, []).append(file)
    shown = []
    for (old, new), files in folders.items():
        edited = [file.similarity for file in files if file.similarity < 100]
        if len(files) == 1:
            alike = f"{edited[0]}% similar" if edited else "same content"
            shown.append((files[0].old, files[0].new, alike))
        else:
            alike = f"{len(edited)} edited" if edited else "same content"
            shown.append((old, new, f"{len(files)} files, {alike}"))
    return shown


def _alarm_advice(allowed_reason: str | None, alarms: Sequence[ResponseChanged]) -> list[str]:
    """What to do with the response alarms: one line for those edited by hand, one for
    those recorded again (their answer to the same request is another)."""
    if allowed_reason is not None:
        return [f"response change allowed, reason: {allowed_reason}"]
    advice = []
    if not all(alarm.recorded_again for alarm in alarms):
        advice.append(
            "the request did not change, so the response should not have: a hand edit or a "
            "silent model change. Re-record it (or revert the edit); to accept it, pass "
            '--allow-response-change --reason "..."'
        )
    if any(alarm.recorded_again for alarm in alarms):
        advice.append(
            "recorded again, the same request got another answer: the model behind the same "
            "id changed, or its answers vary. Read the answer; revert the re-recording, or, "
            'to accept it, pass --allow-response-change --reason "..."'
        )
    return advice


def _response_alarm(alarm: ResponseChanged) -> str:
    """What a response alarm says: ``response changed, request unchanged``, and whether it
    was recorded again (``meta.recorded_at`` changed) or edited by hand."""
    again = ", recorded again" if alarm.recorded_again else ""
    return f"response changed, request unchanged{again}"


KEY_ADVICE = (
    "the stored key is not the fingerprint of the stored request: the key or the request "
    "was edited by hand, and verify and replay refuse the fixture. Revert the edit or "
    "re-record it"
)


def _key_mismatch(alarm: KeyMismatch) -> str:
    return f"key {_key(alarm.new)} does not match its request (expected {alarm.expected})"


TWICE_ADVICE = (
    "the store now holds the same request twice with different responses (two branches "
    "recorded it, and a merge kept the lines of both), and verify and replay refuse the "
    "store. Keep one of them, deleting the other, or re-record it"
)


def _twice(alarm: RecordedTwice) -> str:
    return (
        f"key {_key(alarm.new)}: request recorded again, with other responses than at {alarm.old}"
    )


SECRET_ADVICE = (
    "a recording never writes a fixture holding a secret-looking value, and verify refuses one "
    "(law 4): a hand edit, or a file written around replaygate. Remove the value, or record "
    "it again with a sanitize rule (docs/sanitize.md), and revoke the secret if it is real: "
    "git's history keeps what was committed. If it is no secret, list it in known_safe of "
    "[tool.replaygate.sanitize] in pyproject.toml"
)


def _secret(alarm: SecretHeld) -> str:
    return f"key {_key(alarm.new)}: {alarm.finding.detector} at {alarm.finding.path}"


def _unchanged(result: Review) -> str:
    """No fixture changed; files may have, in how they store the same fixtures."""
    if not result.files_changed:
        return f"no fixture changed ({result.files_compared} file(s) compared)"
    moved = "fixtures moved to other files, " if result.files_removed else ""
    return (
        f"{result.files_changed} of {result.files_compared} file(s) changed, but no fixture's "
        f"request, responses or meta: only where and how they are stored ({moved}formatting, "
        "seals, line order, sample lines folded, keys that match their requests)"
    )


def files_came_and_went(result: Review) -> list[tuple[str, str]]:
    """``("removed", names)`` and ``("added", names)`` of the fixture files only one side
    holds, the files of a folder counted together (``rc/anthropic.messages@2023-06-01/
    (40 files)``), for a review in which no fixture changed."""
    shown = []
    for what, names in (("removed", result.files_removed), ("added", result.files_added)):
        if names:
            shown.append((what, first_few(_by_folder(names), 5)))
    return shown


def _by_folder(names: Sequence[str]) -> list[str]:
    """``names``, those of a folder holding several of them as that folder and a count."""
    folders: dict[str, list[str]] = {}
    for name in names:
        folders.setdefault(posixpath.dirname(name), []).append(name)
    return [
        files[0] if len(files) == 1 else f"{folder}/ ({len(files)} files)"
        for folder, files in folders.items()
    ]


def _passed_over_text(result: Review) -> list[str]:
    """The changed files passed over as replaygate's other files, one a line."""
    if not result.passed_over:
        return []
    return ["", f"{OTHER_FILES_NOTE}:", *(f"  {other}" for other in result.passed_over)]


def render_text(result: Review, allowed_reason: str | None = None) -> str:
    """The review for a terminal."""
    out = [f"fixture review of {result.path or '.'}: {result.base} -> {result.head}"]
    if result.unchanged:
        out.append(_unchanged(result))
        out.extend(f"  files {what}: {names}" for what, names in files_came_and_went(result))
        out.extend(_passed_over_text(result))
        return "\n".join(out) + "\n"
    out.append(counts(result))
    if result.renamed:
        out.append("")
        out.extend(
            f"renamed  {old} -> {new}  ({alike})" for old, new, alike in moves(result.renamed)
        )
    if result.key_alarms:
        out.append("")
        out.extend(f"ALARM  {k.new}  {_key_mismatch(k)}" for k in result.key_alarms)
        out.append(f"  {KEY_ADVICE}")
    if result.twice_alarms:
        out.append("")
        for twice in result.twice_alarms:
            out.append(f"ALARM  {twice.new}  {_twice(twice)}")
            out.extend(f"    {line}" for line in diff_lines(twice.differences))
        out.append(f"  {TWICE_ADVICE}")
    if result.secret_alarms:
        out.append("")
        out.extend(f"ALARM  {a.new}  {_secret(a)}" for a in result.secret_alarms)
        out.append(f"  {SECRET_ADVICE}")
    if result.response_alarms:
        out.append("")
        for alarm in result.response_alarms:
            out.append(f"ALARM  {alarm.new}  key {_key(alarm.new)}: {_response_alarm(alarm)}")
            out.extend(f"    {line}" for line in diff_lines(alarm.differences))
        out.extend(f"  {line}" for line in _alarm_advice(allowed_reason, result.response_alarms))
    for lines, members in grouped_pairs(result.paired):
        out.append("")
        for pair in members:
            response = "; response changed too" if pair.response_changed else ""
            where = str(pair.new) if str(pair.old) == str(pair.new) else f"{pair.old} -> {pair.new}"
            out.append(
                f"paired  {where}  key {_key(pair.old)} -> {_key(pair.new)}"
                f"  ({pair.summary}{response})"
            )
        out.append("  request difference (old != new):")
        out.extend(f"    {line}" for line in lines)
    if result.added or result.removed or result.copied:
        out.append("")
    out.extend(f"added    {e}  key {_key(e)}" for e in result.added)
    out.extend(f"removed  {e}  key {_key(e)}" for e in result.removed)
    out.extend(
        f"copy     {c.new}  key {_key(c.new)}: a copy of {c.old} (same request and responses)"
        for c in result.copied
    )
    if result.samples_added or result.meta_changed:
        out.append("")
    out.extend(
        f"samples  {s.new}  key {_key(s.new)}: {s.added} sample(s) added{_indices(s.indices)}"
        for s in result.samples_added
    )
    for meta in result.meta_changed:
        out.append(f"meta     {meta.new}  key {_key(meta.new)}")
        out.extend(f"    {line}" for line in diff_lines(meta.differences))
    out.extend(_passed_over_text(result))
    return "\n".join(out) + "\n"


def _indices(indices: Sequence[int]) -> str:
    """`` (sample 3)``: where the samples added are, the first few named."""
    if not indices:
        return ""
    word = "sample" if len(indices) == 1 else "samples"
    return f" ({word} {first_few([str(i) for i in indices], 5)})"


def _code(text: str) -> str:
    """``text`` as a Markdown code span that shows it as it is (a file named with a
    backtick was shown with a quote in its place): its fence one backtick longer than
    any run of them in it, and a space inside it where the text starts or ends with one
    (CommonMark's code spans)."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(lines: Sequence[str]) -> list[str]:
    """``lines`` as a code block whose fence is longer than any run of backticks they
    hold: a value holding a fence of its own (an answer's Markdown code block) neither
    ends the block nor shows the rest of the comment as Markdown."""
    longest = max((len(run) for line in lines for run in re.findall("`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *lines, fence]


def _reason_markdown(reason: str | None) -> str | None:
    """The reason given, as text of one Markdown paragraph: its lines joined by ``<br>``,
    ``<``, ``>`` and ``&`` as entities (a ``</details>`` or a heading of its own would
    change the comment around it)."""
    return None if reason is None else html_text(reason).replace("\n", "<br>")


def render_markdown(result: Review, allowed_reason: str | None = None) -> str:
    """The review as a pull-request comment: a table, then the request differences."""
    out = [
        "### replaygate fixture review",
        "",
        f"{_code(result.path or '.')}: {result.base} → {result.head}",
        "",
    ]
    if result.unchanged:
        unchanged = _unchanged(result)
        out.append(unchanged[:1].upper() + unchanged[1:] + ".")
        if came_and_went := files_came_and_went(result):
            out += ["", *(f"- files {what}: {html_text(n)}" for what, n in came_and_went)]
        out.extend(_passed_over_markdown(result))
        return "\n".join(out) + "\n"
    out += [counts(result), ""]
    rows: list[list[str]] = [
        [
            "**ALARM**: key does not match its request",
            _code(str(k.new)),
            _code(_key(k.new)),
            f"expected {_code(k.expected)}",
        ]
        for k in result.key_alarms
    ]
    rows += [
        [
            "**ALARM**: request recorded twice, other responses",
            _code(str(t.new)),
            _code(_key(t.new)),
            f"also at {_code(str(t.old))}",
        ]
        for t in result.twice_alarms
    ]
    rows += [
        [
            "**ALARM**: secret-looking value",
            _code(str(a.new)),
            _code(_key(a.new)),
            f"{html_text(a.finding.detector)} at {_code(a.finding.path)}",
        ]
        for a in result.secret_alarms
    ]
    for alarm in result.response_alarms:
        paths = ", ".join(_code(d.path) for d in alarm.differences[:3])
        rows.append(
            [
                f"**ALARM**: {_response_alarm(alarm)}",
                _code(str(alarm.new)),
                _code(_key(alarm.new)),
                paths,
            ]
        )
    for pair in result.paired:
        rows.append(
            [
                "paired",
                _code(str(pair.new)),
                f"{_code(_key(pair.old))} → {_code(_key(pair.new))}",
                pair.summary,
            ]
        )
    rows += [["added", _code(str(e)), _code(_key(e)), ""] for e in result.added]
    rows += [["removed", _code(str(e)), _code(_key(e)), ""] for e in result.removed]
    rows += [
        ["copy", _code(str(c.new)), _code(_key(c.new)), f"a copy of {_code(str(c.old))}"]
        for c in result.copied
    ]
    rows += [
        ["renamed", _code(new), "", f"from {_code(old)} ({alike})"]
        for old, new, alike in moves(result.renamed)
    ]
    rows += [
        ["samples added", _code(str(s.new)), _code(_key(s.new)), f"+{s.added}{_indices(s.indices)}"]
        for s in result.samples_added
    ]
    rows += [
        [
            "meta changed",
            _code(str(m.new)),
            _code(_key(m.new)),
            html_text(", ".join(d.path for d in m.differences)),
        ]
        for m in result.meta_changed
    ]
    out.append(markdown_table(["change", "fixture", "key", "what changed"], rows))
    if result.key_alarms:
        out += ["", f"**{KEY_ADVICE}.**"]
    if result.twice_alarms:
        out += ["", f"**{TWICE_ADVICE}.**"]
    if result.secret_alarms:
        out += ["", f"**{html_text(SECRET_ADVICE)}.**"]
    if result.response_alarms:
        advice = _alarm_advice(_reason_markdown(allowed_reason), result.response_alarms)
        out += [line for said in advice for line in ("", f"**{said}**")]
    if result.response_alarms or result.twice_alarms or result.paired:
        out += ["", "<details><summary>Differences by field path (old != new)</summary>", ""]
        for changed in [*result.twice_alarms, *result.response_alarms]:
            out += [
                f"ALARM {_code(str(changed.new))}:",
                "",
                *_fenced(diff_lines(changed.differences)),
                "",
            ]
        for lines, members in grouped_pairs(result.paired):
            names = ", ".join(_code(str(p.new)) for p in members)
            out += [f"Request of {names}:", "", *_fenced(lines), ""]
        out.append("</details>")
    out.extend(_passed_over_markdown(result))
    return "\n".join(out) + "\n"


def _passed_over_markdown(result: Review) -> list[str]:
    """The changed files passed over as replaygate's other files, as a list."""
    if not result.passed_over:
        return []
    items = [
        f"- {_code(other.file)} ({html_text(other.kind)}): {html_text(other.change)}"
        for other in result.passed_over
    ]
    return ["", f"{OTHER_FILES_NOTE.removeprefix('note: ').capitalize()}:", "", *items]
