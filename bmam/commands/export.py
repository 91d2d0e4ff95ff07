"""CLI of knowledge out: `bmam export` (RDF or GraphML/GEXF), `bmam import` (an RDF export back into a
user, or with --all-users a tenant's into each user of the same id) and `bmam inspect` (the Neo4j Browser
queries: how to open them, as a favourites zip or a guide)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, BinaryIO

import typer

from bmam.cli_support import (
    TenantOpt,
    clear_errors,
    container,
    echo,
    echo_json,
    fail,
    settings,
    tenant_of,
    tenant_option,
    user_option,
    write_stdout,
)
from bmam.usecases.export import TenantImportReport
from bmam.usecases.inspect_guide import browser_favourites_zip, browser_guide_html
from graph.errors import BadInput
from graph.graph_export import GraphFormat
from graph.inspect_queries import inspect_queries, params_command
from graph.rdf_writers import RdfFormat

FORMATS = "ttl, nt, jsonld, rdf (RDF/XML), graphml or gexf"
RDF_EXTENSIONS = {".ttl": "ttl", ".nt": "nt", ".jsonld": "jsonld", ".json": "jsonld", ".rdf": "rdf",
                  ".xml": "rdf", ".owl": "rdf"}


def _umask() -> int:
    """The process's umask, read without changing it where Linux says it (/proc/self/status), else set and put
    back at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _write_all(f: BinaryIO, chunks: Iterable[bytes]) -> int:
    """Write every piece to f; the number of bytes written."""
    return sum(f.write(piece) for piece in chunks)


def _write_into(path: Path, chunks: Iterable[bytes]) -> int:
    """Write into what is there as it is (a device, a FIFO): no temporary file, no rename over it."""
    with open(path, "wb") as f:
        return _write_all(f, chunks)


