"""Filter 1 on a coding assistant's conversation: pasted code and logs, questions and tasks behind a lead-in or a
fragment, fillers and one-off status lines are no memory; the statements around them still are.

Pure: ingest.salience.assess only, no Neo4j. The texts are turns of a tester's 100-turn run with bmam as the
memory of a coding assistant (the noise it stored, and statements it rightly kept), plus a few written for this file.
"""

from __future__ import annotations

import pytest

from graph.model import PresetKind
from ingest.salience import assess

_NOISE = [
    # pasted code and logs, alone or with a question
    '```\nE   sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "localhost" '
    "(127.0.0.1), port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP "
    "connections?\n```",
    "```tsx\nexport function InvoiceList({ invoices }: Props) {\n  return <tbody>{invoices.map(inv => <InvoiceRow "
    "invoice={inv} />)}</tbody>;\n}\n```\nwhy does this warn about missing key?",
    "```\npsycopg2.errors.UndefinedColumn: column invoices.status does not exist\nLINE 1: SELECT invoices.id, "
    "invoices.status FROM invoices WHERE invoices.tenant_id = ...\n                            ^\n```",
    "```\nFAILED tests/test_dates.py::test_parse[2024-02-30] - ValueError: day is out of range for month\n```",
    "```\nAuto-merging ledgerline/reconcile.py\nCONFLICT (content): Merge conflict in ledgerline/reconcile.py\n```",
    "```yaml\n- run: pytest --cov=tidectl --cov-fail-under=85\n```\nis this enough?",
    "```python\nconn = sqlite3.connect(path)\nconn.execute('PRAGMA journal_mode=WAL')\nconn.close()",  # never closed
    "I'm getting this:\nTraceback (most recent call last):\n  File \"app/main.py\", line 12, in <module>\n"
    "    import tidectl.cli\nModuleNotFoundError: No module named 'tidectl.cli'\nany idea?",
    "$ poetry install\nerror: could not find pyproject.toml\nwhat did I miss?",
    # questions and tasks behind a lead-in or a fragment
    "最后一个问题：ledgerline 现在部署在哪里？",
    "Should tidectl's tests use a real SQLite file or :memory:?",
    "It's almost 5pm, should I ship the hotfix to prod now or wait?",
    "Write me a function that parses an ISO date string and returns a datetime, with tests.",
    "Refactor this: `msg = 'Invoice %s failed: %s' % (inv_id, err)`",
    "git cherry-pick says 'error: could not apply 3f2a1c9... fix: handle null totals'. what now?",
    # fillers and one-off status lines
    "嗯，我查一下",
    "好的，正是我需要的",
    "hmm let me check what the CI matrix says",
    "right, docker wasn't running. works now",
    "ah, it's the map. got it, thanks",
    "ha, that's actually the expected behavior, the test was wrong",
    "resolved it, pushed",
    "packaging.version, right. thanks",
]

# Right before this change too; kept here so that the new rules keep them right.
_STILL_NOISE = [
    "好",
    "谢谢，写得很好",
    "thanks, super clear",
    "great, that's all for today, thanks!",
    "cool",
    "how do I reverse a list in Python?",
]

_STATEMENTS = [
    "I'm Dana, a backend engineer at Kestrel Labs.",
    "We're on Python 3.11 everywhere, and poetry for dependency management.",
    "I prefer pytest over unittest, always.",
    "Ugh, prod went down this morning because of a bad migration.",
    "Then tag the commit as vX.Y.Z and push the tag.",
    "From now on every cache key must have a TTL, max 24 hours.",
    "我们的测试覆盖率要求是 85% 以上。",
    # a paste beside a statement: the prose counts
    "We deploy with this workflow:\n```yaml\non: push\njobs:\n  deploy: ...\n```\nit runs on every push to main",
    "Our CI runs `pytest -q --cov` on every push, and the build fails under 85%.",
    "We use `:memory:` SQLite databases in unit tests.",
    "Remember this:\n```\nexport AWS_PROFILE=kestrel-dev\n```",
    "Oh btw, we switched from poetry to uv last week for all Python repos.",
    "Right, I forgot to say: my team lead is Priya.",
    # a reaction opening a turn that is not about the session's problem
    "Ah, Paris was amazing",
    "ah, the cat is sick again",
]


@pytest.mark.parametrize("text", _NOISE)
def test_noise_is_no_memory(text: str) -> None:
    assert not assess(text, speaker="user").remember


@pytest.mark.parametrize("text", _STILL_NOISE)
def test_acknowledgements_stay_no_memory(text: str) -> None:
    assert not assess(text, speaker="user").remember


@pytest.mark.parametrize("text", _STATEMENTS)
def test_statements_stay_memories(text: str) -> None:
    assert assess(text, speaker="user").remember


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("```\nFAILED tests/test_dates.py::test_parse[2024-02-30] - ValueError: day is out of range\n```", "paste"),
        ("```yaml\n- run: pytest --cov=tidectl --cov-fail-under=85\n```\nis this enough?", "question"),
        ("Refactor this: `msg = 'Invoice %s failed: %s' % (inv_id, err)`", "request"),
        ("Write me a function that parses an ISO date string and returns a datetime, with tests.", "request"),
        ("Should tidectl's tests use a real SQLite file or :memory:?", "question"),
        ("最后一个问题：ledgerline 现在部署在哪里？", "question"),
    ],
)
def test_reason_names_what_the_turn_was(text: str, reason: str) -> None:
    assert assess(text, speaker="user").reason == reason



@pytest.mark.parametrize(("text", "preset"), [
    # a lasting decision said with the day it was taken was a temporary memory (weight 0.3, first to go)
    ("Big decision today: we're moving tidectl from Postgres to SQLite for the CLI tool.", PresetKind.DEFAULT),
    ("从今天起我们改用 uv 管理依赖。", PresetKind.DEFAULT),
    ("I decided to take the bus today because of the rain.", PresetKind.TEMPORARY),  # today only
    ("It's raining today.", PresetKind.TEMPORARY),
])
def test_a_lasting_decision_said_today_is_no_temporary_memory(text: str, preset: PresetKind) -> None:
    verdict = assess(text, speaker="user")
    assert verdict.remember and verdict.preset_kind is preset
