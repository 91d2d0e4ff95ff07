"""Knowledge out, against Neo4j: reads one user's subgraph a page at a time (keyset pagination, one
read transaction per page) for the RDF and GraphML exports, and writes an import plan back in
idempotent batches keyed by ids derived for the target user."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.conflicts import conflict_id
from graph.episodes import episode_id, session_node_id
from graph.errors import BadInput, Conflict
from graph.ids import derived_id, entity_id, triple_id
from graph.model import Scope, scope_params
from graph.rdf_records import Chunk, ImportPlan, NodeRecord, RelRecord, TripleRecord
from graph.rdf_terms import PAGED_KINDS, REF_PROPS, UNDIRECTED, USER_REF, NodeKind, NodeRef, node_ref, user_iri
from graph.records import present_props, time_param
from graph.scope_token import scope_token
from graph.store import GraphStore, Tx
from graph.text_key import text_key


@dataclass
class ImportReport:
    """What an import wrote: per node kind, how many were created and how many existed already."""

    source: Scope
    target: Scope
    created: dict[str, int] = field(default_factory=dict)
    existing: dict[str, int] = field(default_factory=dict)
    triples: int = 0
    relationships: int = 0
    ignored: int = 0
    dry_run: bool = False
    # the file's memories as the target user holds them, created now or before (in the order the source user
    # stored them): those still waiting for their stored-memory hooks have them run after the writes
    # (bmam/usecases/export.py)
    memory_ids: list[str] = field(default_factory=list)
    # what the tier capacities moved afterwards: {memory_id, from, to (None: evicted), reason}
    capacity: list[dict[str, str | None]] = field(default_factory=list)
    hooks_run: int = 0  # created memories whose stored-memory hooks went through
    hooks_left: int = 0  # ... and those left pending (run again at the user's next ingest, at server start)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": {"tenant": self.source.tenant, "user_id": self.source.user_id},
            "target": {"tenant": self.target.tenant, "user_id": self.target.user_id},
            "created": self.created, "existing": self.existing, "triples": self.triples,
            "relationships": self.relationships, "ignored": self.ignored, "dry_run": self.dry_run,
            "capacity": self.capacity, "hooks_run": self.hooks_run, "hooks_left": self.hooks_left,
        }


@dataclass
class IdMap:
    """Where each node of an import plan lands in the target user: its id, and whether it exists."""

    ids: dict[NodeRef, str] = field(default_factory=dict)
    existing: set[NodeRef] = field(default_factory=set)
    origin: dict[NodeRef, str] = field(default_factory=dict)  # key kept as origin_id (id differs from key)


class KnowledgeRepository:
    def __init__(self, store: GraphStore, *, page_size: int = 1000, batch_size: int = 500) -> None:
        self._store = store
        self.page_size = page_size
        self._batch = batch_size

    # ----- export -------------------------------------------------------------------------------

    def users(self, tenant: str) -> Iterator[str]:
        """The user ids of a tenant, in order, a page at a time."""
        after: str | None = None
        while True:
            rows = self._store.read("export/users", {"tenant": tenant, "after": after, "limit": self.page_size})
            yield from (r["user_id"] for r in rows)
            if len(rows) < self.page_size:
                return
            after = rows[-1]["user_id"]

    def has_user(self, scope: Scope) -> bool:
        return bool(self._store.read("export/user", scope_params(scope)))

    def chunks(self, scope: Scope) -> Iterator[Chunk]:
        """One user's subgraph, a page at a time: the user, then memories (with their triples),
        entities, sessions, episodes and conflicts. Each page is read in its own transaction, so an
        export of a user who is being written to is not a snapshot."""
        base = user_iri(scope.tenant, scope.user_id)
        users = self._store.read("export/user", scope_params(scope))
        if not users:
            return
        yield Chunk(base, nodes=[NodeRecord(USER_REF, list(users[0]["labels"]), present_props(users[0]["props"]))])
        for kind in PAGED_KINDS:
            after: str | None = None
            while True:
                rows = self._store.read(
                    "export/nodes", {**scope_params(scope), "after": after, "limit": self.page_size},
                    node_label=kind.value,
                )
                if not rows:
                    break
                yield self._chunk(scope, base, kind, rows)
                if len(rows) < self.page_size:
                    break
                after = rows[-1]["props"]["id"]

    def _chunk(self, scope: Scope, base: str, kind: NodeKind, rows: list[dict[str, Any]]) -> Chunk:
        """Records of one page. Far ends come as ids and are resolved to refs with one lookup per kind."""
        chunk = Chunk(base)
        wanted: dict[NodeKind, set[str]] = defaultdict(set)
        pending: list[tuple[str, NodeRef, str, NodeKind, dict[str, Any]]] = []  # type, start, end id, kind, props
        by_id: dict[str, NodeRecord] = {}
        for row in rows:
            props = present_props(row["props"])
            ref = node_ref(row["labels"], props)
            if ref is None:
                continue
            node = NodeRecord(ref, list(row["labels"]), props)
            by_id[props["id"]] = node
            chunk.nodes.append(node)
            _want(wanted, kind.value, props)
            for rel_type, rel_props, end_id, end_kind in row["out"]:
                if end_kind is None:
                    continue  # a node kind the export does not carry
                cleaned = present_props(rel_props)
                _want(wanted, rel_type, cleaned)
                wanted[NodeKind(end_kind)].add(end_id)
                pending.append((rel_type, ref, end_id, NodeKind(end_kind), cleaned))
            for rel_type, rel_props in row["from_user"]:
                chunk.rels.append(RelRecord(rel_type, USER_REF, ref, present_props(rel_props)))
        triples = []
        if kind is NodeKind.MEMORY and by_id:
            triples = self._store.read("export/triples", {**scope_params(scope), "memory_ids": list(by_id)})
            for t in triples:
                wanted[NodeKind.ENTITY] |= {t["subject"], t["object"]}
        refs = self._refs(scope, wanted)
        for rel_type, start, end_id, end_kind, rel_props in pending:
            end = refs.get((end_kind, end_id))
            if end is not None:
                chunk.rels.append(RelRecord(rel_type, start, end, rel_props))
        for t in triples:
            props = present_props(t["props"])
            memory = by_id.get(props.get("memory_id", ""))
            subject, obj = refs.get((NodeKind.ENTITY, t["subject"])), refs.get((NodeKind.ENTITY, t["object"]))
            if memory is None or subject is None or obj is None:
                continue
            current = (int(props.get("polarity", 1)) == 1 and props.get("valid_to") is None
                       and memory.props.get("valid_to") is None)
            chunk.triples.append(TripleRecord(memory=memory.ref, subject=subject, predicate=str(props["predicate"]),
                                              object=obj, props=props, current=current))
        for node in chunk.nodes:
            _swap_refs(node.ref.kind.value, node.props, refs)
        for rel in chunk.rels:
            _swap_refs(rel.type, rel.props, refs)
        return chunk

    def _refs(self, scope: Scope, wanted: Mapping[NodeKind, set[str]]) -> dict[tuple[NodeKind, str], NodeRef]:
        found: dict[tuple[NodeKind, str], NodeRef] = {}
        for kind, ids in wanted.items():
            if not ids:
                continue
            rows = self._store.read("export/refs", {**scope_params(scope), "ids": sorted(ids)}, node_label=kind.value)
            for r in rows:
                ref = node_ref([kind.value], present_props(r))
                if ref is not None:
                    found[(kind, r["id"])] = ref
        return found

    # ----- import -------------------------------------------------------------------------------

    def resolve(self, scope: Scope, plan: ImportPlan) -> IdMap:
        """The target id of every node in the plan. Entities, sessions and episodes have ids derived
        from what they are (as ingest derives them); memories and conflicts keep the id they were born
        with when imported back into the same user and it is free, else get one derived from their key
        for the target user. A node the target user already has (by id or origin_id) is reused; a turn it has
        with another speaker or text than the file's is a Conflict (_check_turns), before anything is written."""
        same_user = plan.source == scope
        ids = IdMap()
        for node in plan.nodes:
            p = node.props
            match node.ref.kind:
                case NodeKind.ENTITY:
                    ids.ids[node.ref] = entity_id(scope, str(p["kind"]), str(p["name"]))
                case NodeKind.SESSION:
                    ids.ids[node.ref] = session_node_id(scope, str(p["session_id"]))
                case NodeKind.EPISODE:
                    ids.ids[node.ref] = episode_id(scope, str(p["session_id"]), int(p["turn"]))
        self._check_turns(scope, plan, ids)
        existing_by_kind = {kind: self._existing(scope, kind, [n.ref.parts[0] for n in plan.of_kind(kind)])
                            for kind in (NodeKind.MEMORY, NodeKind.CONFLICT)}
        for kind in (NodeKind.MEMORY, NodeKind.CONFLICT):
            for node in plan.of_kind(kind):
                key = node.ref.parts[0]
                found = existing_by_kind[kind].get(key)
                if found is not None:
                    ids.ids[node.ref] = found
                    continue
                if kind is NodeKind.CONFLICT:
                    new, old = node.props.get("new_id"), node.props.get("old_id")
                    if isinstance(new, NodeRef) and isinstance(old, NodeRef) and new in ids.ids and old in ids.ids:
                        ids.ids[node.ref] = conflict_id(scope, ids.ids[new], ids.ids[old])
                    else:
                        ids.ids[node.ref] = derived_id("c", scope, "rdf", key)
                else:
                    ids.ids[node.ref] = key if same_user else derived_id("m", scope, "rdf", key)
        for kind in NodeKind:
            if kind is NodeKind.USER:
                continue
            present = self._existing_ids(scope, kind, [ids.ids[n.ref] for n in plan.of_kind(kind)])
            ids.existing |= {n.ref for n in plan.of_kind(kind) if ids.ids[n.ref] in present}
        for node in plan.nodes:
            if node.ref.kind in (NodeKind.MEMORY, NodeKind.CONFLICT) and ids.ids[node.ref] != node.ref.parts[0]:
                ids.origin[node.ref] = node.ref.parts[0]
        return ids

    def _check_turns(self, scope: Scope, plan: ImportPlan, ids: IdMap) -> None:
        """An episode's id is derived from (target user, session id, turn), so a file's turn lands on the turn the
        target user already has at that session and turn. With the same speaker and text it is that turn (a
        re-import of the user's own export, as ingest tells a repeat) and is kept; with another speaker or text it
        is another conversation, and the import is refused here, before any write: the file's text would be
        dropped, its memories' provenance pointed at the user's turn, and its NEXT edges joined to the user's."""
        episodes = plan.of_kind(NodeKind.EPISODE)
        clashes: list[NodeRecord] = []
        for start in range(0, len(episodes), self._batch * 4):
            part = episodes[start:start + self._batch * 4]
            rows = self._store.read("import/episodes", {**scope_params(scope), "ids": [ids.ids[n.ref] for n in part]})
            stored = {r["id"]: (r["speaker"], r["text"]) for r in rows}
            for n in part:
                turn = (n.props["speaker"], n.props["text"])
                if stored.get(ids.ids[n.ref], turn) != turn:
                    clashes.append(n)
        if clashes:
            first, others = clashes[0].props, len(clashes) - 1
            more = f" (and {others} more turn{'s' if others > 1 else ''})" if others else ""
            raise Conflict(
                f"turn {first['turn']} of session {first['session_id']!r}{more} is stored for user "
                f"{scope.user_id!r} with another speaker or text than the file's: the file holds another "
                "conversation under the same session ids; nothing was imported (import it into another user)",
                field="file")

    def _existing(self, scope: Scope, kind: NodeKind, keys: Sequence[str]) -> dict[str, str]:
        """key -> id of the target user's nodes of a kind known by that key (as id or origin_id)."""
        found: dict[str, str] = {}
        for start in range(0, len(keys), self._batch * 4):
            part = list(keys[start:start + self._batch * 4])
            rows = self._store.read("import/existing", {**scope_params(scope), "keys": part}, node_label=kind.value)
            wanted = set(part)
            for r in rows:
                if r["id"] in wanted:
                    found[r["id"]] = r["id"]
                if r["origin_id"] in wanted:
                    found.setdefault(r["origin_id"], r["id"])
        return found

    def _existing_ids(self, scope: Scope, kind: NodeKind, ids: Sequence[str]) -> set[str]:
        """Which of these ids the target user has as nodes of a kind."""
        return {key for key, found in self._existing(scope, kind, ids).items() if key == found}

    def write(self, scope: Scope, plan: ImportPlan, ids: IdMap, embeddings: Mapping[NodeRef, Sequence[float]],
              *, now: datetime, hooks_pending_at: datetime | None = None) -> ImportReport:
        """Write the plan in batches, each its own transaction and idempotent (MERGE on derived ids):
        an interrupted import finishes when run again. Only a plan check_plan passed is written (a bad
        file writes nothing, not even the user node). hooks_pending_at: the memories created wait for their
        stored-memory hooks since then (the mark goes with each memory's write, as ingest's does, so hooks
        that never ran are run again by IngestUseCases.resume_hooks). Last, an open conflict of the file whose
        memory is no longer live here is closed as moot (import/moot_conflicts), at `now`."""
        if not plan.checked:
            raise ValueError("an import plan is written only once graph.rdf_checks.check_plan has passed it")
        report = ImportReport(source=plan.source, target=scope, ignored=plan.ignored)
        self._store.write("import/user", {**scope_params(scope), "props": plan.user_props})
        self._write_memories(scope, plan, ids, embeddings, report, hooks_pending_at=hooks_pending_at)
        for kind in (NodeKind.ENTITY, NodeKind.SESSION, NodeKind.EPISODE, NodeKind.CONFLICT):
            nodes = plan.of_kind(kind)
            rows = [{"id": ids.ids[n.ref], "origin_id": ids.origin.get(n.ref), "labels": n.labels,
                     "props": self._props(scope, kind.value, n.props, ids)} for n in nodes]
            created = self._batches("import/nodes", scope, rows, node_label=kind.value)
            _count(report, kind, created, len(rows))
        triple_rows = []
        for t in plan.triples:
            memory, s, o = ids.ids[t.memory], ids.ids[t.subject], ids.ids[t.object]
            triple_rows.append({"id": triple_id(scope, memory, s, t.predicate, o), "memory_id": memory,
                                "subject_id": s, "object_id": o, "predicate": t.predicate,
                                "props": {k: v for k, v in t.props.items() if k not in ("memory_id", "predicate")}})
        report.triples = sum(r["written"] for r in self._rows("import/triples", scope, triple_rows))
        report.relationships = self._write_rels(scope, plan.rels, ids)
        self._store.write("import/moot_conflicts", {**scope_params(scope), "now": now})
        return report

    def _write_memories(self, scope: Scope, plan: ImportPlan, ids: IdMap,
                        embeddings: Mapping[NodeRef, Sequence[float]], report: ImportReport, *,
                        hooks_pending_at: datetime | None) -> None:
        # Written in the order the source user stored them (the file's seq; a file without it, in file order):
        # each takes the target user's next sequence number, so ties of times break as they did there.
        nodes = sorted(plan.of_kind(NodeKind.MEMORY), key=_stored_order)
        rows = [self._memory_row(scope, n, ids, embeddings) for n in nodes]
        mark = {"hooks_pending_at": time_param(hooks_pending_at)}
        written = {r["id"]: r for r in self._rows("import/memories", scope, rows, mark)}
        taken = [n for n in nodes if ids.ids[n.ref] not in written]
        if taken:
            # Kept ids that another user holds (a memory restored into its first owner after it moved):
            # those get an id derived for this user instead.
            for n in taken:
                ids.ids[n.ref] = derived_id("m", scope, "rdf", n.ref.parts[0])
                ids.origin[n.ref] = n.ref.parts[0]
            retry = [self._memory_row(scope, n, ids, embeddings) for n in taken]
            written |= {r["id"]: r for r in self._rows("import/memories", scope, retry, mark)}
        self._renumber_said(scope, nodes, ids, written)
        report.memory_ids = [ids.ids[n.ref] for n in nodes]
        created = sum(1 for n in nodes if written[ids.ids[n.ref]]["created"])
        report.created["Memory"] = created
        report.existing["Memory"] = len(nodes) - created

    def _renumber_said(self, scope: Scope, nodes: Sequence[NodeRecord], ids: IdMap,
                       written: Mapping[str, Mapping[str, Any]]) -> None:
        """The remains' said_seq in the target user's numbers: the seq there of the file's memory holding that seq
        (its remains stand where it was said). One the file does not hold is left out: the remains then stand where
        they were stored. Written after the memories' batches (their seq is given as they are created), so for every
        remains of the file, created now or found: import/said_seq sets it only where the memory here has none. An
        import cut before this step left created remains without it, and importing the file again (which creates
        nothing) sets it then; a memory that has it keeps it, so a second import changes nothing."""
        new_seq = {n.props["seq"]: written[ids.ids[n.ref]]["seq"] for n in nodes if n.props.get("seq") is not None}
        rows = [{"id": ids.ids[n.ref], "said_seq": new_seq[n.props["said_seq"]]} for n in nodes
                if n.props.get("said_seq") in new_seq]
        self._rows("import/said_seq", scope, rows)

    def _memory_row(self, scope: Scope, n: NodeRecord, ids: IdMap,
                    embeddings: Mapping[NodeRef, Sequence[float]]) -> dict[str, Any]:
        vector = embeddings.get(n.ref)
        # the source user's numbers: the target's are given as the memory is created (_renumber_said)
        props = {k: v for k, v in self._props(scope, "Memory", n.props, ids).items() if k not in ("seq", "said_seq")}
        return {"id": ids.ids[n.ref], "origin_id": ids.origin.get(n.ref), "labels": n.labels, "props": props,
                "text_key": text_key(str(props.get("text") or "")),
                "embedding": [float(x) for x in vector] if vector is not None else None}

    def _props(self, scope: Scope, owner: str, props: Mapping[str, Any], ids: IdMap) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in props.items():
            if isinstance(value, NodeRef):
                value = self._ref_id(scope, value, ids)
            elif (owner, name) in REF_PROPS and not isinstance(value, str):
                raise BadInput(f"{owner}.{name} must reference a node")
            out[name] = value
        return out

    def _ref_id(self, scope: Scope, ref: NodeRef, ids: IdMap) -> str:
        """The target id of a node a property points at, also when the file does not describe it."""
        if ref in ids.ids:
            return ids.ids[ref]
        match ref.kind:
            case NodeKind.EPISODE:
                return episode_id(scope, ref.parts[0], int(ref.parts[1]))
            case NodeKind.SESSION:
                return session_node_id(scope, ref.parts[0])
            case NodeKind.ENTITY:
                return entity_id(scope, ref.parts[0], ref.parts[1])
            case NodeKind.MEMORY:
                return derived_id("m", scope, "rdf", ref.parts[0])
            case NodeKind.CONFLICT:
                return derived_id("c", scope, "rdf", ref.parts[0])
        raise BadInput(f"a property cannot point at the {ref.kind}")

    def _write_rels(self, scope: Scope, rels: Sequence[RelRecord], ids: IdMap) -> int:
        groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for rel in rels:
            start, end = rel.start, rel.end
            props = self._props(scope, rel.type, rel.props, ids)
            if start.kind is NodeKind.USER:
                groups[("User", end.kind.value)].append({"type": rel.type, "end_id": ids.ids[end], "props": props})
                continue
            start_id, end_id = ids.ids[start], ids.ids[end]
            if rel.type in UNDIRECTED and end_id < start_id:
                # One edge per pair, stored from the smaller id (association/associate does the same).
                start, end, start_id, end_id = end, start, end_id, start_id
            groups[(start.kind.value, end.kind.value)].append(
                {"type": rel.type, "start_id": start_id, "end_id": end_id, "props": props})
        written = 0
        for (start_label, end_label), rows in sorted(groups.items()):
            if start_label == "User":
                result = self._rows("import/user_relationships", scope, rows, end_label=end_label)
            else:
                result = self._rows("import/relationships", scope, rows, start_label=start_label, end_label=end_label)
            written += sum(r["written"] for r in result)
        return written

    def _rows(self, name: str, scope: Scope, rows: Sequence[dict[str, Any]], params: Mapping[str, Any] | None = None,
              /, **splices: object) -> list[dict[str, Any]]:
        """The rows written by the named statement in batches (each its own transaction), with params beside
        $rows, the user's scope and its scope token; what the statement returns per batch, concatenated."""
        out: list[dict[str, Any]] = []
        for start in range(0, len(rows), self._batch):
            part = list(rows[start:start + self._batch])

            def work(tx: Tx, part: list[dict[str, Any]] = part) -> list[dict[str, Any]]:
                return tx.run(name, {**scope_params(scope), "scope_token": scope_token(scope.tenant, scope.user_id),
                                     **(params or {}), "rows": part}, **splices)

            out += self._store.write_tx(work)
        return out

    def _batches(self, name: str, scope: Scope, rows: Sequence[dict[str, Any]], **splices: object) -> int:
        return sum(1 for r in self._rows(name, scope, rows, **splices) if r.get("created"))


def _stored_order(node: NodeRecord) -> tuple[bool, int]:
    """Sorts a file's memories by the seq the source user gave them; those without one (an older export) after,
    in file order (the sort is stable)."""
    seq = node.props.get("seq")
    return (seq is None, seq if isinstance(seq, int) else 0)


def _want(wanted: dict[NodeKind, set[str]], owner: str, props: Mapping[str, Any]) -> None:
    for name, value in props.items():
        target = REF_PROPS.get((owner, name))
        if target is not None and isinstance(value, str):
            wanted[target].add(value)


def _swap_refs(owner: str, props: dict[str, Any], refs: Mapping[tuple[NodeKind, str], NodeRef]) -> None:
    """Replace the ids in reference properties by the refs of their nodes (a dangling id stays as is)."""
    for name, value in list(props.items()):
        target = REF_PROPS.get((owner, name))
        if target is not None and isinstance(value, str) and (target, value) in refs:
            props[name] = refs[(target, value)]


def _count(report: ImportReport, kind: NodeKind, created: int, total: int) -> None:
    report.created[kind.value] = created
    report.existing[kind.value] = total - created

