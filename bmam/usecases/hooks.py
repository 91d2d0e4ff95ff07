"""Hooks run after a memory is stored (conflict detection, association forming), so the ingest
pipeline does not need to know every feature that reacts to a new memory.

A hook is called once per stored memory, in the order the memories were stored, each memory going through
every hook before the next one (hook 1, hook 2 on memory 1; then on memory 2; ...). After a batch, ingest
hands the batch's memories over in segments instead (run_hooks): a hook with `many` takes a whole segment at
once (a few transactions instead of several per memory); a hook with `segment` says, reading only, where
the segment must end so that the order per memory stays as above for everything that matters (the first
memory whose handling changes what the other hooks read). When one of the hooks is a plain callable (no
`many`), every memory is handed over on its own, through all hooks in turn: the per-memory order exactly.

When every hook can also do its part inside a transaction it is given (`many_in`, and `segment_in` for a
segmenting hook) and run_hooks is given the store, the whole batch goes through all segments and hooks in one
write transaction: the same statements in the same order, one commit instead of a few per segment (a hook may
hand its part of a segment, unrun, to the next hook, which writes it first, in its own first statement when it
can: association forming's part goes with the settlement of the segment's last memory). Should
anything in it fail, it is rolled back and the batch goes the way above (a transaction per hook and segment,
a failing hook logged and the others kept), so a hook's failure never undoes another hook's work.

Given `finish`, run_hooks marks the memories whose hooks all went through (in the hooks' transaction when they
ran in one; else in a transaction of its own after a part went through): ingest stores its memories with a
pending mark, and a memory still marked later (a failure after the ingest committed, a process that stopped)
has its hooks run again (IngestUseCases.resume_hooks). So a hook must leave the graph as it is when it runs on
a memory a second time; conflict detection finds nothing left to settle, association forming keeps the
larger strength."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from graph.memories import MemoryRepository
from graph.model import Memory, Scope, Triple
from graph.store import GraphStore, Tx


@dataclass(frozen=True, slots=True)
class HookBatch:
    """The memories handed to run_hooks together, in the order their hooks run (one object shared by their
    contexts): all of them are stored before the first one's hooks run."""

    memories: Sequence[Memory]
    position: Mapping[str, int]
    # What a hook read once for the whole batch and reads again in each of its segments (association forming's
    # names, association/names), by a key of the hook's: one run_hooks call's, so no other request ever sees it.
    kept: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, memories: Sequence[Memory]) -> HookBatch:
        return cls(memories=tuple(memories), position={m.id: i for i, m in enumerate(memories)})

    def hooked_after(self, memory_id: str, other_id: str) -> Memory | None:
        """The batch's memory other_id when its hooks run after memory_id's; else None."""
        i, j = self.position.get(memory_id), self.position.get(other_id)
        return self.memories[j] if i is not None and j is not None and j > i else None


@dataclass(frozen=True, slots=True)
class StoredMemoryContext:
    """What a hook may look at: the new memory, its triples, its embedding and the episode it came from; and
    the batch it was stored with (set by run_hooks), whose later memories are already stored while their
    hooks are still to run."""

    scope: Scope
    memory: Memory
    triples: list[Triple]
    embedding: list[float]
    episode_id: str | None = None
    batch: HookBatch | None = field(default=None, compare=False, repr=False)
    # The user's correction (bmam/usecases/corrections.py): their word as of now, newer than any memory it meets,
    # though it holds since the memory it corrects did (valid_from).
    correction: bool = False

    def hooked_after(self, other_id: str) -> Memory | None:
        """The memory other_id when it was stored with this one and its hooks run after this one's."""
        return self.batch.hooked_after(self.memory.id, other_id) if self.batch is not None else None


class StoredMemoryHook(Protocol):
    def __call__(self, context: StoredMemoryContext) -> None: ...


