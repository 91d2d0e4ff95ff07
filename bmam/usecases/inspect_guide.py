"""What a person inspecting the graph in Neo4j Browser is given: a Browser guide (one slide per query of
cypher/inspect/) and a favourites file, built from graph/inspect_queries.py for the CLI and the API alike."""

from __future__ import annotations

import html
import io
import zipfile
from typing import Any

from graph.inspect_queries import inspect_queries, params_command


def browser_guide_html(params: dict[str, Any] | None = None) -> str:
    """A Neo4j Browser guide (`:guide <url>`): one slide per inspect query, the :param lines and the
    query as runnable blocks (a click puts them in the editor); params (tenant, user_id) set those of the
    :params blocks, else each file's own."""
    queries = inspect_queries(params)
    slides = [
        "<slide class=\"row-fluid\"><div class=\"col-sm-12\"><h3>bmam: inspect the memory graph</h3>"
        "<p>Each next slide is one query from <code>cypher/inspect/</code>. Click the <code>:params</code> "
        "block, change the tenant and user to yours (<code>bmam inspect --tenant T --user U --guide FILE</code> "
        "writes them in) and run it, then click the query and run it.</p>"
        "<ul>" + "".join(f"<li>{html.escape(q.title)}</li>" for q in queries) + "</ul></div></slide>"
    ]
    for q in queries:
        command = params_command(q.params) if q.params else ""
        slides.append(
            "<slide class=\"row-fluid\"><div class=\"col-sm-12\">"
            f"<h3>{html.escape(q.title)}</h3><p>{html.escape(q.description)}</p>"
            f"<p><code>{html.escape(q.file_name)}</code></p>"
            + (f"<pre class=\"pre-scrollable code runnable\">{html.escape(command)}</pre>" if command else "")
            + f"<pre class=\"pre-scrollable code runnable\">{html.escape(q.query)}</pre>"
            "</div></slide>"
        )
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>bmam inspect</title></head><body>"
            "<article class=\"guide\"><carousel class=\"deck container-fluid\">"
            + "".join(slides) + "</carousel></article></body></html>\n")


def browser_favourites_zip(params: dict[str, Any] | None = None) -> bytes:
    """A zip of the inspect queries (folder bmam/): dropped on the Neo4j Browser window, each becomes a
    saved favourite named by its first comment line, in a folder "bmam"; params (tenant, user_id) set their
    `// :param` lines, else each file's own."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for q in inspect_queries(params):
            text = q.text if q.text.startswith("//") else f"// {q.title}\n{q.text}"
            archive.writestr(f"bmam/{q.file_name}", text)
    return buffer.getvalue()
