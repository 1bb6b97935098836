"""``replaygate docs``: the pages of ``docs/`` that messages name, installed with the package.

An error or a note says where to read more as ``docs/frameworks.md#langchain``; an
installed wheel holds no ``docs/`` folder of the repository, so the pages are installed
with it (``replaygate/docs``) and this command prints one, or the section an anchor names.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from replaygate.cli.options import CommandError
from replaygate.click_once import OnceCommand

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def docs_folder() -> Path:
    """The folder of the pages: the one installed with the package, else the source
    checkout's ``docs/`` (an editable install, a run from the repository)."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "docs"
    return installed if installed.is_dir() else package.parent.parent / "docs"


def pages(folder: Path) -> list[Path]:
    """The pages under ``folder``, by name."""
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


def slug(heading: str) -> str:
    """The anchor a heading's text gets on GitHub (``Magentic, Outlines and Marvin`` is
    ``magentic-outlines-and-marvin``), as the docs link sections."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(text: str) -> list[tuple[int, int, str]]:
    """``(line index, level, text)`` of each heading of a page, those inside a fenced
    code block (a shell comment, ``# record``) left out."""
    found: list[tuple[int, int, str]] = []
    fenced = False
    for index, line in enumerate(text.splitlines()):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading is not None:
            found.append((index, len(heading.group(1)), heading.group(2)))
    return found


def section(text: str, anchor: str) -> str | None:
    """The part of a page under the heading whose anchor is ``anchor``, to the next
    heading of its level or above; None where no heading has it."""
    lines = text.splitlines(keepends=True)
    found = headings(text)
    for number, (index, level, heading) in enumerate(found):
        if slug(heading) == anchor.lower():
            end = next((at for at, deeper, _ in found[number + 1 :] if deeper <= level), len(lines))
            return "".join(lines[index:end])
    return None


def _page_named(name: str, folder: Path) -> tuple[Path, str]:
    """The page ``name`` names (``frameworks``, ``frameworks.md``, ``docs/frameworks.md``,
    a section's ``docs/frameworks.md#langchain``) and the anchor it gives ("" for none)."""
    page, _, anchor = name.partition("#")
    page = page.strip().removeprefix("./").removeprefix("docs/").removesuffix(".md")
    path = folder / f"{page}.md"
    if not page or "/" in page or not path.is_file():
        known = ", ".join(p.stem for p in pages(folder)) or f"none (no pages at {folder})"
        raise CommandError(f"no page {name!r}: the pages are {known}")
    return path, anchor


@click.command("docs", cls=OnceCommand)
@click.argument("page", required=False)
@click.option("--path", "show_path", is_flag=True, help="Print the page's file, not its text.")
def docs_cmd(page: str | None, show_path: bool) -> None:
    """Print a page of the documentation, or the section PAGE#ANCHOR names.

    The pages the messages name (docs/frameworks.md#langchain) are installed with the
    package: `replaygate docs frameworks#langchain` prints that section, `replaygate docs`
    lists them.

    Example:

    \b
        replaygate docs frameworks#langchain
    """
    folder = docs_folder()
    if page is None:
        for path in pages(folder):
            text = path.read_text(encoding="utf-8")
            title = next((heading for _, _, heading in headings(text)), "")
            click.echo(f"{path.stem:<26}{title}")
        click.echo(f"(in {folder}; `replaygate docs PAGE` prints one)")
        return
    path, anchor = _page_named(page, folder)
    if show_path:
        click.echo(str(path))
        return
    text = path.read_text(encoding="utf-8")
    if not anchor:
        click.echo(text, nl=False)
        return
    part = section(text, anchor)
    if part is None:
        known = ", ".join(slug(heading) for _, _, heading in headings(text))
        raise CommandError(f"{path.stem}: no section {anchor!r}; its sections are {known}")
    click.echo(part, nl=False)