@runtime_checkable
class BatchStoredMemoryHook(Protocol):
    """A hook that can take many stored memories at once: many(contexts) must leave the graph as calling it
    on each context in turn would."""

    def __call__(self, context: StoredMemoryContext) -> None: ...

    def many(self, contexts: Sequence[StoredMemoryContext]) -> None: ...


@runtime_checkable
class SegmentingHook(Protocol):
    """A hook whose handling of a memory may change what the other hooks read (conflict detection settles
    a conflict: a memory is no longer live). segment(contexts) reads only and answers how many leading
    contexts may be handled together: up to and including the first one whose handling writes something
    the other hooks read (len(contexts) when none does). Its answer must not depend on what the other
    hooks write."""

    def segment(self, contexts: Sequence[StoredMemoryContext]) -> int: ...


@runtime_checkable
class TxStoredMemoryHook(Protocol):
    """A batch hook that can do its part inside a write transaction it is given: many_in(tx, contexts) writes
    what many(contexts) would (reading in tx, so it sees what the hooks before it wrote there) and returns
    what must wait for the commit (publishing events), in order. A segmenting one also answers segment_in(tx,
    contexts), reading in tx, as segment would. Either may raise: the caller rolls the transaction back."""

    def many_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> list[Callable[[], None]]: ...


@runtime_checkable
class TxSegmentingHook(Protocol):
    def segment_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> int: ...


class Deferred(Protocol):
    """A hook's writes, not run yet (TxDeferringHook)."""

    def run_in(self, tx: Tx) -> object: ...


@runtime_checkable
class TxDeferringHook(Protocol):
    """A TxStoredMemoryHook that can hand its part of a segment, unrun, to the next hook when that one carries it
    (TxCarryingHook): defer_in(tx, contexts) reads and writes nothing and returns what many_in(tx, contexts) would
    write, to be run by the next hook before anything of its own (nothing else waits for the commit)."""

    def defer_in(self, tx: Tx, contexts: Sequence[StoredMemoryContext]) -> Sequence[Deferred]: ...


@runtime_checkable
class TxCarryingHook(Protocol):
    """A TxStoredMemoryHook that takes the previous hook's deferred writes: many_in_after(tx, contexts, before)
    writes them first (each run_in, or within its own first statement when it knows how: one round trip less),
    then does what many_in(tx, contexts) does, and returns the same."""

    def many_in_after(self, tx: Tx, contexts: Sequence[StoredMemoryContext], before: Sequence[Deferred]
                      ) -> list[Callable[[], None]]: ...


# (tx, the contexts whose hooks all went through): marks them done in tx.
Finish = Callable[[Tx, Sequence[StoredMemoryContext]], None]


def marked_done(memories: MemoryRepository) -> Finish:
    """The finish that clears the pending-hooks mark of the memories whose hooks went through (ingest's and
    remember's and addTriple's: memory/hooks_done, a statement per user)."""

    def finish(tx: Tx, contexts: Sequence[StoredMemoryContext]) -> None:
        by_scope: dict[Scope, list[str]] = {}
        for c in contexts:
            by_scope.setdefault(c.scope, []).append(c.memory.id)
        for scope, ids in by_scope.items():
            memories.hooks_done_in(tx, scope, ids)

    return finish


