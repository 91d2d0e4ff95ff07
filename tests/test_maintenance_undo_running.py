"""Undo of a maintenance run that is still running, against the real Neo4j: the users the run recorded are
restored, the run stops at its next user (that user's transaction rolls back), and the tenant ends as it
was before the run; a run undone after it was interrupted is restored like a finished one."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bmam.clock import FakeClock
from bmam.container import Container
from graph.changesets import ChangesetStatus
from graph.maintenance import UserResult
from graph.model import Scope
from tests.test_maintenance import living, snapshot, store

__all__ = ["living"]  # the fixture, used by name


def test_undo_while_the_run_runs_stops_it_and_restores_every_user(living: tuple[Container, FakeClock],
                                                                  tenant: str) -> None:
    c, clock = living
    users = [Scope(tenant, f"user-{i}") for i in range(3)]
    for scope in users:
        store(c, scope, f"{scope.user_id} has a blue umbrella", passive=0.6)
        store(c, scope, f"{scope.user_id} walks to work", passive=0.4)
    before = {scope.user_id: snapshot(c, scope) for scope in users}
    clock.advance(timedelta(days=30))
    done: list[str] = []

    def undo_after_the_first(result: UserResult) -> None:
        done.append(result.user_id)
        if len(done) == 1:
            [running] = c.maintenance.changesets(tenant)
            assert running.status is ChangesetStatus.RUNNING
            assert c.maintenance.undo(tenant, running.id).undone

    result = c.maintenance.run(tenant, "DECAY", on_user_done=undo_after_the_first)
    assert result.changeset is not None and result.changeset.undone
    assert len(done) == 1  # the second user found the changeset undone: rolled back, and the run stopped
    assert {scope.user_id: snapshot(c, scope) for scope in users} == before


def test_an_interrupted_run_can_be_undone(living: tuple[Container, FakeClock], tenant: str) -> None:
    c, clock = living
    users = [Scope(tenant, f"user-{i}") for i in range(2)]
    for scope in users:
        store(c, scope, f"{scope.user_id} plays chess on Sundays", passive=0.6)
    before = {scope.user_id: snapshot(c, scope) for scope in users}
    clock.advance(timedelta(days=30))

    class Interrupted(Exception):
        pass

    def die_after_the_first(result: UserResult) -> None:
        raise Interrupted

    with pytest.raises(Interrupted):
        c.maintenance.run(tenant, "DECAY", on_user_done=die_after_the_first)
    [interrupted] = c.maintenance.changesets(tenant)
    assert interrupted.status is ChangesetStatus.RUNNING and interrupted.users_done == 1
    changed = [scope.user_id for scope in users if snapshot(c, scope) != before[scope.user_id]]
    assert len(changed) == 1  # one user decayed and recorded, the other never started
    assert c.maintenance.undo(tenant, interrupted.id).undone
    assert {scope.user_id: snapshot(c, scope) for scope in users} == before
