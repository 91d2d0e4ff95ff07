"""A tenant's knowledge back in whole (real Neo4j): a file of `bmam export --all-users` imported with `bmam import
--all-users`, POST /import.{ext}, `bmam remote import --all-users` and the mutation importRdfAllUsers restores each of
its users into the user of the same id, each as the one-user import does (memories, triples, associations: export ->
import -> export is the same graph); a file refused for one user imports nothing for any; a second import changes
nothing; the upload answers the mutation's JSON, to the field and type."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests
from rdflib import namespace as ns
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import BmamClient, BmamClientError, ClientConfig
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.errors import BadInput, Conflict
from graph.rdf import parse_rdf, read_exports
from graph.rdf_terms import BMAM, user_iri
from graph.rdf_writers import RdfFormat
from ingest.turns import TurnInput
from tests.knowledge_fixture import TURNS, load
from tests.ops_support import store_rows
from tests.test_import_api import REPORT_FIELDS
from tests.test_rdf import assert_isomorphic, export, mapped

runner = CliRunner()
USERS = ("alice", "碧")  # in the file's (user id) order
ALL_USERS = ("mutation($d: String!, $f: RdfFormat!, $dry: Boolean!) { importRdfAllUsers(data: $d, format: $f, "
             f"dryRun: $dry) {{ users {{ {REPORT_FIELDS} }} ignored }} }}")


def _fresh() -> str:
    return f"test-all-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="module")
def source(container: Container) -> str:
    """A tenant of two users, each with the knowledge fixture's conversation (memories, a core one, triples, one
    negated, associations, a conflict held for review, a superseded memory)."""
    tenant = _fresh()
    for user in USERS:
        load(container, tenant, user)
    return tenant


@pytest.fixture(scope="module")
def tenant_file(container: Container, source: str) -> bytes:
    """The source tenant as `bmam export --all-users -f nt` writes it."""
    return b"".join(container.export.export_rdf(source, None, "nt"))


def _held_nothing(container: Container, tenant: str, user: str) -> bool:
    """No node of the user at all in the tenant, not even the user's own."""
    return store_rows(container, "MATCH (n) WHERE n.tenant = $t AND n.user_id = $u RETURN count(n) AS n",
                      t=tenant, u=user) == [{"n": 0}]


def _assert_restored(container: Container, source: str, target: str) -> None:
    """Each user of the target tenant exports as the user of the same id in the source (the user part of the IRIs
    mapped): the same memories, triples (reified, and asserted when believed), associations, conflicts, turns."""
    for user in USERS:
        before = parse_rdf(export(container, source, user, "nt"), RdfFormat.NTRIPLES)
        after = parse_rdf(export(container, target, user, "nt"), RdfFormat.NTRIPLES)
        assert_isomorphic(mapped(before, user_iri(source, user), user_iri(target, user)), after)
        # (isomorphic above: the same associations; the fixture forms some, by episode, entity and name)
        assert len(list(after.triples((None, BMAM.ASSOCIATED, None)))) \
            == len(list(before.triples((None, BMAM.ASSOCIATED, None)))) >= 2
        assert len(list(after.subjects(ns.RDF.type, ns.RDF.Statement))) > 4
        page = container.memories.page(target, user, first=100, include_history=True)
        assert {"我不吃辣。", "记住：我对花生过敏 (peanut allergy)"} <= {m.text for m in page.items}