def run_hooks(hooks: Sequence[StoredMemoryHook], contexts: Sequence[StoredMemoryContext],
              log: logging.Logger, store: GraphStore | None = None, finish: Finish | None = None) -> bool:
    """Run the hooks over the stored memories with the per-memory semantics above, in segments (given the
    store and hooks that can, all in one transaction). A failing hook is logged and does not stop the others
    (nor undo anything stored). With the store and `finish`, the memories whose hooks all went through are
    marked done (see the module's docstring). True when every hook went through on every memory."""
    if len(contexts) > 1:
        batch = HookBatch.of([c.memory for c in contexts])
        contexts = [replace(c, batch=batch) for c in contexts]
    if (store is not None and hooks and contexts and all(isinstance(hook, TxStoredMemoryHook) for hook in hooks)
            and all(isinstance(hook, TxSegmentingHook) for hook in hooks if isinstance(hook, SegmentingHook))):

        def work(tx: Tx) -> list[Callable[[], None]]:
            done = _run_in(tx, hooks, contexts)
            if finish is not None:
                finish(tx, contexts)  # with the hooks' writes: both or neither
            return done

        try:
            after = store.write_tx(work)
        except Exception as exc:  # rolled back: the way below, hook by hook, keeps what does not fail
            log.info("stored-memory hooks of %d memories in one transaction did not go through (%r); again a "
                     "transaction per hook and segment", len(contexts), exc)
        else:
            for action in after:
                try:
                    action()
                except Exception:
                    log.exception("a stored-memory hook's after-commit action failed")
            return True

    def part_done(part: Sequence[StoredMemoryContext]) -> bool:
        if not _run_part(hooks, part, log):
            return False  # left pending: its hooks run again later
        if store is not None and finish is not None:
            try:
                store.write_tx(lambda tx: finish(tx, part))
            except Exception:
                log.exception("could not mark the hooks of memories %s done", ", ".join(c.memory.id for c in part))
                return False
        return True

    ok = True
    rest = list(contexts)
    if not all(isinstance(hook, BatchStoredMemoryHook) for hook in hooks):
        # A plain hook may depend on the per-memory order among all hooks: one memory at a time.
        for context in rest:
            ok = part_done([context]) and ok
        return ok
    while rest:
        size = len(rest)
        for hook in hooks:
            if isinstance(hook, SegmentingHook):
                try:
                    size = min(size, max(1, hook.segment(rest)))
                except Exception:
                    log.exception("stored-memory hook %r failed to segment %d memories", hook, len(rest))
                    size = 1  # one memory at a time: the per-memory order, whatever the hook would have said
        part, rest = rest[:size], rest[size:]
        ok = part_done(part) and ok
    return ok


def _run_part(hooks: Sequence[StoredMemoryHook], part: Sequence[StoredMemoryContext], log: logging.Logger) -> bool:
    """Every hook on the part; False when any of them failed (logged)."""
    ok = True
    for hook in hooks:
        try:
            if isinstance(hook, BatchStoredMemoryHook):
                hook.many(part)
            else:
                for context in part:  # one context: only a part of one is handed to a plain hook
                    hook(context)
        except Exception:  # a feature's hook must not undo a stored turn
            ok = False
            log.exception("stored-memory hook %r failed for memories %s", hook,
                          ", ".join(c.memory.id for c in part))
    return ok


def _run_in(tx: Tx, hooks: Sequence[StoredMemoryHook], contexts: Sequence[StoredMemoryContext]
            ) -> list[Callable[[], None]]:
    """run_hooks' segments inside one transaction (every hook a TxStoredMemoryHook). Raises on any failure;
    may run again from the start when the driver retries the transaction."""
    after: list[Callable[[], None]] = []
    rest = list(contexts)
    while rest:
        size = len(rest)
        for hook in hooks:
            if isinstance(hook, TxSegmentingHook):
                size = min(size, max(1, hook.segment_in(tx, rest)))
        part, rest = rest[:size], rest[size:]
        carried: list[Deferred] = []  # a hook's writes handed to the next one, which writes them first
        for k, hook in enumerate(hooks):
            assert isinstance(hook, TxStoredMemoryHook)
            if isinstance(hook, TxDeferringHook) and k + 1 < len(hooks) and isinstance(hooks[k + 1], TxCarryingHook):
                carried += hook.defer_in(tx, part)
                continue
            if carried and isinstance(hook, TxCarryingHook):
                after += hook.many_in_after(tx, part, carried)
            else:
                after += hook.many_in(tx, part)
            carried = []
    return after
