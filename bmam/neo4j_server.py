"""The project's own local Neo4j 5.26 server: config, start (idempotent), stop (SIGTERM) and status."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from bmam.settings import Neo4jSettings

# The flags bin/neo4j would add; on a direct launch neo4j.conf's JVM lines are ignored.
JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+AlwaysPreTouch",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)

# Internal, but validated: Neo4j refuses to start on a setting name it does not know.
NETTY_QUIET_PERIOD_SETTING = "internal.dbms.bolt.netty_server_shutdown_quiet_period"


class Neo4jServerError(RuntimeError):
    """The local server could not be started or stopped; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class ServerStatus:
    running: bool
    pid: int | None
    bolt_uri: str
    http_url: str
    home: Path


class LocalNeo4j:
    """One server per data folder. The pid file and the log live in its home."""

    def __init__(self, settings: Neo4jSettings) -> None:
        self.s = settings
        self.home = settings.home
        self.conf_dir = self.home / "conf"
        self.pid_file = self.home / "run" / "bmam-neo4j.pid"
        self.log_file = self.home / "logs" / "console.log"
        self._log_offset = 0  # where this start's output begins in the (appended) console log

    # ----- paths and config -------------------------------------------------------------

    def write_config(self) -> Path:
        for sub in ("conf", "data", "logs", "plugins", "import", "run"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        conf = self.conf_dir / "neo4j.conf"
        lines = [
            "# Written by `bmam neo4j start` from bmam settings; edits are overwritten.",
            f"server.directories.data={self.home / 'data'}",
            f"server.directories.logs={self.home / 'logs'}",
            f"server.directories.plugins={self.home / 'plugins'}",
            f"server.directories.import={self.home / 'import'}",
            f"server.directories.run={self.home / 'run'}",
            "server.default_listen_address=127.0.0.1",
            "server.default_advertised_address=127.0.0.1",
            f"server.bolt.listen_address=127.0.0.1:{self.s.bolt_port}",
            f"server.bolt.advertised_address=127.0.0.1:{self.s.bolt_port}",
            f"server.http.listen_address=127.0.0.1:{self.s.http_port}",
            f"server.http.advertised_address=127.0.0.1:{self.s.http_port}",
            "server.http.enabled=true",
            "server.https.enabled=false",
            # Loopback only, so auth is off by default; point NEO4J_URI at a secured server otherwise.
            "dbms.security.auth_enabled=false",
            "dbms.usage_report.enabled=false",
            "client.allow_telemetry=false",
            f"server.memory.pagecache.size={self.s.pagecache}",
            f"db.transaction.timeout={int(self.s.tx_timeout_s * 4)}s",
            # A connection silent for keep-alive x probes after a request is stale to the driver (the
            # settings say why); a long request gets a NOOP each keep-alive, checked twice as often.
            "server.bolt.connection_keep_alive_for_requests=ALL",
            f"server.bolt.connection_keep_alive={self.s.bolt_keep_alive_s}s",
            f"server.bolt.connection_keep_alive_probes={self.s.bolt_keep_alive_probes}",
            f"server.bolt.connection_keep_alive_streaming_scheduling_interval={max(1, self.s.bolt_keep_alive_s // 2)}s",
            "db.tx_log.rotation.retention_policy=1 days",
            # A stop waited 5 s for nothing: Bolt's Netty event loops shut down after a quiet period (5 s by
            # default) that comes after the databases are closed and every connection stopped, so no work can
            # arrive in it. Neo4j's own test servers set it to 0 too. Every stop and restart is 5 s shorter.
            f"{NETTY_QUIET_PERIOD_SETTING}=0",
            "",
        ]
        conf.write_text("\n".join(lines), encoding="utf-8")
        return conf

    def command(self) -> list[str]:
        classpath = f"{self.home / 'plugins'}/*:{self.s.lib_dir}/*"
        return [
            self.s.java,
            f"-Xms{self.s.heap}",
            f"-Xmx{self.s.heap}",
            *JVM_FLAGS,
            *self.s.jvm_flags,
            "-cp",
            classpath,
            "org.neo4j.server.CommunityEntryPoint",
            f"--home-dir={self.home}",
            f"--config-dir={self.conf_dir}",
            "--console-mode",
        ]

    # ----- status ----------------------------------------------------------------------

    def _pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        # A recycled pid is not our server: check its command line.
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return pid
        return pid if b"CommunityEntryPoint" in cmdline else None

    def status(self) -> ServerStatus:
        pid = self._pid()
        return ServerStatus(
            running=pid is not None and _port_open(self.s.bolt_port),
            pid=pid,
            bolt_uri=self.s.bolt_uri,
            http_url=f"http://127.0.0.1:{self.s.http_port}/browser/",
            home=self.home,
        )

    # ----- start and stop --------------------------------------------------------------

    def start(self) -> ServerStatus:
        """Start the server unless ours already runs; wait until Bolt answers."""
        pid = self._pid()
        if pid is not None:
            self._wait_for_bolt(pid)
            return self.status()
        if shutil.which(self.s.java) is None and not Path(self.s.java).is_file():
            raise Neo4jServerError(
                f"Java not found ({self.s.java!r}). Install Java 17 (Debian: apt-get install openjdk-17-jre-headless)."
            )
        if not any(self.s.lib_dir.glob("neo4j-5.26.*.jar")):
            raise Neo4jServerError(
                f"Neo4j jars missing in {self.s.lib_dir}. Fetch them with: "
                "mvn -q -B -f deploy/pom.xml dependency:copy-dependencies"
            )
        for port in (self.s.bolt_port, self.s.http_port):
            if _port_open(port):
                raise Neo4jServerError(
                    f"port 127.0.0.1:{port} is already taken by another process; stop it, or set "
                    "BMAM_NEO4J__BOLT_PORT / BMAM_NEO4J__HTTP_PORT, or point NEO4J_URI at that server."
                )
        self.write_config()
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        self._log_offset = self.log_file.stat().st_size if self.log_file.exists() else 0
        with open(self.log_file, "ab") as log:
            process = subprocess.Popen(
                self.command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.home,
                start_new_session=True,  # survives the CLI that started it
            )
        self.pid_file.write_text(str(process.pid))
        self._wait_for_bolt(process.pid, process)
        return self.status()

    def _wait_for_bolt(self, pid: int, process: subprocess.Popen[bytes] | None = None) -> None:
        deadline = time.monotonic() + self.s.start_timeout_s
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                self.pid_file.unlink(missing_ok=True)
                raise Neo4jServerError(f"Neo4j exited with status {process.returncode}.\n{self.log_tail()}")
            if process is None and not _alive(pid):
                raise Neo4jServerError(f"Neo4j (pid {pid}) died.\n{self.log_tail()}")
            if _port_open(self.s.bolt_port) and (process is None or "Started." in self._log_text(self._log_offset)):
                return
            time.sleep(0.5)
        raise Neo4jServerError(f"Neo4j did not answer on Bolt within {self.s.start_timeout_s:.0f}s.\n{self.log_tail()}")

    def stop(self, timeout_s: float = 60.0) -> bool:
        """SIGTERM and wait: Neo4j checkpoints and closes its stores, so data survives."""
        pid = self._pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.2)
        if _alive(pid):
            raise Neo4jServerError(f"Neo4j (pid {pid}) did not stop within {timeout_s:.0f}s")
        self.pid_file.unlink(missing_ok=True)
        return True

    def _log_text(self, offset: int = 0) -> str:
        try:
            with open(self.log_file, "rb") as log:
                log.seek(max(offset, self.log_file.stat().st_size - 200_000))
                return log.read().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 25) -> str:
        tail = self._log_text().splitlines()[-lines:]
        return f"--- last lines of {self.log_file} ---\n" + "\n".join(tail)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); read its state.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (OSError, IndexError):
        return True
    return state != "Z"


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0
