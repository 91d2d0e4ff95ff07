"""Documents that passed the checks, kept by their text: an app sends the same few query texts again and
again (with new variables), and parsing plus validating a 30-field query cost more than executing it
(about 3 of the 10 ms of a relatedSearch for 20 memories). Only what the text alone decides is kept: the
parsed document of a text that passed the limits and every validation rule. Variables, execution and any
document that failed are handled per request, as if there were no cache."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator

from graphql import DocumentNode
from strawberry.extensions import SchemaExtension

Key = tuple[str, tuple[type, ...]]


class DocumentCache:
    """Valid documents by (query text, validation rules), least recently used dropped past maxsize."""

    def __init__(self, maxsize: int = 256) -> None:
        self.maxsize = maxsize
        self._valid: OrderedDict[Key, DocumentNode] = OrderedDict()
        self._lock = threading.Lock()  # several event loops (uvicorn workers in threads, tests) may share it

    def get(self, key: Key) -> DocumentNode | None:
        with self._lock:
            document = self._valid.get(key)
            if document is not None:
                self._valid.move_to_end(key)
            return document

    def put(self, key: Key, document: DocumentNode) -> None:
        with self._lock:
            self._valid[key] = document
            self._valid.move_to_end(key)
            while len(self._valid) > self.maxsize:
                self._valid.popitem(last=False)

    def __len__(self) -> int:
        return len(self._valid)


class CheckedDocuments(SchemaExtension):
    """A known-valid text skips parsing, the limits and validation; any other text goes the usual way and,
    once it passed all of them, is kept. Must come before QueryLimits in the schema's extensions (a hit
    marks the document checked, which QueryLimits and strawberry's validation then skip)."""

    def __init__(self, cache: DocumentCache) -> None:
        self.cache = cache
        self._hit = False

    def _key(self) -> Key | None:
        query = self.execution_context.query
        return (query, tuple(self.execution_context.validation_rules)) if query else None

    def on_parse(self) -> Iterator[None]:
        key = self._key()
        document = self.cache.get(key) if key is not None else None
        if document is not None:
            self.execution_context.graphql_document = document  # strawberry then does not parse
            self._hit = True
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if self._hit and context.pre_execution_errors is None:
            context.pre_execution_errors = []  # checked when it was kept: no limit or rule to run again
        yield
        key = self._key()
        if not self._hit and key is not None and context.pre_execution_errors == [] \
                and context.graphql_document is not None:
            self.cache.put(key, context.graphql_document)
