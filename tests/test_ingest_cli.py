"""`bmam ingest FILE` and the other ingest commands, through typer's CliRunner against the real Neo4j: bad
lines reported with their numbers while good lines go in, a non-zero exit, an idempotent re-run (the whole
user graph compared), and the deterministic classifier training."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from bmam.cli import app
from bmam.cli_support import memory_json
from bmam.container import Container
from graph.episodes import EpisodeRepository
from graph.model import Scope, Tier

runner = CliRunner()


def line(text: str, **kw: object) -> str:
    return json.dumps({"user_id": "alice", "session_id": "s1", "speaker": "user", "text": text, **kw},
                      ensure_ascii=False)


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_stored_line_whose_core_promotion_was_refused_is_a_note_not_a_bad_line(
        container: Container, tenant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Core holds one: the second "remember this" line is stored (in temp) but not promoted. That line is in the
    store, so it is a note on stderr, not a bad line, and the exit is 0 (it was 2, "1 bad lines")."""
    monkeypatch.setenv("BMAM_TIERS__CORE_CAPACITY", "1")
    file = write(tmp_path / "emphasis.jsonl", [
        line("Remember this: I'm allergic to peanuts.", at="2026-11-30T09:00:00Z"),
        line("Remember this: my blood type is O negative.", at="2026-11-30T09:01:00Z"),
    ])
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("0 bad lines, 1 notes on stored lines")
    assert "2 turns stored" in result.stdout
    [note] = result.stderr.splitlines()
    assert note.startswith("note: line 2: [CONFLICT] memory ") and "not promoted to core: core is full" in note
    tiers = sorted(m.tier.value for m in container.memories.page(tenant, "alice").items)
    assert tiers == ["core", "temp"]


def test_good_lines_go_in_and_bad_ones_are_reported(container: Container, tenant: str, tmp_path: Path) -> None:
    scope = Scope(tenant, "alice")
    file = write(tmp_path / "conversation.jsonl", [
        line("我住在成都，最喜欢吃火锅", at="2026-11-30T09:00:00Z", device_id="phone"),          # 1
        line("成都的火锅很有名！", speaker="assistant", at="2026-11-30T09:00:05+00:00"),        # 2
        '{"user_id": "alice", "session_id": "s1", "speaker": "user", "text": "oops"',            # 3 malformed
        json.dumps({"user_id": "alice", "session_id": "s1", "speaker": "user"}),                 # 4 no text
        "",                                                                                     # 5 blank
        line("x" * (32 * 1024 + 1), at="2026-11-30T09:00:30Z"),                                 # 6 too long
        line("hello", speaker="narrator", at="2026-11-30T09:00:40Z"),                           # 7 bad speaker
        line("I work at Google", at="not a time"),                                              # 8 bad time
        line("My sister lives in Berlin", at="2026-11-30T09:01:00Z"),                           # 9
    ])
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 2, result.output
    bad = [ln for ln in result.stderr.splitlines() if ln.startswith("line ")]
    assert [ln.split(":")[0] for ln in bad] == ["line 3", "line 4", "line 6", "line 7", "line 8"]
    assert "malformed JSON" in bad[0] and "missing field 'text'" in bad[1] and "32768" in bad[2]
    assert "speaker" in bad[3] and "ISO 8601" in bad[4]
    assert "3 turns stored, 0 already present" in result.stdout and "5 bad lines" in result.stdout
    episodes = EpisodeRepository(container.store, container.vector_dimensions).recent(scope, "s1", 20)
    # a line's turn index is its position among the session's lines, bad ones included
    assert [(e.turn, e.text) for e in episodes] == [
        (0, "我住在成都，最喜欢吃火锅"), (1, "成都的火锅很有名！"), (6, "My sister lives in Berlin")]
    assert episodes[0].device_id == "phone"
    texts = {m.text for m in container.memories.page(tenant, "alice").items}
    assert texts == {"我住在成都，最喜欢吃火锅", "My sister lives in Berlin"}
    # printed for people: weights to 4 places, as recall's scores (0.3, not 0.30000000000000004)
    [shown] = [json.loads(ln) for ln in runner.invoke(app, ["memories", "-u", "alice", "--tenant", tenant]).stdout
               .splitlines() if "Berlin" in ln]
    stored = next(m for m in container.memories.page(tenant, "alice").items if "Berlin" in m.text)
    noisy = replace(stored, weight=replace(stored.weight, final=0.1 + 0.2))
    assert shown["weight"] == round(stored.weight.final, 4) and memory_json(noisy)["weight"] == 0.3


