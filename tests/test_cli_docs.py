"""``replaygate docs``: the pages the messages name (``docs/frameworks.md#langchain``) are
installed with the package and printed by the command, where an installed wheel held no
``docs/`` folder and every such message named a file its user did not have."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from replaygate.cli.docs_cmd import docs_folder, section
from run_cli import replaygate

ROOT = Path(__file__).resolve().parent.parent
NAMED = re.compile(r"docs/([a-z_-]+)\.md(?:#([a-z0-9_-]+))?")


def test_the_wheel_installs_the_pages_where_the_command_reads_them() -> None:
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    built = wheel["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert built["force-include"] == {"docs": "replaygate/docs"}
    assert built["packages"] == ["src/replaygate"]  # so replaygate/docs is beside cli/
    assert docs_folder() == ROOT / "docs"  # a checkout's own, with none installed


def test_every_page_and_section_a_message_names_is_there() -> None:
    folder = docs_folder()
    named = {
        (match.group(1), match.group(2) or "")
        for source in (ROOT / "src" / "replaygate").rglob("*.py")
        for match in NAMED.finditer(source.read_text(encoding="utf-8"))
    }
    assert ("frameworks", "langchain") in named
    for page, anchor in sorted(named):
        path = folder / f"{page}.md"
        assert path.is_file(), page
        assert not anchor or section(path.read_text(encoding="utf-8"), anchor), (page, anchor)


def test_the_command_prints_a_page_a_section_or_the_list() -> None:
    listed = replaygate("docs")
    assert listed.returncode == 0
    assert "frameworks                Agent frameworks\n" in listed.stdout
    part = replaygate("docs", "docs/frameworks.md#langchain")
    assert part.returncode == 0 and part.stdout.startswith("## LangChain\n")
    assert "\n## LiteLLM" not in part.stdout  # to the next heading of its level
    whole = replaygate("docs", "replay")
    assert whole.stdout == (ROOT / "docs" / "replay.md").read_text(encoding="utf-8")
    where = replaygate("docs", "replay.md", "--path")
    assert where.stdout == f"{ROOT / 'docs' / 'replay.md'}\n"
    unknown = replaygate("docs", "frameworks#nope")
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("Error: frameworks: no section 'nope'; its sections are ")
    assert replaygate("docs", "nope").stderr.startswith("Error: no page 'nope': the pages are ")
