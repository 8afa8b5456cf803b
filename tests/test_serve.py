"""The resident server: a hook turn it answers is the turn the hook would have run; whatever goes wrong on the
way, the hook runs the turn itself and the prompt goes through."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from context_router.faces import serve

from .conftest import REPO, write_docs

WAIT_S = 30.0  # an upper bound for a process to come up or go: the tests never depend on how fast it is


def _project(tmp_path: Path) -> Path:
    write_docs(tmp_path / "proj" / "docs", {"systems/harbor.md": "# Harbor\n\nThe ingest host.\n",
                                            "modules/billing.md": "# Billing\n\nInvoices and refunds.\n"})
    (tmp_path / "proj" / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n",
                                                   encoding="utf-8")
    return tmp_path / "proj"


def _env(tmp_path: Path, on: bool) -> dict[str, str]:
    # PYTHONPATH: the processes run this checkout's ctx, as the test does (the socket's name is its digest)
    env = {**os.environ, "CTX_SERVE_DIR": str(tmp_path / "sv"), "CTX_SERVE": "1" if on else "0",
           "PYTHONPATH": str(REPO)}
    env.pop("CTX_STATE", None)  # the state beside the project's config, as a user has it
    return env


def _hook(proj: Path, env: dict[str, str], prompt: str, session: str) -> subprocess.CompletedProcess[bytes]:
    payload = json.dumps({"session_id": session, "prompt": prompt, "cwd": str(proj),
                          "hook_event_name": "UserPromptSubmit"}).encode()
    return subprocess.run([sys.executable, "-m", "context_router", "hook", "claude"], input=payload, cwd=proj,
                          env=env, capture_output=True, timeout=WAIT_S)


def _server(cwd: Path, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    """`ctx serve ARGS` started by hand, its output dropped; the test stops it by its pid."""
    return subprocess.Popen([sys.executable, "-m", "context_router", "serve", *args], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait(predicate, what: str) -> None:
    end = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _paths(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, str]:
    monkeypatch.setenv("CTX_SERVE_DIR", env["CTX_SERVE_DIR"])
    return serve.paths()


def _stop(pid_path: str) -> None:
    try:
        pid = int(Path(pid_path).read_text())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass


@pytest.fixture(autouse=True)
def no_server_left(tmp_path):
    """Whatever a test's hook turns started in its folders is stopped by its pid when the test ends."""
    yield
    for pid_file in tmp_path.glob("*/serve-*.pid"):
        _stop(str(pid_file))


def test_the_first_turn_starts_the_server_and_the_next_turns_are_answered_by_it(tmp_path, monkeypatch, capsys):
    proj = _project(tmp_path)
    on, off = _env(tmp_path, True), _env(tmp_path, False)
    sock, pid_path, _ = _paths(on, monkeypatch)
    first = _hook(proj, on, "harbor", "s")  # no server yet: the turn runs here, and a server is started
    try:
        assert first.returncode == 0 and b"systems/harbor.md" in first.stdout
        _wait(lambda: os.path.exists(sock) and os.path.exists(pid_path), "the server")
        monkeypatch.delenv("CTX_STATE")
        monkeypatch.chdir(proj)
        payload = json.dumps({"session_id": "s", "prompt": "how are refunds issued?", "cwd": str(proj),
                              "hook_event_name": "UserPromptSubmit"}).encode()
        capsys.readouterr()
        assert serve.served(["claude"], payload) == 0  # answered by the server, not run here
        assert "modules/billing.md" in json.loads(capsys.readouterr().out)["hookSpecificOutput"]["additionalContext"]
        status = subprocess.run([sys.executable, "-m", "context_router", "status", "--json", "--session", "s"],
                                cwd=proj, env=off, capture_output=True, text=True, timeout=WAIT_S)
        assert json.loads(status.stdout)["turn"] == 2  # the served turn is the session's second
    finally:
        _stop(pid_path)
    _wait(lambda: not os.path.exists(sock), "the server to stop")


