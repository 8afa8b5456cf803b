"""ctx watch through the real watchdog observer."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from context_router.errors import StateError
from context_router.faces.watch import Watcher
from context_router.router import TurnRequest, route
from context_router.store.state import watch_alive

from .conftest import REPO, write_docs

TIMEOUT = 15


def poll_until(watcher: Watcher, predicate) -> list:
    seen: list = []
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        seen += watcher.poll()
        if predicate(seen):
            return seen
        time.sleep(0.1)
    raise AssertionError(f"watch did not report it within {TIMEOUT}s: {seen}")


@pytest.fixture
def project(tmp_path):
    write_docs(tmp_path / "docs", {"a.md": "# Alpha\n", "sub/b.md": "# Beta\n"})
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n")
    return tmp_path


def test_watch_reports_changes_and_turns_trust_the_index(project):
    watcher = Watcher(str(project / "config.yaml"))
    watcher.start()
    try:
        assert watch_alive(watcher.ws.store.folder)
        (project / "docs" / "gamma.md").write_text("# Gamma\n")
        # Trusting the watcher's index, a turn does not scan: the new doc is not known until the watcher says so.
        early = route(TurnRequest("gamma"), str(project / "config.yaml"))
        events = poll_until(watcher, lambda ev: any(e.kind == "added" and e.path == "gamma.md" for e in ev))
        assert events[-1].line() == "added    gamma.md"
        later = route(TurnRequest("gamma", session="other"), str(project / "config.yaml"))
        assert "gamma.md" not in early.text and "HOT] gamma.md" in later.text
        (project / "docs" / "sub" / "b.md").write_text("# Beta\nmore\n")
        poll_until(watcher, lambda ev: any(e.line() == "changed  sub/b.md" for e in ev))
        (project / "docs" / "a.md").unlink()
        poll_until(watcher, lambda ev: any(e.line() == "removed  a.md" for e in ev))
        (project / "config.yaml").write_text("docs: docs\nkeywords: {gamma.md: [third letter]}\n")
        poll_until(watcher, lambda ev: any(e.kind == "config" for e in ev))
        assert "HOT] gamma.md" in route(TurnRequest("the third letter", session="k"),
                                        str(project / "config.yaml")).text
        (project / "config.yaml").write_text("tiers: {hot: {threshold: 7}}\n")
        events = poll_until(watcher, lambda ev: any(e.kind == "error" for e in ev))
        assert "keeping the previous one" in events[-1].line()
    finally:
        watcher.stop()
    assert not watch_alive(watcher.ws.store.folder)


def test_only_one_watcher(project):
    first = Watcher(str(project / "config.yaml"))
    first.start()
    try:
        second = Watcher(str(project / "config.yaml"))
        with pytest.raises(StateError, match="another ctx watch is already running"):
            second.start()
        second.stop()
    finally:
        first.stop()


@pytest.mark.parametrize("inherited", [signal.SIG_DFL, signal.SIG_IGN])
def test_watch_command_exits_cleanly_on_ctrl_c(project, inherited):
    # SIG_IGN: started from a script's background job, which leaves SIGINT ignored in what it starts.
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "context_router", "watch", "--config", "config.yaml"],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, inherited))
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("watching ")
        (project / "docs" / "new doc é.md").write_text("# New\n")
        assert proc.stdout.readline().strip() == "added    new doc é.md"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:  # it did not stop: stopped here, and the test fails
            proc.kill()
            proc.communicate()
            raise
    assert proc.returncode == 0, err
    assert out.strip() == "stopped"
    status = subprocess.run([sys.executable, "-m", "context_router", "status", "--json"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert json.loads(status.stdout)["turn"] == 0


def test_a_big_change_is_stored_in_batches_and_a_turn_never_waits_long(project, monkeypatch):
    import threading

    from context_router.faces import watch as watch_mod

    monkeypatch.setattr(watch_mod, "WATCH_BATCH", 50)
    watcher = Watcher(str(project / "config.yaml"))
    watcher.start()
    try:
        commits: list[float] = []
        store = watcher.ws.store
        real = store.transaction

        def timed():
            txn = real()
            enter, leave = txn.__enter__, txn.__exit__

            class Timed:
                def __enter__(self):
                    self.start = time.monotonic()
                    return enter()

                def __exit__(self, *exc):
                    commits.append(time.monotonic() - self.start)
                    return leave(*exc)

            return Timed()

        monkeypatch.setattr(store, "transaction", timed)
        write_docs(project / "docs", {f"new/n{i:03}.md": f"# New {i:03}\n\nnumbat{i:03}\n" for i in range(300)})
        poll_until(watcher, lambda seen: sum(e.kind == "added" for e in seen) >= 300)
        assert len(commits) >= 6  # 300 docs in batches of 50, each its own transaction
        waited: list[float] = []

        def turn() -> None:
            start = time.monotonic()
            route(TurnRequest("numbat299", host="claude"), str(project / "config.yaml"))
            waited.append(time.monotonic() - start)

        worker = threading.Thread(target=turn)
        worker.start()
        worker.join(30)
        assert waited and waited[0] < 5
    finally:
        watcher.stop()
    out = route(TurnRequest("numbat299"), str(project / "config.yaml")).text
    assert "new/n299.md" in out
