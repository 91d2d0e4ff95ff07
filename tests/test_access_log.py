"""uvicorn's access log keeps no query string (GraphQL over GET carries the user's text): the filter alone, on a
record made as uvicorn makes it, and installed once by the app."""

from __future__ import annotations

import logging

from bmam.container import Container
from resolvers.access_log import QueryStringDropped, drop_query_strings
from resolvers.app import create_app


def access_record(path: str) -> logging.LogRecord:
    # uvicorn/protocols/http/h11_impl.py: access_logger.info('%s - "%s %s HTTP/%s" %d', client, method, path, ...)
    return logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                             ("127.0.0.1:5000", "GET", path, "1.1", 200), None)


def test_the_query_string_is_left_out_of_the_line() -> None:
    record = access_record('/graphql?query={recall(userId:"alice",query:"my pregnancy test")}')
    assert QueryStringDropped().filter(record)
    line = record.getMessage()
    assert line == '127.0.0.1:5000 - "GET /graphql?… HTTP/1.1" 200' and "pregnancy" not in line


def test_a_path_without_a_query_is_as_it_was() -> None:
    record = access_record("/healthz")
    assert QueryStringDropped().filter(record)
    assert record.getMessage() == '127.0.0.1:5000 - "GET /healthz HTTP/1.1" 200'


def test_installed_once() -> None:
    logger = logging.getLogger("test-access-log")
    drop_query_strings(logger)
    drop_query_strings(logger)
    assert sum(isinstance(f, QueryStringDropped) for f in logger.filters) == 1


def test_the_app_installs_it(container: Container) -> None:
    logging.getLogger("uvicorn.access").filters.clear()
    create_app(container, migrate=False, dev_key_enabled=False)
    assert any(isinstance(f, QueryStringDropped) for f in logging.getLogger("uvicorn.access").filters)
