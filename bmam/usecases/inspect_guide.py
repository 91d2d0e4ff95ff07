"""What a person inspecting the graph in Neo4j Browser is given: a Browser guide (one slide per query of
cypher/inspect/) and a favourites file, built from graph/inspect_queries.py for the CLI and the API alike."""

from __future__ import annotations

import html
import io
import zipfile

from graph.inspect_queries import inspect_queries, params_command


def browser_guide_html() -> str:
    """A Neo4j Browser guide (`:guide <url>`): one slide per inspect query, the :param lines and the
    query as runnable blocks (a click puts them in the editor)."""
    slides = [
        "<slide class=\"row-fluid\"><div class=\"col-sm-12\"><h3>bmam: inspect the memory graph</h3>"
        "<p>Each next slide is one query from <code>cypher/inspect/</code>. Click the <code>:params</code> "
        "block, change the tenant and user to yours and run it, then click the query and run it.</p>"
        "<ul>" + "".join(f"<li>{html.escape(q.title)}</li>" for q in inspect_queries()) + "</ul></div></slide>"
    ]
    for q in inspect_queries():
        params = params_command(q.params) if q.params else ""
        slides.append(
            "<slide class=\"row-fluid\"><div class=\"col-sm-12\">"
            f"<h3>{html.escape(q.title)}</h3><p>{html.escape(q.description)}</p>"
            f"<p><code>{html.escape(q.file_name)}</code></p>"
            + (f"<pre class=\"pre-scrollable code runnable\">{html.escape(params)}</pre>" if params else "")
            + f"<pre class=\"pre-scrollable code runnable\">{html.escape(q.query)}</pre>"
            "</div></slide>"
        )
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>bmam inspect</title></head><body>"
            "<article class=\"guide\"><carousel class=\"deck container-fluid\">"
            + "".join(slides) + "</carousel></article></body></html>\n")


def browser_favourites_zip() -> bytes:
    """A zip of the inspect queries (folder bmam/): dropped on the Neo4j Browser window, each becomes a
    saved favourite named by its first comment line, in a folder "bmam"."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for q in inspect_queries():
            text = q.text if q.text.startswith("//") else f"// {q.title}\n{q.text}"
            archive.writestr(f"bmam/{q.file_name}", text)
    return buffer.getvalue()
