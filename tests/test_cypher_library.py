"""Pure tests of the statement library: only allow-listed literals are ever spliced."""

from __future__ import annotations

import re

import pytest

from graph.cypher_library import CYPHER_DIR, CypherError, runnable, statement, statements


def test_type_label_from_allow_list_only() -> None:
    # bench/scale_memories still splices its type label; memory/remember takes it as a row value instead.
    assert "CREATE (m:Memory:Factual {" in statement("bench/scale_memories", type_label="Factual")
    for bad in ("Factual SET m.x=1", "`Evil`", "Memory) DETACH DELETE (m", "", "factual", "Entity"):
        with pytest.raises(CypherError):
            statement("bench/scale_memories", type_label=bad)


def test_remember_takes_its_type_labels_as_values() -> None:
    # One statement for a batch of any types: the label is looked up in $labels (from the MemoryType enum)
    # by the stored type, never spliced text, so the statement has no placeholder left and no static label.
    text = statement("memory/remember")
    assert "{{" not in text and "SET m:$($labels[m.type])" in text
    assert not re.search(r"SET m:[A-Z]", text)


def test_dimensions_must_be_an_integer() -> None:
    assert "memory_embedding_384" in statement("memory/vector_search", dimensions=384)
    for bad in ("384}}) MATCH (n) DETACH DELETE n //", "-1", "0", "99999"):
        with pytest.raises(CypherError):
            statement("memory/vector_search", dimensions=bad)


def test_missing_placeholder_value_refused() -> None:
    with pytest.raises(CypherError):
        statement("bench/scale_memories")
    with pytest.raises(CypherError):
        statement("memory/vector_search")


def test_names_cannot_escape_the_folder() -> None:
    for bad in ("../pyproject", "memory/../../x", "/etc/passwd", "Memory/Get"):
        with pytest.raises(CypherError):
            statement(bad)


def test_includes_expand_to_the_named_statements_text() -> None:
    """recall/use runs weights/decay and recall/touch as written in their own files (no second copy)."""
    used = statement("recall/use")
    assert statement("weights/decay") in used and statement("recall/touch") in used
    assert "{{" not in used


def test_what_runs_is_the_statements_code_without_its_comments_headed_by_its_name() -> None:
    full = statement("recall/candidates", dimensions=384)
    sent = runnable("recall/candidates", dimensions=384)
    code = [line for line in full.splitlines() if line.strip() and not line.lstrip().startswith("//")]
    assert sent.splitlines() == ["// recall/candidates", *code]
    assert "memory_embedding_384" in sent and len(sent) < 0.75 * len(full)
    with pytest.raises(CypherError):
        runnable("recall/candidates", dimensions="384) DETACH DELETE n //")


def test_includes_of_unknown_or_escaping_names_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from graph import cypher_library

    texts = {"a/one": "// one\n{{> a/two}}", "a/two": "// two\n{{> a/one}}", "a/bad": "// bad\n{{> ../x}}",
             "a/missing": "// missing\n{{> a/nothing}}"}

    def fake_read(name: str) -> str:
        if name in texts:
            return texts[name]
        raise CypherError(f"no statement {name!r}")

    monkeypatch.setattr(cypher_library, "_read", fake_read)
    cypher_library._with_includes.cache_clear()
    try:
        for name in ("a/one", "a/missing", "a/bad"):
            with pytest.raises(CypherError):
                statement(name)
    finally:
        cypher_library._with_includes.cache_clear()


def test_schema_files_split_into_statements() -> None:
    parts = statements("schema/001_constraints")
    assert len(parts) >= 5 and all(p.startswith("CREATE CONSTRAINT") for p in parts)


def test_every_statement_names_its_purpose_and_uses_params() -> None:
    paths = sorted(CYPHER_DIR.rglob("*.cypher"))
    assert len(paths) >= 50, CYPHER_DIR  # the library itself, not an empty or wrong folder
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert text.lstrip().startswith("//"), f"{path} must open with a comment saying what it does"
        # No string literal built from outside: values come in as $params.
        assert not re.search(r"\+\s*\$\w+\s*\+\s*['\"]", text), path
