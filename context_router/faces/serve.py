"""The resident server: hook turns answered by a process that has already imported ctx.

A hook turn is a whole Python process per prompt, and most of what it costs beyond the floor of any Python +
SQLite hook is importing and warming up what a turn needs. The first hook turn runs in its own process and
starts, detached, one server per user and per installed copy of ctx; later turns hand their arguments, working
folder, environment and payload over a Unix socket and print the server's answer. The server runs each turn
exactly as the hook would (the same function, the client's environment and folder), one at a time, and exits
after `IDLE_S` seconds without a turn. Between turns it starts observing the docs folders it served
(store/observe.py): a turn whose folder reported no change skips its scan.

Whatever goes wrong on the way (no server, a dead socket, a server that stops mid-turn or answers nonsense),
the client runs the turn itself: the prompt is never blocked by the server. A server of another copy of ctx
(upgraded, or edited in place) is never asked: the socket's name carries a digest of this copy's files.
`CTX_SERVE=0` turns it off; `CTX_SERVE_DIR` puts the sockets elsewhere.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

SERVE_ENV = "CTX_SERVE"
SERVE_DIR_ENV = "CTX_SERVE_DIR"
IDLE_S = 900.0  # a server with no turn for this long exits
ANSWER_S = 20.0  # a client waits this long for the server's answer, then runs the turn itself
REQUEST_S = 5.0  # a server waits this long for a client's whole request
START_EVERY_S = 10.0  # a client starts a server at most this often


def enabled() -> bool:
    return os.environ.get(SERVE_ENV, "1") != "0"


def folder() -> str:
    """The folder of this user's sockets (private to the user)."""
    base = os.environ.get(SERVE_DIR_ENV)
    if base:
        return base
    return os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "/tmp", f"ctx-{os.getuid()}")


def key() -> str:
    """A digest of this copy of ctx: its environment (`sys.prefix`: `python` and `python3` of one virtual
    environment are one), and every module's path, size and time. A server answers only clients of the very
    code it runs."""
    import zlib

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [sys.prefix, package]
    for sub in ("", "faces", "store", "turn"):
        where = os.path.join(package, sub)
        with os.scandir(where) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name.endswith(".py"):
                    st = entry.stat()
                    parts.append(f"{sub}/{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    return format(zlib.crc32("\n".join(parts).encode("utf-8", "surrogateescape")), "08x")


def paths() -> tuple[str, str, str]:
    """(socket, pid file, lock file) of this copy's server."""
    stem = os.path.join(folder(), f"serve-{key()}")
    return stem + ".sock", stem + ".pid", stem + ".lock"


# -- the client: one hook turn ---------------------------------------------------------------------------------

def served(args: list[str], raw: bytes) -> int | None:
    """Hand the hook turn `ctx hook *args` with payload `raw` to the server and print its answer: its exit code,
    or None when no server answered (the caller runs the turn; a server is started when none ran)."""
    import _socket  # the C module: `socket` would import enum and selectors, milliseconds on every prompt
    import marshal

    try:
        sock_path, _, lock_path = paths()
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    except (OSError, AttributeError):
        return None  # no Unix sockets or user ids here: every turn runs in its own process
    try:
        conn.settimeout(ANSWER_S)
        try:
            conn.connect(sock_path)
        except (FileNotFoundError, ConnectionRefusedError):
            _start(lock_path)
            return None
        conn.sendall(marshal.dumps((args, os.getcwd(), dict(os.environ), raw)))
        conn.shutdown(_socket.SHUT_WR)
        out, err, code = _answer(marshal.loads(_read_all(conn)))
    except (OSError, ValueError, EOFError, TypeError):
        return None
    finally:
        conn.close()
    _write(sys.stdout, out)
    _write(sys.stderr, err)
    return code


def _answer(reply: Any) -> tuple[str, str, int]:
    out, err, code = reply
    if not (isinstance(out, str) and isinstance(err, str) and isinstance(code, int)):
        raise ValueError("not a server's answer")
    return out, err, code


def _read_all(conn: Any) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _write(stream: Any, text: str) -> None:
    if text and stream is not None:
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):
            pass  # the host stopped reading