def _snapshot(container: Container, tenant: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every node of the tenant with its labels and properties (the embedding aside), and every relationship
    leaving one, with its properties: what a second import must leave exactly as it was."""
    knowledge = "(n:Memory OR n:Entity OR n:Session OR n:Episode OR n:Conflict OR n:User)"  # no key, no event
    nodes = store_rows(container, f"MATCH (n) WHERE n.tenant = $t AND {knowledge} RETURN labels(n) AS labels, "
                                  "n {.*, embedding: null} AS props ORDER BY coalesce(n.id, n.user_id)", t=tenant)
    rels = store_rows(container, f"MATCH (n)-[r]->(b) WHERE n.tenant = $t AND {knowledge} "
                                 "RETURN coalesce(n.id, n.user_id) AS a, type(r) AS type, b.id AS b, "
                                 "properties(r) AS props ORDER BY a, type, b, coalesce(r.id, '')", t=tenant)
    return nodes, rels


# ----- the CLI ---------------------------------------------------------------------------------------------------


def test_the_cli_restores_every_user_of_a_tenant_file_and_a_second_import_changes_nothing(
        container: Container, source: str, tmp_path: Path) -> None:
    file = tmp_path / "tenant.nt"
    exported = runner.invoke(app, ["export", "--all-users", "--tenant", source, "-f", "nt", "-o", str(file)])
    assert exported.exit_code == 0, exported.output
    target = _fresh()

    dry = runner.invoke(app, ["import", str(file), "--all-users", "--tenant", target, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert all(_held_nothing(container, target, user) for user in USERS)

    done = runner.invoke(app, ["import", str(file), "--all-users", "--tenant", target])
    assert done.exit_code == 0, done.output
    receipts = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["source"], r["target"]) for r in receipts] == [
        ({"tenant": source, "user_id": u}, {"tenant": target, "user_id": u}) for u in USERS]
    assert [r["created"] for r in receipts] == [json.loads(line)["created"] for line in dry.stdout.splitlines()]
    for r in receipts:
        assert r["created"]["Memory"] >= 8 and r["existing"]["Memory"] == 0 and r["created"]["Episode"] == len(TURNS)
        assert r["triples"] > 0 and r["relationships"] > 0 and r["ignored"] == 0 and r["dry_run"] is False
    assert f"imported 2 users of tenant.nt into tenant '{target}'" in done.stderr
    _assert_restored(container, source, target)

    before = _snapshot(container, target)
    assert len(before[0]) > 30 and len(before[1]) > 30
    again = runner.invoke(app, ["import", str(file), "--all-users", "--tenant", target])
    assert again.exit_code == 0, again.output
    for r in (json.loads(line) for line in again.stdout.splitlines()):
        assert sum(r["created"].values()) == 0 and r["existing"]["Memory"] >= 8
    assert _snapshot(container, target) == before


def test_the_cli_takes_either_a_user_or_all_users(tmp_path: Path, tenant_file: bytes) -> None:
    file = tmp_path / "tenant.nt"
    file.write_bytes(tenant_file)
    target = _fresh()
    for args in ([], ["--all-users", "--user", "alice"], ["--all-users", "--source-user", "alice"]):
        refused = runner.invoke(app, ["import", str(file), "--tenant", target, *args])
        assert refused.exit_code == 2, (args, refused.output)
    several = runner.invoke(app, ["import", str(file), "--tenant", target, "--user", "alice"])
    assert several.exit_code == 2 and "--all-users" in several.output  # the refusal names the way to take them all


# ----- checked whole first ---------------------------------------------------------------------------------------


def test_a_file_refused_for_one_user_imports_nothing_for_any(container: Container, source: str,
                                                             tenant_file: bytes) -> None:
    target = _fresh()
    # a syntax error
    lines = tenant_file.decode().splitlines()
    broken = "\n".join([*lines[:-2], '<https://bmam.dev/x> <https://bmam.dev/y> "unterminated .', *lines[-2:]])
    with pytest.raises(BadInput, match=f"line {len(lines) - 1}:"):
        container.export.import_rdf_all_users(target, broken.encode(), "nt")
    # well formed, but a memory of the last user (written last) has no text: the first user is not written either
    g = parse_rdf(tenant_file, RdfFormat.NTRIPLES)
    last = user_iri(source, USERS[-1])
    memory = next(s for s in g.subjects(ns.RDF.type, BMAM.Memory) if str(s).startswith(last + "/"))
    g.remove((memory, ns.SDO.text, None))
    with pytest.raises(BadInput, match="a Memory needs text"):
        container.export.import_rdf_all_users(target, g.serialize(format="nt").encode(), "nt")
    assert all(_held_nothing(container, target, user) for user in USERS)
    # the last user already holds another conversation under the file's session ids: CONFLICT before any write
    container.ingest.ingest_conversation(target, [TurnInput(user_id=USERS[-1], session_id="s1", speaker="user",
                                                            text="Another conversation altogether.")])
    with pytest.raises(Conflict, match="turn 0 of session 's1'"):
        container.export.import_rdf_all_users(target, tenant_file, "nt")
    assert _held_nothing(container, target, USERS[0])


def test_one_user_id_under_two_tenants_is_refused(container: Container, tenant_file: bytes) -> None:
    other = _fresh()
    container.memories.remember(other, RememberRequest(user_id="alice", text="I keep bees", type="FACTUAL"))
    both = tenant_file + b"\n" + b"".join(container.export.export_rdf(other, "alice", "nt"))
    with pytest.raises(BadInput, match="user 'alice' of two tenants"):
        read_exports(parse_rdf(both, RdfFormat.NTRIPLES))


# ----- the API ---------------------------------------------------------------------------------------------------


def test_the_upload_restores_every_user_into_the_keys_tenant(container: Container, source: str, tenant_file: bytes,
                                                             api_url: str,
                                                             make_api_key: Callable[[str], str]) -> None:
    target = _fresh()
    headers = {"X-API-Key": make_api_key(target)}
    stray = b'\n<https://example.org/x> <https://example.org/y> "not of any user" .\n'

    def post(data: bytes, **params: str) -> requests.Response:
        return requests.post(f"{api_url}/import.nt", data=data, params=params, headers=headers, timeout=300)

    picked = post(tenant_file, sourceUserId="alice")
    assert picked.status_code == 400 and picked.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    bad = post(tenant_file.replace(b"<https://bmam.dev/", b"<oops", 1))
    assert bad.status_code == 400 and bad.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert all(_held_nothing(container, target, user) for user in USERS)

    done = post(tenant_file + stray)
    assert done.status_code == 200, done.text
    answer = done.json()
    assert answer["ignored"] == 1
    assert [r["target"] for r in answer["users"]] == [{"tenant": target, "userId": u} for u in USERS]
    assert all(_counts(r)["Memory"][0] >= 8 and r["dryRun"] is False for r in answer["users"])
    _assert_restored(container, source, target)

    before = _snapshot(container, target)
    again = post(tenant_file)
    assert again.status_code == 200, again.text
    assert all(r["created"] == 0 for r in again.json()["users"])
    assert _snapshot(container, target) == before
    wrong = requests.get(f"{api_url}/import.nt", headers=headers, timeout=30)
    assert (wrong.status_code, wrong.headers["allow"]) == (405, "POST")


def _counts(report: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {c["kind"]: (c["created"], c["existing"]) for c in report["counts"]}


def _as_json(answer: Any) -> str:
    """An answer as its JSON text: equal only with the same fields, in the same order, of the same types (true is
    not 1)."""
    return json.dumps(answer, ensure_ascii=False)


def test_the_upload_answers_what_the_mutation_answers(container: Container, tenant_file: bytes, api_url: str,
                                                      make_api_key: Callable[[str], str]) -> None:
    """POST /import.{ext} answered each user's report as a dict of created per kind with snake_case names
    (dry_run, hooks_run, source.user_id) where importRdfAllUsers answers created as an Int beside counts, dryRun,
    hooksRun, source.userId. The same import through either, and BmamClient.import_rdf_all_users, is now the same
    JSON."""
    target = _fresh()
    c = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(target)))
    try:
        def mutation(dry_run: bool) -> dict[str, Any]:
            answer = c.execute(ALL_USERS, {"d": tenant_file.decode(), "f": "N_TRIPLES", "dry": dry_run})
            return dict(answer["importRdfAllUsers"])

        dry = mutation(True)
        assert _as_json(c.import_rdf_all_users(tenant_file, "nt", dry_run=True)) == _as_json(dry)
        assert all(u["dryRun"] is True and isinstance(u["created"], int) for u in dry["users"])
        assert all(_held_nothing(container, target, user) for user in USERS)
        done = c.import_rdf_all_users(tenant_file, "nt")
        assert [u["created"] for u in done["users"]] == [u["created"] for u in dry["users"]]
        assert _as_json(c.import_rdf_all_users(tenant_file, "nt")) == _as_json(mutation(False))  # again: nothing
    finally:
        c.close()


def test_remote_import_all_users_restores_every_user_of_a_remote_export(
        container: Container, source: str, api_url: str, make_api_key: Callable[[str], str], tmp_path: Path) -> None:
    """`bmam remote import` took one user: `bmam remote export --all-users` (an admin key's) and `bmam remote import
    --all-users` carry a tenant to another app as `bmam export` / `bmam import --all-users` do, printing a report a
    line per user (importRdf's shape) and a summary on stderr."""
    file = tmp_path / "tenant.nt"
    out = runner.invoke(app, ["remote", "export", "--all-users", "-f", "nt", "-o", str(file)],
                        env={"BMAM_SERVER": api_url, "BMAM_API_KEY": make_api_key(source)})
    assert out.exit_code == 0, out.output
    assert file.read_bytes() == b"".join(container.export.export_rdf(source, None, "nt"))
    target = _fresh()
    env = {"BMAM_SERVER": api_url, "BMAM_API_KEY": make_api_key(target)}
    for args in ([], ["--all-users", "--user", "alice"], ["--all-users", "--source-user", "alice"]):
        refused = runner.invoke(app, ["remote", "import", str(file), *args], env=env)
        assert refused.exit_code == 2 and "--all-users" in refused.output, (args, refused.output)

    dry = runner.invoke(app, ["remote", "import", str(file), "--all-users", "--dry-run"], env=env)
    assert dry.exit_code == 0, dry.output
    assert [json.loads(line)["dryRun"] for line in dry.stdout.splitlines()] == [True, True]
    assert all(_held_nothing(container, target, user) for user in USERS)
    done = runner.invoke(app, ["remote", "import", str(file), "--all-users"], env=env)
    assert done.exit_code == 0, done.output
    receipts = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["source"], r["target"]) for r in receipts] == [
        ({"tenant": source, "userId": u}, {"tenant": target, "userId": u}) for u in USERS]
    assert all(_counts(r)["Memory"][0] >= 8 and _counts(r)["Memory"][1] == 0 for r in receipts)
    assert f"imported 2 users of tenant.nt into tenant '{target}'" in done.stderr
    _assert_restored(container, source, target)
    again = runner.invoke(app, ["remote", "import", str(file), "--all-users"], env=env)
    assert again.exit_code == 0 and [json.loads(line)["created"] for line in again.stdout.splitlines()] == [0, 0]


def test_the_mutation_restores_every_user_with_coded_errors(container: Container, source: str,
                                                            tenant_file: bytes, api_url: str,
                                                            make_api_key: Callable[[str], str]) -> None:
    target = _fresh()
    c = BmamClient(ClientConfig(url=api_url, api_key=make_api_key(target)))
    try:
        data = tenant_file.decode()
        with pytest.raises(BmamClientError) as bad:
            c.execute(ALL_USERS, {"d": data.replace("<https://bmam.dev/", "<oops", 1), "f": "N_TRIPLES",
                                  "dry": False})
        assert bad.value.code == "BAD_USER_INPUT" and "line 1" in bad.value.message
        with pytest.raises(BmamClientError) as empty:
            c.execute(ALL_USERS, {"d": "", "f": "N_TRIPLES", "dry": False})
        assert empty.value.code == "BAD_USER_INPUT" and "no bmam:User" in empty.value.message
        dry = c.execute(ALL_USERS, {"d": data, "f": "N_TRIPLES", "dry": True})["importRdfAllUsers"]
        assert [u["dryRun"] for u in dry["users"]] == [True, True]
        assert all(_held_nothing(container, target, user) for user in USERS)

        done = c.execute(ALL_USERS, {"d": data, "f": "N_TRIPLES", "dry": False})["importRdfAllUsers"]
        assert done["ignored"] == 0
        assert [(u["source"]["userId"], u["target"]) for u in done["users"]] == [
            (user, {"tenant": target, "userId": user}) for user in USERS]
        assert [u["created"] for u in done["users"]] == [u["created"] for u in dry["users"]]
        _assert_restored(container, source, target)

        again = c.execute(ALL_USERS, {"d": data, "f": "N_TRIPLES", "dry": False})["importRdfAllUsers"]
        assert [u["created"] for u in again["users"]] == [0, 0]
    finally:
        c.close()
