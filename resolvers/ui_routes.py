"""The memory inspector: static files (resolvers/ui/) served at /ui. The page talks only to /graphql
(and GET /export/...) with the API key the user pastes; nothing here reads the store."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

UI_DIR = Path(__file__).resolve().parent / "ui"

# The page loads only its own files: no CDN, no inline script, nothing fetched from elsewhere.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'none'"
)


class InspectorFiles(StaticFiles):
    """StaticFiles with UTF-8 text types, a strict CSP and no caching of the page itself."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        content_type = response.headers.get("content-type", "")
        if content_type.startswith(("text/", "application/javascript")) and "charset" not in content_type:
            response.headers["content-type"] = f"{content_type}; charset=utf-8"
        response.headers["content-security-policy"] = CONTENT_SECURITY_POLICY
        response.headers["x-content-type-options"] = "nosniff"
        response.headers["referrer-policy"] = "no-referrer"
        response.headers["cache-control"] = "no-cache"
        return response


async def _to_ui(_: Request) -> Response:
    return RedirectResponse("/ui/", status_code=307)


def ui_routes() -> list[BaseRoute]:
    """/ui (redirects to /ui/) and /ui/* (index.html, app.js, app.css)."""
    return [
        Route("/ui", _to_ui, methods=["GET"]),
        Mount("/ui", app=InspectorFiles(directory=UI_DIR, html=True), name="ui"),
    ]
