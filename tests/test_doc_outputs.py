"""What the documents show a command printing is what it prints (tests/doc_examples.py):
every ```console block of README.md, SKILL.md and references/ is run against a fresh memory
at a fixed time and its output compared with the documented text."""

from __future__ import annotations

import pytest
from doc_examples import (
    BUNDLE,
    Command,
    documents,
    examples,
    fenced_blocks,
    normalised,
    run_document,
)

DOCUMENTS = [str(path.relative_to(BUNDLE)) for path in documents()]


@pytest.mark.slow
@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_example_prints_what_its_document_shows(document):
    differences = []
    ran = 0
    for example, command, expected, printed in run_document(BUNDLE / document):
        ran += 1
        if normalised(expected) != normalised(printed):
            differences.append(
                f"{example.document}:{example.line}: $ {command.text}\n"
                "--- documented\n" + "\n".join(expected) + "\n--- printed\n" + "\n".join(printed)
            )
    assert not differences, "\n\n".join(differences)
    if any(example.not_run is None for example in examples(BUNDLE / document)):
        assert ran > 0


def test_the_documents_show_examples_with_their_output():
    shown = {document: examples(BUNDLE / document) for document in DOCUMENTS}
    assert sum(len(found) for found in shown.values()) >= 20
    for name in ("README.md", "SKILL.md"):
        assert any(example.not_run is None for example in shown[name]), name
    for found in shown.values():
        for example in found:
            assert example.commands, f"{example.document}:{example.line}: no '$ ' command"
            if example.not_run is not None:
                assert example.not_run, f"{example.document}:{example.line}: say why not run"


@pytest.mark.parametrize("document", DOCUMENTS)
def test_output_is_shown_only_in_console_blocks(document):
    """A command followed by a block of what it prints, or a "$ " prompt, outside a console
    block would be an example no test runs."""
    blocks = fenced_blocks(BUNDLE / document)
    closing = {opened: opened + len(body) + 1 for opened, _, body in blocks}
    for (opened, language, body), following in zip(blocks, blocks[1:] + [(0, "", [])]):
        if language == "console":
            continue
        where = f"{document}:{opened}"
        assert not any(line.startswith("$ ") for line in body), f"{where}: a '$ ' prompt"
        runs_the_tool = any("vm-memory-oracle" in line and "--action" in line for line in body)
        output_follows = following[0] == closing[opened] + 1 and following[1] in ("", "text")
        assert not (runs_the_tool and output_follows), f"{where}: a command and its output"


def test_normalising_leaves_only_what_runs_share():
    assert normalised(
        [
            "0.294  fact-b5b883e9-0edb-5ebb-9e4f-9d2d2e0dd948  (source import:/home/x/a.jsonl) ",
            "embedded 8 facts in 1.25 s, recall 12 ms",
            "",
        ]
    ) == ["0.294  fact-ID  (source import:PATH)", "embedded 8 facts in N s, recall N s"]
    # The bundle's path is one path wherever the clone lives, a directory with a space too.
    assert normalised([f"(source import:{BUNDLE}/assets/examples/facts.jsonl)"]) == [
        "(source import:PATH)"
    ]
    assert normalised(["healthy: 7 active facts, disk 37.8% used"]) == [
        "healthy: 7 active facts, disk N% used"
    ]
    assert normalised(["score 0.294", "2026-05-15", "98.2% per question"]) == [
        "score 0.294",
        "2026-05-15",
        "98.2% per question",
    ]


def test_a_block_is_parsed_into_commands_and_their_output(tmp_path):
    document = tmp_path / "doc.md"
    document.write_text(
        "```console\n$ echo one \\\n  two\none two\n$ true\n```\n"
        "```console\n# not run: needs OpenClaw\n$ openclaw skills info x\nshown\n```\n",
        encoding="utf-8",
    )
    import doc_examples

    original = doc_examples.BUNDLE
    doc_examples.BUNDLE = tmp_path
    try:
        first, second = examples(document)
    finally:
        doc_examples.BUNDLE = original
    assert first.commands == [Command("echo one \\\n  two", ["one two"]), Command("true", [])]
    assert first.not_run is None
    assert second.not_run == "needs OpenClaw" and second.commands[0].expected == ["shown"]