def test_the_graphql_spelling_of_the_fields_is_read_too(container: Container, tenant: str, tmp_path: Path) -> None:
    """userId / sessionId / deviceId (as in the API and the README's mutation) name the same fields; one field
    given both ways with two values is a bad line, not a guess."""
    file = write(tmp_path / "camel.jsonl", [
        json.dumps({"userId": "carol", "sessionId": "s1", "speaker": "user", "text": "I live in Boston",
                    "deviceId": "phone"}),
        json.dumps({"userId": "carol", "session_id": "s1", "speaker": "user", "text": "I work at Moderna"}),
        json.dumps({"userId": "carol", "user_id": "dave", "sessionId": "s1", "speaker": "user", "text": "hi"}),
        json.dumps({"userId": "carol", "user_id": "carol", "sessionId": "s1", "speaker": "user",
                    "text": "My daughter is allergic to peanuts"}),
    ])
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 2, result.output
    bad = [ln for ln in result.stderr.splitlines() if ln.startswith("line ")]
    assert bad == ["line 3: fields 'user_id' and 'userId' differ"]
    episodes = EpisodeRepository(container.store, container.vector_dimensions).recent(Scope(tenant, "carol"), "s1", 9)
    assert [(e.turn, e.text) for e in episodes] == [
        (0, "I live in Boston"), (1, "I work at Moderna"), (2, "My daughter is allergic to peanuts")]  # line 3
    # names no one user, so it holds no place in carol's session
    assert episodes[0].device_id == "phone"
    assert EpisodeRepository(container.store, container.vector_dimensions).recent(Scope(tenant, "dave"), "s1", 9) == []


def test_running_the_same_file_again_changes_nothing(container: Container, tenant: str, tmp_path: Path) -> None:
    scope = Scope(tenant, "bob")
    lines = [
        json.dumps({"user_id": "bob", "session_id": f"s{i % 2}", "speaker": "user" if i % 3 else "assistant",
                    "text": text, "device_id": "phone" if i < 4 else "laptop"}, ensure_ascii=False)
        for i, text in enumerate(["我叫小明", "我住在成都，最喜欢吃火锅", "好的", "I love spicy food",
                                  "推荐一个火锅店?", "I love spicy food", "记住：我对花生过敏",
                                  "上次在成都吃的火锅很棒"])
    ]
    file = write(tmp_path / "bob.jsonl", lines)
    first = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert first.exit_code == 0, first.output
    assert "8 turns stored, 0 already present" in first.stdout
    episodes = EpisodeRepository(container.store, container.vector_dimensions)
    before = episodes.dump(scope)
    again = runner.invoke(app, ["ingest", str(file), "--tenant", tenant])  # with the progress bar this time
    assert again.exit_code == 0, again.output
    assert "0 turns stored, 8 already present, 0 memories created" in again.stdout
    assert episodes.dump(scope) == before