def test_served_and_unserved_sessions_print_the_same_turns(tmp_path, monkeypatch):
    proj = _project(tmp_path)
    on, off = _env(tmp_path, True), _env(tmp_path, False)
    sock, pid_path, _ = _paths(on, monkeypatch)
    server = _server(tmp_path, on)
    try:
        _wait(lambda: os.path.exists(sock), "the server")
        for prompt in ["harbor", "how are refunds issued?", "ok", "the ingest host"]:
            served, alone = _hook(proj, on, prompt, "a"), _hook(proj, off, prompt, "b")
            assert served.returncode == alone.returncode == 0
            assert served.stdout == alone.stdout and served.stderr == alone.stderr
    finally:
        server.terminate()
        server.wait(timeout=WAIT_S)
    assert not os.path.exists(sock)


def test_a_dead_socket_or_a_server_that_answers_nonsense_leaves_the_turn_to_the_hook(tmp_path, monkeypatch):
    import socket
    import threading

    proj = _project(tmp_path)
    on = {**_env(tmp_path, True), "CTX_SERVE_DIR": str(tmp_path / "fake")}
    sock_path, _, _ = _paths(on, monkeypatch)
    os.makedirs(os.path.dirname(sock_path), mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(4)

    def nonsense() -> None:
        for _ in range(2):
            conn, _ = listener.accept()
            with conn:
                conn.recv(1 << 20)
                conn.sendall(b"not marshal at all" if _ == 0 else b"")

    thread = threading.Thread(target=nonsense, daemon=True)
    thread.start()
    for _ in range(2):
        done = _hook(proj, on, "harbor", "s")
        assert done.returncode == 0 and b"systems/harbor.md" in done.stdout
    thread.join(timeout=WAIT_S)
    listener.close()
    os.unlink(sock_path)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # bound, never listening: refused
    dead.bind(sock_path)
    try:
        monkeypatch.setattr(serve, "_start", lambda lock: None)
        assert serve.served(["claude"], b"{}") is None
    finally:
        dead.close()


def test_a_bad_request_does_not_end_the_server_and_it_exits_when_idle(tmp_path, monkeypatch):
    import socket

    proj = _project(tmp_path)
    on = _env(tmp_path, True)
    sock, _, _ = _paths(on, monkeypatch)
    server = subprocess.Popen([sys.executable, "-m", "context_router", "serve", "--idle", "2"], cwd=tmp_path,
                              env=on, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait(lambda: os.path.exists(sock), "the server")
        for garbage in (b"\x00\x01garbage", b""):
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.connect(sock)
            conn.sendall(garbage)
            conn.shutdown(socket.SHUT_WR)
            assert conn.recv(100) == b""  # no answer, the connection closed
            conn.close()
        assert b"systems/harbor.md" in _hook(proj, on, "harbor", "s").stdout
        assert server.wait(timeout=WAIT_S) == 0  # two seconds without a turn: it exits, and tidies up
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert not os.path.exists(sock)


def test_a_second_server_of_the_same_copy_does_not_start_and_stop_names_what_it_stopped(tmp_path, monkeypatch):
    on = _env(tmp_path, True)
    sock, _, _ = _paths(on, monkeypatch)
    server = _server(tmp_path, on)
    try:
        _wait(lambda: os.path.exists(sock), "the server")
        second = subprocess.run([sys.executable, "-m", "context_router", "serve"], cwd=tmp_path, env=on,
                                capture_output=True, text=True, timeout=WAIT_S)
        assert second.returncode == 0 and "running already" in second.stdout
        stop = subprocess.run([sys.executable, "-m", "context_router", "serve", "--stop"], cwd=tmp_path, env=on,
                              capture_output=True, text=True, timeout=WAIT_S)
        assert stop.returncode == 0 and f"pid {server.pid}" in stop.stdout
        assert server.wait(timeout=WAIT_S) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    again = subprocess.run([sys.executable, "-m", "context_router", "serve", "--stop"], cwd=tmp_path, env=on,
                           capture_output=True, text=True, timeout=WAIT_S)
    assert again.returncode == 1 and again.stderr.strip() == "ctx: error: no ctx server is running"


def test_serve_errors(ctx, tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    monkeypatch.setenv("CTX_SERVE_DIR", str(shared))
    done = ctx("serve")
    assert done.code == 1
    assert done.err.strip() == f"ctx: error: {shared} is not private to this user (mode 755): not serving there"
    done = ctx("serve", "--idle", "0")
    assert done.code == 2 and "--idle must be above 0, got 0.0" in done.err


def test_the_key_follows_the_code(tmp_path, monkeypatch):
    before = serve.key()
    assert before == serve.key() and len(before) == 8
    mod = Path(serve.__file__)
    stamp = mod.stat()
    try:
        os.utime(mod, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000_000))
        assert serve.key() != before  # an edited or reinstalled copy asks a server of its own
    finally:
        os.utime(mod, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert serve.key() == before


def test_a_server_that_cannot_come_up_is_not_started_again_on_every_prompt(tmp_path, monkeypatch):
    started: list[list[str]] = []
    monkeypatch.setattr(os, "posix_spawn", lambda path, argv, env, **kw: started.append(argv))
    monkeypatch.setenv("CTX_SERVE_DIR", str(tmp_path / "sv"))
    lock = serve.paths()[2]
    serve._start(lock)
    serve._start(lock)  # the first one did not come up: no second one within START_EVERY_S
    assert [argv[1:] for argv in started] == [["-m", "context_router", "serve"]]
    assert (tmp_path / "sv").stat().st_mode & 0o777 == 0o700
    old = time.time() - serve.START_EVERY_S - 1
    os.utime(lock, (old, old))
    serve._start(lock)
    assert len(started) == 2


def test_in_the_server_a_turns_connections_are_closed_after_its_answer(tmp_path, monkeypatch):
    import sqlite3

    from context_router.store import state

    monkeypatch.setattr(state, "CLOSE_LATER", [])
    store = state.Store(str(tmp_path / "state.db"))
    store.close()
    assert state.CLOSE_LATER == [store.conn]
    store.conn.execute("SELECT 1")  # still open: its close waits for the answer
    serve._close_later(state.CLOSE_LATER)
    assert state.CLOSE_LATER == []
    with pytest.raises(sqlite3.ProgrammingError):
        store.conn.execute("SELECT 1")


def test_in_the_server_a_states_connection_is_kept_from_turn_to_turn_while_the_file_is_the_same(tmp_path,
                                                                                                 monkeypatch):
    import sqlite3

    from context_router.store import state

    monkeypatch.setattr(state, "KEPT", {})
    path = str(tmp_path / "state.db")
    first = state.Store(path)
    first.close()
    first.conn.execute("SELECT 1")  # still open
    second = state.Store(path)
    assert second.conn is first.conn
    with second.transaction():
        third = state.Store(path)  # a store opened while another is in a transaction gets its own
        assert third.conn is not second.conn
        third.close()
    os.replace(path, path + ".old")  # another file at the path: opened afresh, the old connection closed
    fourth = state.Store(path)
    assert fourth.conn is not first.conn
    with pytest.raises(sqlite3.ProgrammingError):
        first.conn.execute("SELECT 1")
    fourth.conn.execute("BEGIN")  # a failed turn's transaction left open: closed before the next turn
    state.settle_kept()
    assert state.KEPT == {}
    for n in range(state.KEPT_STATES + 1):  # only the last few states stay open
        state.Store(str(tmp_path / f"s{n}.db")).close()
    assert sorted(os.path.basename(k) for k in state.KEPT) == [f"s{n}.db" for n in range(1, state.KEPT_STATES + 1)]


def test_a_kept_connection_to_a_state_another_ctx_changed_is_checked_again(tmp_path, monkeypatch):
    from context_router.store import state

    monkeypatch.setattr(state, "KEPT", {})
    path = str(tmp_path / "state.db")
    state.Store(path).close()
    kept = state.KEPT[path][2]
    kept.execute(f"PRAGMA user_version = {state.SCHEMA_VERSION + 1}")  # another ctx's schema
    store = state.Store(path)  # as a new process would: that file set aside, a fresh state started
    assert store.conn is not kept and state.KEPT[path][2] is store.conn
    assert [p.name for p in tmp_path.glob("state.db.corrupt-*")]


def test_doctor_says_whether_the_server_runs(tmp_path, monkeypatch):
    from context_router.faces import doctor

    assert "hook server: off ($CTX_SERVE=0 here)" in doctor._server_check().message
    on = _env(tmp_path, True)
    sock, _, _ = _paths(on, monkeypatch)
    monkeypatch.setenv("CTX_SERVE", "1")
    assert "not running; the next hook turn starts it" in doctor._server_check().message
    server = _server(tmp_path, on)
    try:
        _wait(lambda: os.path.exists(sock), "the server")
        assert f"running (pid {server.pid})" in doctor._server_check().message
    finally:
        server.terminate()
        server.wait(timeout=WAIT_S)


def test_the_server_writes_its_pid_before_its_socket(tmp_path, monkeypatch):
    """Once the socket is there, `ctx doctor` and `ctx serve --stop` find the server's pid: written after the
    socket, a doctor run in between said the server was not running."""
    import socket

    from context_router.store import observe, state

    _, pid_path, _ = _paths(_env(tmp_path, True), monkeypatch)
    at_bind: list[str | None] = []
    bind = socket.socket.bind

    def watched(self, address):
        at_bind.append(Path(pid_path).read_text() if os.path.exists(pid_path) else None)
        return bind(self, address)

    monkeypatch.setattr(socket.socket, "bind", watched)
    monkeypatch.setattr(signal, "signal", lambda *_: None)  # the test's own process: no SIGTERM handler
    monkeypatch.setattr(state, "KEPT", {})
    monkeypatch.setattr(state, "CLOSE_LATER", [])
    monkeypatch.setattr(observe, "OBSERVING", {})
    assert serve.serve(idle=0.01) is True  # no turn comes: it stops idle
    assert at_bind == [str(os.getpid())]
    assert not os.path.exists(pid_path)  # and leaves nothing behind


def test_where_there_is_no_socket_to_be_had_the_hook_runs_the_turn_itself(monkeypatch):
    def unusable() -> str:
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(serve, "folder", unusable)
    assert serve.served(["claude"], b"{}") is None


def test_a_served_turn_sees_an_edit_in_place_and_a_new_doc(tmp_path, monkeypatch):
    """The server observes the docs folder and stops scanning it while nothing changes: a change is never
    lost for it."""
    proj = _project(tmp_path)
    on = _env(tmp_path, True)
    sock, pid_path, _ = _paths(on, monkeypatch)
    server = _server(tmp_path, on)
    try:
        _wait(lambda: os.path.exists(sock), "the server")
        for _ in range(3):  # observed, then proven by a full scan: these turns trust the index
            assert _hook(proj, on, "harbor", "s").returncode == 0
        (proj / "docs" / "modules" / "billing.md").write_text("# Billing\n\nWalrus tusks are invoiced here.\n")
        (proj / "docs" / "systems" / "lighthouse.md").write_text("# Lighthouse\n\nThe narwhal beacon.\n")

        def shown(prompt: str, path: str) -> bool:
            return path in _hook(proj, on, prompt, "s").stdout.decode()

        _wait(lambda: shown("walrus tusks", "modules/billing.md"), "the edit in a served turn")
        _wait(lambda: shown("narwhal beacon", "systems/lighthouse.md"), "the new doc in a served turn")
    finally:
        server.terminate()
        server.wait(timeout=WAIT_S)