def _write_replacing(target: Path, existing: os.stat_result | None, chunks: Iterable[bytes]) -> int:
    """Write a regular file (or a new one) through a temporary file next to it, renamed over it only once whole,
    so a failed export leaves the good file there and no half file. The temporary file is created 0600 (never
    readable by others while the export is written) and given, just before the rename, the mode (and owner,
    where allowed) of the file it replaces, or a new file's mode as open() would give it (0o666 less the umask)."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as f:
            written = _write_all(f, chunks)
            f.flush()
            os.fsync(f.fileno())
            if existing is not None:
                if (existing.st_uid, existing.st_gid) != (os.getuid(), os.getgid()):
                    with contextlib.suppress(PermissionError):  # only root (or a group member) may hand it on
                        os.fchown(f.fileno(), existing.st_uid, existing.st_gid)
                os.fchmod(f.fileno(), stat.S_IMODE(existing.st_mode))
            else:
                os.fchmod(f.fileno(), 0o666 & ~_umask())
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return written


def write_output(output: Path | None, pieces: bytes | Iterable[bytes]) -> int:
    """Write pieces (bytes) to a file, or to standard output (output None); the number of bytes written.

    A regular file, or a path where nothing is yet, is written through a temporary file renamed over it once
    whole (a failed export leaves no half file, and an older backup stays as it was); the file keeps its
    permission bits, a new one gets open()'s. A symlink is followed: the file it points to is written (so, the
    same way), the link stays. Anything else that exists (a character device such as /dev/null, a FIFO) is opened
    and written into as it is: renaming over it would put a regular file in its place."""
    chunks = pieces if not isinstance(pieces, bytes) else [pieces]
    if output is None:  # a closed pipe ends quietly, a full disk is one line (cli_support.stdout_failed)
        written = 0

        def counted() -> Iterator[bytes]:
            nonlocal written
            for piece in chunks:
                written += len(piece)
                yield piece

        write_stdout(counted())
        return written
    target = Path(os.path.realpath(output))  # a symlink's target (a dangling link: where it points)
    try:
        try:
            existing: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            existing = None
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            return _write_into(output, chunks)
        if existing is not None and not os.access(target, os.W_OK):  # as open() would refuse it
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(output))
        return _write_replacing(target, existing, chunks)
    except OSError as exc:  # a full disk, no permission: one line, and no half file left
        fail(f"cannot write {output}: {exc.strerror or exc}")


def rdf_format_of(file: Path, given: str | None) -> RdfFormat:
    """An import's format: --format, else the file's extension; one the CLI cannot tell is one line and exit 2
    (`bmam import` and `bmam remote import`)."""
    fmt = given or RDF_EXTENSIONS.get(file.suffix.lower())
    if fmt is None:
        fail(f"cannot tell the format of {file.name}; give --format ttl|nt|jsonld|rdf", 2)
    try:
        return RdfFormat.parse(fmt)
    except BadInput as exc:
        fail(f"error [{exc.code}]: {exc.message}", 2)


def export_ext(format: str) -> str:
    """An export's format as its file extension (ttl, nt, jsonld, rdf, graphml, gexf; RDF's other names too:
    turtle, json-ld...); one neither RDF nor a graph format is one line and exit 2 (`bmam export` and `bmam
    remote export`)."""
    key = format.strip().lower().lstrip(".")
    if key in {g.value for g in GraphFormat}:
        return key
    try:
        return RdfFormat.parse(format).value
    except BadInput:  # the CLI knows the graph formats too: name them all
        fail(f"unknown format {format!r}; one of {FORMATS}", 2)


def one_or_all(user: str | None, all_users: bool, *, source_user: str | None = None) -> None:
    """--user U or --all-users, one of the two, and --source-user (one user of a tenant-wide file) only with --user;
    exit 2 otherwise (`bmam export`, `bmam import` and their `bmam remote` forms)."""
    if (user is None) == (not all_users):
        fail("give --user U or --all-users", 2)
    if all_users and source_user is not None:
        fail("--all-users imports every user of the file; --source-user picks one, for --user", 2)


def writable(output: Path | None) -> None:
    """Refuse (exit 2) an --output in no folder before any reading, not after the whole export."""
    if output is not None and not output.parent.is_dir():
        fail(f"cannot write {output}: no folder {output.parent}", 2)


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export_command(
        format: Annotated[str, typer.Option("--format", "-f", help=FORMATS)] = "ttl",
        user: Annotated[str | None, typer.Option("--user", "-u", help="The user whose knowledge to export.")]
        = None,
        all_users: Annotated[bool, typer.Option("--all-users", help="Every user of the tenant (RDF only).")]
        = False,
        output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE (default: stdout).",
                                                    dir_okay=False)] = None,
        tenant: TenantOpt = None,
    ) -> None:
        """Export a user's knowledge (or with --all-users the whole tenant's) as RDF, streamed page by page,
        or as GraphML / GEXF for Gephi, Cytoscape or yEd (embeddings left out)."""
        one_or_all(user, all_users)
        writable(output)
        ext = export_ext(format)  # before the store is opened
        with container() as c, clear_errors():
            t = tenant_of(c, tenant)
            if ext in {g.value for g in GraphFormat}:
                if user is None:
                    raise BadInput("GraphML and GEXF export one user at a time; give --user", field="user")
                written = write_output(output, c.export.export_graph(t, user, format))
            else:
                written = write_output(output, c.export.export_rdf(t, user, format))
        if output is not None:  # what went out (a FIFO or /dev/null has no size to stat)
            typer.echo(f"wrote {output} ({written} bytes)", err=True)

    @app.command("import")
    def import_command(
        file: Annotated[Path, typer.Argument(help="An export written by `bmam export` (ttl, nt, jsonld, rdf).",
                                             exists=True, dir_okay=False, readable=True)],
        user: Annotated[str | None, typer.Option("--user", "-u", help="The user to import into.")] = None,
        all_users: Annotated[bool, typer.Option(
            "--all-users", help="Every user of a tenant-wide export, each into the user of the same id.")] = False,
        format: Annotated[str | None, typer.Option("--format", "-f", help="Default: from the file's extension.")]
        = None,
        source_user: Annotated[str | None, typer.Option(
            "--source-user", help="Which user of a tenant-wide export to import.")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Parse, check and count; write nothing.")] = False,
        tenant: TenantOpt = None,
    ) -> None:
        """Load an RDF export into a user (the same one or another), or with --all-users a tenant-wide export
        (`bmam export --all-users`) into the tenant, each user into the user of the same id: parsed and checked
        whole first, so a malformed file imports nothing; importing the same file again changes nothing. Prints
        the report (with --all-users one line per user)."""
        one_or_all(user, all_users, source_user=source_user)
        fmt = rdf_format_of(file, format)
        with container() as c, clear_errors():
            t = tenant_of(c, tenant)
            if user is None:  # --all-users
                whole = c.export.import_rdf_all_users(t, file.read_bytes(), fmt, dry_run=dry_run)
            else:
                whole = TenantImportReport([c.export.import_rdf(t, user, file.read_bytes(), fmt,
                                                                source_user=source_user, dry_run=dry_run)])
        for receipt in whole.reports:  # a receipt per user, each the report of a one-user import
            echo_json(receipt.as_dict())
        if all_users:
            done = "checked" if dry_run else "imported"
            ignored = f"; {whole.ignored} statements under none of its users ignored" if whole.ignored else ""
            typer.echo(f"{done} {len(whole.reports)} users of {file.name} into tenant {t!r}{ignored}", err=True)

    @app.command("inspect")
    def inspect_command(
        favourites: Annotated[Path | None, typer.Option(
            "--favourites", help="Write the queries as a zip; drop it on the Neo4j Browser window.",
            dir_okay=False)] = None,
        guide: Annotated[Path | None, typer.Option("--guide", help="Write the Browser guide (HTML) to FILE.",
                                                   dir_okay=False)] = None,
        tenant: Annotated[str | None, typer.Option(
            "--tenant", help="The tenant the guide's and favourites' :param lines are set to (default: 'default', "
                             "the files' own).", callback=tenant_option)] = None,
        user: Annotated[str | None, typer.Option(
            "--user", "-u", help="The user id the guide's and favourites' :param lines are set to (default: "
                                 "'alice', the files' own).", callback=user_option)] = None,
    ) -> None:
        """The Cypher queries of cypher/inspect/ for people in Neo4j Browser, and how to open them."""
        cfg = settings()
        # Left out, a parameter keeps the value its file's :param line gives (tenant 'default', user 'alice').
        params = {k: v for k, v in (("tenant", tenant), ("user_id", user)) if v is not None}
        if favourites is not None:
            write_output(favourites, browser_favourites_zip(params))
            echo(f"wrote {favourites}: drag it onto the Neo4j Browser window; the queries appear under "
                 "Favorites (star icon) in the folder bmam")
        if guide is not None:
            write_output(guide, browser_guide_html(params).encode("utf-8"))
            echo(f"wrote {guide}")
        if favourites is not None or guide is not None:
            return
        n = cfg.neo4j
        if n.is_local:
            echo(f"Neo4j Browser: http://127.0.0.1:{n.http_port}/browser/  (connect URL "
                 f"bolt://127.0.0.1:{n.bolt_port}, authentication: none)")
        else:
            echo(f"Neo4j Browser: open your server's Browser and connect to {n.uri}")
        echo(f"Guide (while `bmam serve` runs): :guide http://localhost:{cfg.api.port}/guide/bmam.html")
        echo("Favourites: bmam inspect --favourites bmam-inspect.zip, then drop the zip on the Browser\n")
        queries = inspect_queries(params)
        for q in queries:
            echo(f"  cypher/inspect/{q.file_name:<32} {q.title}")
        shared = {k: v for k, v in queries[0].params.items() if k in ("tenant", "user_id")}
        echo(f"\nIn the Browser, first: {params_command(shared)}")