def _start(lock_path: str) -> None:
    """Start a detached server (without the subprocess module, which costs a hook milliseconds to import),
    unless one was started in the last START_EVERY_S seconds: one that cannot come up is not started again
    on every prompt. The lock file's time says when one was last started."""
    import time

    try:
        if time.time() - os.stat(lock_path).st_mtime < START_EVERY_S:
            return
        os.utime(lock_path)
    except FileNotFoundError:
        try:  # never started here
            os.makedirs(os.path.dirname(lock_path), mode=0o700, exist_ok=True)
            os.close(os.open(lock_path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
        except OSError:
            return
    except OSError:
        return
    devnull = os.devnull
    try:
        os.posix_spawn(sys.executable, [sys.executable, "-m", "context_router", "serve"], dict(os.environ),
                       file_actions=[(os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
                                     (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
                                     (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0)],
                       setsid=True)
    except (OSError, AttributeError):
        pass  # no server then: every turn runs in its own process, as without one


# -- the server ------------------------------------------------------------------------------------------------

def serve(idle: float = IDLE_S) -> bool:
    """Answer hook turns until `idle` seconds pass without one. False when this copy's server runs already."""
    import fcntl
    import signal
    import socket

    from ..errors import CtxError
    from ..store import observe, state

    try:  # loaded once here, numpy sums a turn's semantic cosines (turn/semantic.py: similarities)
        import numpy  # noqa: F401
    except ImportError:
        pass
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `ctx serve --stop`: the socket goes with the server

    where = folder()
    try:
        os.makedirs(where, mode=0o700, exist_ok=True)
        st = os.stat(where)
    except OSError as exc:
        raise CtxError(f"cannot use {where} for the server's socket: {exc.strerror}") from exc
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise CtxError(f"{where} is not private to this user (mode {st.st_mode & 0o777:o}): not serving there")
    sock_path, pid_path, lock_path = paths()
    lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        return False
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if os.path.exists(sock_path):
            os.unlink(sock_path)  # a dead server's: we hold the lock
        # The pid first: once the socket is there, running() (`ctx doctor`, `ctx serve --stop`) finds the pid
        # whole; written after it, a doctor run in between said the server was not running.
        with open(pid_path, "w", encoding="ascii") as fh:
            fh.write(str(os.getpid()))
        listener.bind(sock_path)
        os.chmod(sock_path, 0o600)
        listener.listen(16)
        listener.settimeout(idle)
        state.CLOSE_LATER, state.KEPT = [], {}
        observe.OBSERVING = {}
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                return True
            with conn:
                _turn(conn)
            _close_later(state.CLOSE_LATER)
            state.settle_kept()
            observe.settle()
    finally:
        listener.close()
        observe.stop_all()
        _close_later([held[2] for held in (state.KEPT or {}).values()])
        for path in (sock_path, pid_path):
            try:
                os.unlink(path)
            except OSError:
                pass
        os.close(lock)


def _close_later(conns: list[Any] | None) -> None:
    """Close the turn's database connections, its answer sent."""
    while conns:
        try:
            conns.pop().close()
        except Exception:  # noqa: BLE001 - a connection that fails to close is gone either way
            pass


def _turn(conn: Any) -> None:
    """One client's hook turn, run as the hook runs it, in the client's folder and environment."""
    import io
    import marshal

    from .hooks import run_hook

    try:
        conn.settimeout(REQUEST_S)
        args, cwd, env, raw = marshal.loads(_read_all(conn))
        if not (isinstance(args, list) and args and all(isinstance(a, str) for a in args) and isinstance(cwd, str)
                and isinstance(env, dict) and isinstance(raw, bytes)):
            return
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        out, err = io.StringIO(), io.StringIO()
        stdin: BinaryIO = io.BytesIO(raw)
        code = run_hook(args[0], args[1:], stdin, out, err)
        conn.settimeout(ANSWER_S)
        conn.sendall(marshal.dumps((out.getvalue(), err.getvalue(), code)))
    except Exception:  # noqa: BLE001 - a bad request or a gone client ends that connection, not the server
        return


def running() -> int | None:
    """The pid of this copy's server, or None when none runs."""
    sock_path, pid_path, _ = paths()
    try:
        with open(pid_path, encoding="ascii") as fh:
            pid = int(fh.read().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid if os.path.exists(sock_path) else None


def stop() -> int | None:
    """Stop this copy's server: its pid, or None when none runs."""
    import signal

    pid = running()
    if pid is None:
        return None
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        return None
    return pid
