"""The documents' shape: a SKILL.md the agent reads in one glance, a short README, a table of
contents in every reference (tests/doc_toc.py), and links that lead somewhere."""

from __future__ import annotations

import re

import pytest
from doc_toc import BUNDLE, contents, every_anchor, held, references

# A token of English prose is about four characters or three quarters of a word; the larger
# of the two estimates is held to the limit.
SKILL_MAX_LINES = 150
SKILL_MAX_TOKENS = 2500
README_MAX_BYTES = 15_000
LINK = re.compile(r"\]\(((?:\.\./|references/)?[\w.-]+\.md)(?:#([\w-]+))?\)")


def estimated_tokens(text: str) -> int:
    return max(len(text) // 4, round(len(text.split()) * 4 / 3))


def front_matter(text: str) -> dict[str, str]:
    import yaml

    _, header, _ = text.split("---\n", 2)
    return yaml.safe_load(header)


def test_skill_md_is_read_in_one_glance():
    text = (BUNDLE / "SKILL.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= SKILL_MAX_LINES
    assert estimated_tokens(text) <= SKILL_MAX_TOKENS
    description = front_matter(text)["description"]
    assert 50 <= len(description.split()) <= 110, len(description.split())
    assert description.lower().startswith("use "), "the description leads with when to use it"
    for cue in ("remember", "last time", "上次", "记住", "not "):
        assert cue in description, cue


def test_readme_is_short_and_starts_with_the_two_commands():
    text = (BUNDLE / "README.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= README_MAX_BYTES
    blocks = re.findall(r"```(?:sh|console)\n(.*?)```", text, re.DOTALL)
    first_two = [block.splitlines()[0].removeprefix("$ ").strip() for block in blocks[:2]]
    assert first_two == ["scripts/demo", "scripts/test"]


@pytest.mark.parametrize("path", references(), ids=lambda path: path.name)
def test_every_reference_has_its_table_of_contents(path):
    text = path.read_text(encoding="utf-8")
    assert held(text) == contents(text), "run .venv/bin/python tests/doc_toc.py --write"
    assert len(contents(text)) >= 3


@pytest.mark.parametrize(
    "document",
    ["README.md", "SKILL.md", *(f"references/{path.name}" for path in references())],
)
def test_links_between_the_documents_lead_somewhere(document):
    source = BUNDLE / document
    text = source.read_text(encoding="utf-8")
    for target, fragment in LINK.findall(text):
        path = (source.parent / target).resolve()
        assert path.is_file(), f"{document}: no file {target}"
        if fragment:
            anchors = every_anchor(path.read_text(encoding="utf-8"))
            assert fragment in anchors, f"{document}: {target} has no section #{fragment}"
