"""`-o FILE` of `bmam export`, `bmam remote export` and `bmam inspect --guide/--favourites` (write_output): the
temporary file and rename only for a regular file or a new path; a symlink followed (the link stays); a device or
a FIFO written into as it is (run as root, `-o /dev/full` put a 0644 regular file holding a user's memories in
the device's place); a file's permission bits kept, a new file's as open() gives them; the temporary file never
readable by others while it is written. And a whole-tenant export of a tenant with no users is NOT_FOUND."""

from __future__ import annotations

import os
import re
import stat
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from bmam.cli import app
from bmam.commands.export import write_output
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.errors import NotFound

runner = CliRunner()
DATA = b"<urn:a> <urn:b> <urn:c> .\n" * 1000


def _parts(folder: Path) -> list[Path]:
    """Temporary files write_output left behind."""
    return [p for p in folder.iterdir() if p.name.endswith(".part")]


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class FifoReader:
    """A thread reading a FIFO to its end (opening it blocks until a writer opens it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.path, "rb") as f:
            self.data = f.read()

    def join(self) -> bytes:
        self.thread.join(timeout=20)
        assert not self.thread.is_alive(), "the FIFO was never written"
        return self.data


# ----- write_output ----------------------------------------------------------------------------


def test_a_fifo_is_written_into_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "backup.nt"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    assert write_output(fifo, [DATA[:100], DATA[100:]]) == len(DATA)
    assert reader.join() == DATA
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _parts(tmp_path) == []


def test_a_symlink_stays_and_its_target_holds_the_output(tmp_path: Path) -> None:
    elsewhere = tmp_path / "real"
    elsewhere.mkdir()
    target = elsewhere / "backup.nt"
    target.write_bytes(b"the old backup\n")
    target.chmod(0o640)
    link = tmp_path / "latest.nt"
    link.symlink_to(target)
    write_output(link, DATA)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == DATA
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _parts(tmp_path) == [] and _parts(elsewhere) == []


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    target = tmp_path / "new.nt"
    link = tmp_path / "link.nt"
    link.symlink_to(target.name)  # relative, as `ln -s new.nt link.nt`
    write_output(link, DATA)
    assert link.is_symlink() and os.readlink(link) == "new.nt"
    assert target.read_bytes() == DATA


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_an_existing_file_keeps_its_permission_bits(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "backup.nt"
    path.write_bytes(b"old")
    path.chmod(mode)
    write_output(path, DATA)
    assert path.read_bytes() == DATA
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert _parts(tmp_path) == []


def test_a_new_file_gets_the_mode_open_gives(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    with open(plain, "wb"):
        pass
    path = tmp_path / "backup.nt"
    write_output(path, DATA)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_current_umask() == stat.S_IMODE(plain.stat().st_mode)
    previous = os.umask(0o027)
    try:
        other = tmp_path / "other.nt"
        write_output(other, DATA)
        assert stat.S_IMODE(other.stat().st_mode) == 0o640
    finally:
        os.umask(previous)


def test_the_temporary_file_is_never_readable_by_others(tmp_path: Path) -> None:
    """Checked while the export is being written: the temporary file is 0600 whatever the umask."""
    path = tmp_path / "backup.nt"
    path.write_bytes(b"old")
    path.chmod(0o644)
    seen: list[int] = []

    def pieces() -> Iterator[bytes]:
        yield DATA[:10]
        seen.extend(stat.S_IMODE(p.stat().st_mode) for p in _parts(tmp_path))
        yield DATA[10:]

    previous = os.umask(0)
    try:
        write_output(path, pieces())
    finally:
        os.umask(previous)
    assert seen == [0o600]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644 and path.read_bytes() == DATA


def test_a_failed_export_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    path = tmp_path / "backup.nt"
    path.write_bytes(b"the good backup")

    def pieces() -> Iterator[bytes]:
        yield DATA
        raise RuntimeError("the store went away")

    with pytest.raises(RuntimeError):
        write_output(path, pieces())
    assert path.read_bytes() == b"the good backup"
    assert _parts(tmp_path) == []


def test_a_folder_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(typer.Exit) as failed:
        write_output(tmp_path, DATA)
    assert failed.value.exit_code == 1


def _dev_null(monkeypatch: pytest.MonkeyPatch) -> Path:
    """/dev/null, with a guard: a write_output that would still rename over it (as root, the device replaced by a
    regular file for the whole machine) fails the test instead."""
    if not os.path.exists("/dev/null") or not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        pytest.skip("no character device /dev/null here")
    for name in ("replace", "rename"):
        monkeypatch.setattr(os, name, _refusing_dev_null(getattr(os, name)))
    return Path("/dev/null")


def _refusing_dev_null(real: Callable[..., None]) -> Callable[..., None]:
    def guarded(src: str | os.PathLike[str], dst: str | os.PathLike[str], *args: Any, **kwargs: Any) -> None:
        if os.path.realpath(dst) == "/dev/null":
            raise AssertionError(f"{src} renamed over /dev/null")
        real(src, dst, *args, **kwargs)

    return guarded


def test_dev_null_stays_a_character_device(monkeypatch: pytest.MonkeyPatch) -> None:
    null = _dev_null(monkeypatch)
    before = os.stat(null)
    assert write_output(null, DATA) == len(DATA)
    after = os.stat(null)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev, stat.S_IMODE(after.st_mode)) == (before.st_ino, before.st_rdev,
                                                                          stat.S_IMODE(before.st_mode))


# ----- the commands -----------------------------------------------------------------------------


def test_inspect_guide_to_a_symlink_a_fifo_and_dev_null(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bmam inspect --guide FILE` (no Neo4j data needed) end to end."""
    target = tmp_path / "guide-real.html"
    target.write_bytes(b"old")
    target.chmod(0o600)
    link = tmp_path / "guide.html"
    link.symlink_to(target)
    result = runner.invoke(app, ["inspect", "--guide", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and b"<html" in target.read_bytes().lower()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    guide = target.read_bytes()

    fifo = tmp_path / "guide.fifo"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    result = runner.invoke(app, ["inspect", "--guide", str(fifo)])
    assert result.exit_code == 0, result.output
    assert reader.join() == guide
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)

    null = _dev_null(monkeypatch)
    result = runner.invoke(app, ["inspect", "--guide", str(null), "--favourites", str(null)])
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert _parts(tmp_path) == []


def test_export_to_a_symlink_says_the_bytes_written(container: Container, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    tenant = f"test-{uuid.uuid4().hex[:12]}"
    container.memories.remember(tenant, RememberRequest(user_id="alice", text="I like green tea", type="FACTUAL"))
    target = tmp_path / "alice-real.nt"
    link = tmp_path / "alice.nt"
    link.symlink_to(target)
    result = runner.invoke(app, ["export", "-u", "alice", "--tenant", tenant, "-f", "nt", "-o", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and b"green tea" in target.read_bytes()
    assert f"wrote {link} ({target.stat().st_size} bytes)" in result.stderr

    null = _dev_null(monkeypatch)
    result = runner.invoke(app, ["export", "--all-users", "--tenant", tenant, "-f", "nt", "-o", str(null)])
    assert result.exit_code == 0, result.output
    written = re.search(r"wrote /dev/null \((\d+) bytes\)", result.stderr)
    assert written is not None and int(written.group(1)) > 0, result.stderr  # not a stat of the device: 0


def test_a_whole_tenant_with_no_users_is_not_found(container: Container, tmp_path: Path) -> None:
    """A mistyped --tenant gave "wrote t.nt (0 bytes)" and exit 0: an empty backup nobody noticed."""
    tenant = f"test-{uuid.uuid4().hex}"
    out = tmp_path / "t.nt"
    result = runner.invoke(app, ["export", "--all-users", "-f", "nt", "--tenant", tenant, "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert f"error [NOT_FOUND]: tenant '{tenant}' has no users" in result.stderr
    assert not out.exists() and _parts(tmp_path) == []
    result = runner.invoke(app, ["export", "--all-users", "-f", "ttl", "--tenant", tenant])
    assert result.exit_code == 1 and result.stdout == ""
    with pytest.raises(NotFound, match="has no users"):
        container.export.export_rdf(tenant, None, "nt")
    # as one user of it is (and GET /export and exportRdf, which export one user at a time)
    result = runner.invoke(app, ["export", "-u", "nobody", "-f", "nt", "--tenant", tenant, "-o", str(out)])
    assert result.exit_code == 1 and "NOT_FOUND" in result.stderr and not out.exists()
