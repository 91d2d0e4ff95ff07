"""The local CLI without --tenant reads the default tenant: when the user has no memories there, a command that reads
the user's data says so on standard error and names --tenant (`bmam recall -u mei "Where do I live?"` answered
{"gated": true, "reason": "no memories to recall"} and exit 0, silently, while mei's memories lived under the app's
tenant). Standard output and the exit code are what they were. Through typer's CliRunner against the real Neo4j."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner, Result

from bmam.cli import app
from bmam.container import Container
from bmam.usecases.memories import RememberRequest

runner = CliRunner()


@pytest.fixture
def mei(container: Container, tenant: str) -> Iterator[str]:
    """A fresh user whose memories live under the test's tenant (the app's), none under the default tenant; erased
    from both afterwards."""
    user = f"mei-{uuid.uuid4().hex[:10]}"
    container.memories.remember(tenant, RememberRequest(user_id=user, text="I live in Seattle", type="FACTUAL"))
    yield user
    for t in (tenant, container.settings.api.default_tenant):
        container.erasure.forget_user(t, user, confirm=True)


def cli(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def note(container: Container, user: str) -> str:
    return (f"note: no memories for user {user!r} under tenant {container.settings.api.default_tenant!r} (the "
            "default); pass --tenant\n")


@pytest.mark.parametrize("command", [
    ["recall", "Where do I live?"],
    ["context", "-s", "s1", "Where do I live?"],
    ["context", "-s", "s1", "--json", "Where do I live?"],
    ["memories"],
    ["search", "Where do I live?"],
])
def test_a_read_without_tenant_for_a_user_with_nothing_there_names_tenant(container: Container, tenant: str,
                                                                           mei: str, command: list[str]) -> None:
    name, *rest = command
    quiet = cli(name, "-u", mei, *rest)
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == note(container, mei)
    # standard output is the command's own answer: the same as --tenant naming the default tenant gives, which
    # says nothing on standard error (the tenant was chosen)
    explicit = cli(name, "-u", mei, *rest, "--tenant", container.settings.api.default_tenant)
    assert explicit.exit_code == 0 and explicit.stderr == ""
    if name == "recall":
        answer = json.loads(quiet.stdout)
        assert (answer["gated"], answer["reason"], answer["memories"]) == (True, "no memories to recall", [])
        assert json.loads(explicit.stdout) == answer
    elif name == "context":
        assert quiet.stdout.startswith(('Now: ', '{"text": "Now: '))
    else:
        assert quiet.stdout == explicit.stdout == ""
    # under the app's tenant the user's memories are found, and nothing is noted
    found = cli(name, "-u", mei, *rest, "--tenant", tenant)
    assert found.exit_code == 0 and found.stderr == "" and "I live in Seattle" in found.stdout


def test_no_note_for_a_user_with_memories_under_the_default_tenant(container: Container, mei: str) -> None:
    """An answer with nothing in it for a user who has memories there (recall gated on chit-chat, a filter that
    matches none) is an answer, not a wrong tenant: nothing on standard error."""
    default = container.settings.api.default_tenant
    container.memories.remember(default, RememberRequest(user_id=mei, text="I keep bees", type="FACTUAL"))
    gated = cli("recall", "-u", mei, "What is the capital of Australia?")
    assert gated.exit_code == 0 and json.loads(gated.stdout)["memories"] == [] and gated.stderr == ""
    none_core = cli("memories", "-u", mei, "--tier", "core")
    assert none_core.exit_code == 0 and none_core.stdout == "" and none_core.stderr == ""
    listed = cli("memories", "-u", mei)
    assert "I keep bees" in listed.stdout and listed.stderr == ""


def test_errors_stay_errors_without_a_note(container: Container, mei: str) -> None:
    """Bad input is the one error line and exit 2, as before: no note after it."""
    bad = cli("recall", "-u", mei, "")
    assert bad.exit_code == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == ["error [BAD_USER_INPUT]: query must not be empty"]
