"""uvicorn's access log without query strings: `GET /graphql?query=...` (GraphQL over GET) carries a user's text
and variables, which have no place in an operator's log; the path, method, status and client stay."""

from __future__ import annotations

import logging

ACCESS_LOGGER = "uvicorn.access"


class QueryStringDropped(logging.Filter):
    """Rewrites uvicorn's access record (client, method, path with query, HTTP version, status): the query string
    is replaced by `?…`, so a log reader sees that one was sent, not what it said."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str) and "?" in args[2]:
            record.args = (args[0], args[1], args[2].split("?", 1)[0] + "?…", args[3], args[4])
        return True


def drop_query_strings(logger: logging.Logger | None = None) -> None:
    """Install the filter on uvicorn's access logger, once however many apps a process creates."""
    target = logger or logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, QueryStringDropped) for f in target.filters):
        target.addFilter(QueryStringDropped())
