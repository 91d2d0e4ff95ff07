"""Validation rules the GraphQL spec has and graphql-core 3.3 no longer enforces, added to the schema's own."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLError, SelectionSetNode, ValidationRule


class SelectionSetsNotEmpty(ValidationRule):
    """`{ }` selects nothing: the spec's grammar refuses it, graphql-core 3.3's parser takes it (so
    `mutation { remember(...) { } }` wrote a memory and answered {}). Refused before anything runs."""

    def enter_selection_set(self, node: SelectionSetNode, *_args: Any) -> None:
        if not node.selections:
            self.report_error(GraphQLError("a selection set must select at least one field", node))