def test_react_lock_unlock_sweep_usage_and_working_memory(container: Container, tenant: str,
                                                           tmp_path: Path) -> None:
    file = write(tmp_path / "c.jsonl", [line("I play the piano every day"), line("我在腾讯工作")])
    assert runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"]).exit_code == 0
    ids = [m.id for m in container.memories.page(tenant, "alice").items]
    base = ["-u", "alice", "--tenant", tenant]
    out = runner.invoke(app, ["react", *base, ids[0], "engaged"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["memory"]["tier"] == "mid"
    assert json.loads(runner.invoke(app, ["lock", *base, ids[0]]).stdout)["tier"] == "core"
    assert json.loads(runner.invoke(app, ["unlock", *base, ids[0]]).stdout)["locked"] is False
    gone = runner.invoke(app, ["react", *base, ids[1], "DISMISSED"])
    assert json.loads(gone.stdout)["deleted"] is True
    missing = runner.invoke(app, ["react", *base, ids[1], "ENGAGED"])
    assert missing.exit_code == 1 and "NOT_FOUND" in missing.stderr
    assert runner.invoke(app, ["tiers", "sweep", *base]).exit_code == 0
    usage = runner.invoke(app, ["tiers", "usage", *base]).stdout.split()
    assert usage[:3] == [Tier.TEMP.value, "0", "/"] and usage[4:6] == [Tier.MID.value, "1"]
    wm = runner.invoke(app, ["working-memory", *base, "s1"])
    assert [json.loads(x)["turn"] for x in wm.stdout.splitlines()] == [0, 1]
    newest = runner.invoke(app, ["working-memory", *base, "s1", "-n", "1"])  # as workingMemory's n (it had none)
    assert [json.loads(x)["turn"] for x in newest.stdout.splitlines()] == [1]
    held = container.working_memory.turns_per_session  # a larger n is refused, as workingMemory refuses it
    for n, code in ((held + 1, "LIMIT_EXCEEDED"), (99999999999999, "LIMIT_EXCEEDED"), (0, "BAD_USER_INPUT")):
        refused = runner.invoke(app, ["working-memory", *base, "s1", "-n", str(n)])
        assert refused.exit_code == 2 and refused.stderr.startswith(f"error [{code}]"), refused.output


def test_train_classifier_reproduces_the_committed_weights(container: Container, tmp_path: Path) -> None:
    """Training is deterministic: two runs write the same file byte for byte, and it is the committed
    model (when that was trained for the configured embedder) up to the last digits: the embedding
    model's float sums differ in the 6th decimal between machines and library builds."""
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        result = runner.invoke(app, ["train-classifier", "--out", str(out)])
        assert result.exit_code == 0, result.output
    assert first.read_bytes() == second.read_bytes()
    model = json.loads(first.read_text())
    assert model["format"] == "bmam-type-model/1" and len(model["classes"]) == 6
    committed = json.loads(container.settings.ingest.type_model_path.read_text())
    if committed["embedder"] == container.settings.embedding.model:
        assert model["classes"] == committed["classes"]
        np.testing.assert_allclose(model["weights"], committed["weights"], atol=1e-4)
        np.testing.assert_allclose(model["bias"], committed["bias"], atol=1e-4)


UTTERANCE = json.dumps({"id": "u1", "text": "我叫小明", "lang": "zh", "type": "FACTUAL", "remember": True,
                        "triples": [["user", "name", "小明", 1]], "split": "train"}, ensure_ascii=False)


@pytest.mark.parametrize(("lines", "says"), [
    ([UTTERANCE, "", '{"id": "u2", "text": oops}'], " line 3: malformed JSON (Expecting value, column 22)"),
    ([line("I live in Chengdu")], " line 1: missing field 'id' (not a labelled utterance; see tests/data/README.md)"),
    ([UTTERANCE, UTTERANCE.replace("FACTUAL", "FOO")], " line 2: 'FOO' is not a valid MemoryType"),
    (["[1, 2]"], " line 1: a JSON object expected, not list"),
    ([UTTERANCE.replace('"train"', '"test"')], ": no rows in the train split"),
])
def test_train_classifier_names_the_bad_line_of_its_data(tmp_path: Path, lines: list[str], says: str) -> None:
    """A bad --data file is one line with the file and line number, exit 2, and no model written."""
    data = write(tmp_path / "utterances.jsonl", lines)
    out = tmp_path / "model.json"
    result = runner.invoke(app, ["train-classifier", "--data", str(data), "--out", str(out)])
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.splitlines() == [f"error [BAD_USER_INPUT]: {data}{says}"]
    assert "Traceback" not in result.output and not out.exists()


def test_train_classifier_refuses_an_out_it_cannot_write(tmp_path: Path) -> None:
    """--out in a folder that cannot be made, or a folder itself: one line, before any training."""
    (tmp_path / "a-file").write_text("x")
    out = tmp_path / "a-file" / "sub" / "model.json"
    result = runner.invoke(app, ["train-classifier", "--out", str(out)])
    assert (result.exit_code, result.stdout) == (1, ""), result.output
    assert result.stderr.splitlines() == [f"cannot write {out}: Not a directory"]
    result = runner.invoke(app, ["train-classifier", "--out", str(tmp_path)])
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.splitlines() == [f"cannot write {tmp_path}: it is a folder"]


def test_a_byte_order_mark_and_an_out_of_range_time(container: Container, tenant: str, tmp_path: Path) -> None:
    """A file saved with a BOM (Windows Notepad) reads as UTF-8 from its first line; a time that leaves the
    calendar once in UTC (0001-01-01T00:00:00+01:00) is that line's error, the other lines go in."""
    file = tmp_path / "bom.jsonl"
    file.write_bytes("\ufeff".encode() + "\n".join([
        line("My sister lives in Berlin", at="2026-11-30T09:00:00Z"),
        line("I work at Google", at="0001-01-01T00:00:00+01:00"),
        line("I play the piano every day", at="2026-11-30T09:02:00Z"),
    ]).encode() + b"\n")
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 2, result.output
    bad = [ln for ln in result.stderr.splitlines() if ln.startswith("line ")]
    assert bad == ["line 2: [BAD_USER_INPUT] at is out of range: years 1 to 9999 in UTC"]
    texts = {m.text for m in container.memories.page(tenant, "alice").items}
    assert texts == {"My sister lives in Berlin", "I play the piano every day"}


def test_a_file_mixing_lines_with_and_without_at_is_refused_whole(container: Container, tenant: str,
                                                                  tmp_path: Path) -> None:
    """A line without `at` is stamped with the time it is ingested: beside lines said at their own times, replayed
    later, it would come after all of them, fresher than it is and out of its session's order. So a file gives every
    line an `at`, or none (then every turn is stamped with one time, and the turn index orders them): a mix is
    refused before anything is written, naming the lines without (a bad line too), exit 2. A file without any `at`
    goes in, and `bmam remote ingest` refuses the mix alike, before it sends anything."""
    rows = [line("I live in Boston", at="2026-11-01T09:00:00Z"), line("I moved to Seattle"),
            line("I work at Moderna", at="2026-11-02T09:00:00Z"), line("My dog is named Rex"),
            "{broken", line("hello", speaker="narrator")]
    file = write(tmp_path / "mixed.jsonl", rows)
    said = ("error [BAD_USER_INPUT]: lines 2, 4 and 6 give no `at` while line 1 gives one: a line without `at` is "
            "stamped with the time it is ingested, after every time the file gives; give every line an `at`, or "
            "none; nothing was ingested")
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert (result.exit_code, result.stdout, result.stderr.splitlines()) == (2, "", [said]), result.output
    episodes = EpisodeRepository(container.store, container.vector_dimensions)
    assert episodes.recent(Scope(tenant, "alice"), "s1", 9) == []
    assert container.memories.page(tenant, "alice").items == []
    remote = runner.invoke(app, ["remote", "ingest", str(file), "--server", "http://127.0.0.1:9"])  # no server there
    assert (remote.exit_code, remote.stdout, remote.stderr.splitlines()) == (2, "", [said]), remote.output

    untimed = write(tmp_path / "untimed.jsonl", [line("I live in Boston"), line("I moved to Seattle")])
    result = runner.invoke(app, ["ingest", str(untimed), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 0 and "2 turns stored" in result.stdout, result.output
    first, second = episodes.recent(Scope(tenant, "alice"), "s1", 9)
    assert first.at == second.at  # one time for the file: the turns' order is their index


def test_a_bad_line_holds_its_index_against_a_later_line_giving_it(container: Container, tenant: str,
                                                                   tmp_path: Path) -> None:
    """Line 3 (a bad speaker) takes index 1 of the session, as it would fixed; line 5 gives "turn": 1. Refused
    at once as given twice (it was stored at 1, and once line 3 was fixed the file could not go in again)."""
    rows = ['{"user_id": "c1", "session_id": "s1", "speaker": "user", "text": "I love green tea"}',
            '{"user_id": "c1", "session_id": "s1", "speaker": "user", "text":',
            '{"user_id": "c1", "session_id": "s1", "speaker": "robot", "text": "x"}',
            "[1, 2]",
            '{"user_id": "c1", "session_id": "s1", "speaker": "user", "text": "My dog is named Rex", "turn": 1}']
    file = write(tmp_path / "bad.jsonl", rows)
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 2, result.output
    bad = {ln.split(":")[0]: ln for ln in result.stderr.splitlines() if ln.startswith("line ")}
    assert list(bad) == ["line 2", "line 3", "line 4", "line 5"], result.stderr
    assert "given twice" in bad["line 5"] and "line 3" in bad["line 5"]
    fixed = write(tmp_path / "fixed.jsonl", [rows[0], rows[2].replace("robot", "user")])
    again = runner.invoke(app, ["ingest", str(fixed), "--tenant", tenant, "--no-progress"])
    assert again.exit_code == 0, again.output
    episodes = EpisodeRepository(container.store, container.vector_dimensions).recent(Scope(tenant, "c1"), "s1", 20)
    assert [(e.turn, e.text) for e in episodes] == [(0, "I love green tea"), (1, "x")]


def test_a_line_taking_back_the_one_before_is_counted(container: Container, tenant: str, tmp_path: Path) -> None:
    file = write(tmp_path / "f.jsonl", [line("My ex-boyfriend Mark lives in Boston."),
                                        line("Please forget what I just said.")])
    result = runner.invoke(app, ["ingest", str(file), "--tenant", tenant, "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "1 memories created" in result.stdout and "1 memories taken back" in result.stdout, result.stdout
    assert container.memories.page(tenant, "alice").items == []
