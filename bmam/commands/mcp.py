"""`bmam mcp`: the MCP server face over stdio (for an agent that launches bmam) or streamable HTTP."""

from __future__ import annotations

import logging
import os
import sys
from enum import StrEnum
from typing import Annotated

import typer

from bmam.cli_support import clear_errors, fail, settings


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def register(app: typer.Typer) -> None:
    @app.command("mcp")
    def mcp(
        transport: Annotated[Transport, typer.Option(help="stdio (launched by an agent) or http (streamable HTTP)")]
        = Transport.stdio,
        api_key: Annotated[str | None, typer.Option(
            "--api-key", envvar="BMAM_API_KEY", show_envvar=True,
            help="stdio: the API key every call runs under (its tenant). HTTP: each request sends its own.")] = None,
        host: Annotated[str | None, typer.Option(help="HTTP bind address (default 127.0.0.1).")] = None,
        port: Annotated[int, typer.Option(help="HTTP port.")] = 8001,
        path: Annotated[str, typer.Option(help="HTTP path of the MCP endpoint.")] = "/mcp",
    ) -> None:
        """Serve bmam's memory to agents over the Model Context Protocol: tools ingest_turn, remember, recall,
        related, context_prompt, memories, correct, forget, lock, unlock, react, feedback, conflicts,
        resolve_conflict, history; resource bmam://users/{user_id}/core."""
        import anyio

        from bmam.container import Container, ensure_neo4j
        from bmam.mcp_server import build_server, http_app, serve_stdio

        cfg = settings()
        # stdout is the protocol channel on stdio: logs go to stderr only.
        logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)  # server hints, not the agent's business
        if transport is Transport.stdio and not api_key:
            fail("bmam mcp --transport stdio needs an API key: --api-key or BMAM_API_KEY "
                 "(create one with `bmam keys create`)", 2)
        with clear_errors():
            ensure_neo4j(cfg)
        container = Container(cfg)
        relay = None
        try:
            with clear_errors():
                container.migrate()
                if api_key:
                    container.keys.authenticate(api_key)  # a bad key fails here, with one clear line
                container.load_embedding_model()  # before the first call, not during it
            relay = container.start_event_relay(listen=False)  # what agents change, a server's subscribers hear
            if transport is Transport.stdio:
                os.environ.pop("BMAM_API_KEY", None)
                # the SDK's stdio, answering the lines it cannot read (bmam/mcp_server.py serve_stdio)
                anyio.run(serve_stdio, build_server(container, api_key=api_key))
            else:
                import uvicorn

                bind = host or cfg.api.host
                typer.echo(f"bmam MCP (streamable HTTP) at http://{bind}:{port}{path}; send X-API-Key", err=True)
                uvicorn.run(http_app(container, path=path, host=bind), host=bind, port=port, log_level="warning")
        finally:
            if relay is not None:
                relay.stop()
            container.close()
