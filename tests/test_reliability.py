"""Concurrency, crashes, corrupt state, hostile docs, bad prompts and bursts."""

import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from context_router.faces.hooks import run_hook
from context_router.router import TurnRequest, route

from .conftest import REPO, write_docs

ENV_PATH = {"PYTHONPATH": str(REPO)}


def cli(*args: str, cwd, env=None, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "context_router", *args], cwd=cwd,
                            env={**os.environ, **ENV_PATH, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def status(cwd, session="default") -> dict:
    proc = cli("status", "--json", "--session", session, cwd=cwd)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return json.loads(out)


@pytest.fixture
def many_docs(tmp_path):
    write_docs(tmp_path / "docs", {f"doc{i:02}.md": f"# Doc{i:02}\nbody {i}\n" for i in range(50)})
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n")
    return tmp_path


def test_fifty_simultaneous_turns_lose_nothing(many_docs):
    # The index first: on a loaded machine a turn may leave docs to the background indexer (by design), and
    # this test is about turns racing for the state, not about indexing.
    assert cli("index", cwd=many_docs).wait(timeout=120) == 0
    procs = [cli("route", f"tell me about doc{i:02}", cwd=many_docs) for i in range(50)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert status(many_docs)["turn"] == 50
    db = sqlite3.connect(os.environ["CTX_STATE"])
    hit_turns = dict(db.execute("SELECT path, turn FROM history WHERE causes LIKE '%keyword:doc%'"))
    assert len(hit_turns) == 50  # every turn's hit was recorded ...
    assert sorted(hit_turns.values()) == list(range(1, 51))  # ... under its own turn number


def test_two_sessions_interleaved_stay_separate(many_docs):
    procs = []
    for i in range(10):
        procs.append(cli("route", f"doc{i:02}", "--session", "a", cwd=many_docs))
        procs.append(cli("route", f"doc{i + 20:02}", "--session", "b", cwd=many_docs))
    errors = []
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        errors += [line for line in err.splitlines() if "warning" in line]
    a, b = status(many_docs, "a"), status(many_docs, "b")
    assert (a["turn"], b["turn"]) == (10, 10), errors
    assert all(int(f["path"][3:5]) < 10 for f in a["files"])
    assert all(int(f["path"][3:5]) >= 20 for f in b["files"])


def test_sigkill_at_any_moment_keeps_the_last_committed_state(many_docs):
    rng = random.Random(4)
    kills = 0
    last_turn = 0
    for i in range(25):
        proc = cli("route", f"doc{i:02} again", cwd=many_docs)
        time.sleep(rng.uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        kills += proc.returncode == -signal.SIGKILL
        turn = status(many_docs)["turn"]  # readable after every kill
        assert turn in (last_turn, last_turn + 1)
        last_turn = turn
    assert kills >= 10
    proc = cli("route", "doc49", cwd=many_docs)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "HOT] doc49.md" in out
    assert status(many_docs)["turn"] == last_turn + 1


def test_a_schema_another_process_creates_meanwhile_is_not_foreign(tmp_path, monkeypatch):
    # Twenty turns start on a new state at once: one creates the schema while another is reading what the
    # file is. The reader must see either no schema or all of it, never "tables but no ctx id" (foreign, set
    # aside: every turn so far lost).
    from context_router.store import state

    path = str(tmp_path / "state.db")
    real_connect = sqlite3.connect
    raced: list[bool] = []

    class Rows(list):
        def fetchone(self):
            return self[0]

    class Racing(sqlite3.Connection):
        def execute(self, sql, *args):
            cur = super().execute(sql, *args)
            if "pragma_application_id" in sql and not raced:
                raced.append(True)
                rows = Rows(cur.fetchall())
                state.Store(path).close()  # the other process, right after this read
                return rows
            return cur

    monkeypatch.setattr(state.sqlite3, "connect", lambda *a, **k: real_connect(*a, factory=Racing, **k))
    warnings: list[str] = []
    store = state.Store(path, warnings.append)
    assert raced and not warnings and not list(tmp_path.glob("state.db.corrupt-*"))
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == state.SCHEMA_VERSION
    store.close()


def _corrupt(path, how: str) -> None:
    if how == "not sqlite":
        path.write_bytes(b"this is not a database at all" * 100)
    elif how == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    elif how == "foreign":
        path.unlink()
        other = sqlite3.connect(path)
        other.execute("CREATE TABLE invoices (id INTEGER)")
        other.commit()
        other.close()
    elif how == "newer":
        db = sqlite3.connect(path)
        db.execute("PRAGMA user_version = 99")
        db.commit()
        db.close()
    for suffix in ("-wal", "-shm"):
        if how in ("not sqlite", "truncated") and os.path.exists(str(path) + suffix):
            os.unlink(str(path) + suffix)


@pytest.mark.parametrize("how", ["not sqlite", "truncated", "foreign", "newer"])
def test_corrupt_state_is_set_aside(sample, isolated_state, how):
    for word in ("lighthouse", "vault", "kestrel", "alerts", "vision"):
        route(TurnRequest(word), str(sample))
    db = sqlite3.connect(isolated_state)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    _corrupt(isolated_state, how)
    warnings: list[str] = []
    result = route(TurnRequest("gatekeeper"), str(sample), warn=warnings.append)
    assert "HOT] systems/gatekeeper.md" in result.text and result.plan.stats.turn == 1
    assert len(warnings) == 1 and warnings[0].startswith("warning: state state.db was unusable")
    aside = list(isolated_state.parent.glob("state.db.corrupt-*"))
    assert [p.name for p in aside if not p.name.endswith(("-wal", "-shm"))]
    assert route(TurnRequest("vault"), str(sample)).plan.stats.turn == 2


def test_unreadable_stored_data_is_set_aside(sample, isolated_state):
    route(TurnRequest("vault"), str(sample))
    db = sqlite3.connect(isolated_state)
    db.execute("UPDATE meta SET value = x'ff00' WHERE key = 'index'")
    db.commit()
    db.close()
    warnings: list[str] = []
    result = route(TurnRequest("kestrel"), str(sample), warn=warnings.append)
    assert "HOT] systems/kestrel.md" in result.text and result.plan.stats.turn == 1
    assert "unreadable stored data" in warnings[0]


def test_corrupt_state_through_the_cli(ctx, sample, isolated_state):
    ctx("route", "vault", "--config", str(sample))
    isolated_state.write_bytes(b"\x00" * 4096)
    res = ctx("status", "--json", "--config", str(sample))
    assert res.code == 0 and json.loads(res.out)["turn"] == 0
    assert res.err.startswith("ctx: warning: state state.db was unusable") and res.err.count("\n") == 1


def test_hostile_docs_never_leak(tmp_path):
    secret = tmp_path / "secret"
    write_docs(secret, {"passwords.md": "# Passwords\nTOP-SECRET-VALUE\n"})
    docs = tmp_path / "docs"
    write_docs(docs, {"ok.md": "# Ok\nfine\n", "with space é.md": "# Spacey\nunicode name\n",
                      "empty.md": "", "long.md": "# Long\n" + "x" * 30_000 + "\n",
                      "huge-line.md": "# Huge\n" + "z" * 300_000 + "\n",
                      "big.md": "# Big\nheader line\n" + "y\n" * 2_000_000})
    (docs / "passwords.md").symlink_to(secret / "passwords.md")
    (docs / "outside").symlink_to(secret)
    os.mkfifo(docs / "pipe.md")
    (docs / "bin.md").write_bytes(b"\x00\x01binary")
    (docs / "bad-utf8.md").write_bytes(b"# Bad \xff\xfe utf8\n")
    try:
        os.mknod(docs / "dev.md", 0o600 | 0o020000, os.makedev(1, 3))  # a character device like /dev/null
    except (PermissionError, OSError):
        pass
    # A generous index budget: a loaded machine must not leave a doc to the background indexer here.
    (tmp_path / "config.yaml").write_text("docs: docs\nmax_doc_bytes: 1000000\ntiers: {hot: {max_files: 10}}\n"
                                          "index_budget_ms: 20000\n"
                                          "keywords: {passwords.md: [passwords], outside/passwords.md: [pw]}\n")
    warnings: list[str] = []
    prompt = "passwords pw outside/passwords.md ok spacey long big empty bad-utf8 huge pipe bin dev"
    start = time.monotonic()
    result = route(TurnRequest(prompt, budget=100_000), str(tmp_path / "config.yaml"), warn=warnings.append)
    assert time.monotonic() - start < 10  # the FIFO did not block
    assert "TOP-SECRET-VALUE" not in result.text
    shown = {e.path for e in result.plan.entries}
    assert {"ok.md", "with space é.md", "long.md", "big.md", "bad-utf8.md"} <= shown
    assert "empty.md" not in shown  # nothing to read: never a block of its own (sections.blank)
    assert not shown & {"passwords.md", "outside/passwords.md", "pipe.md", "bin.md", "dev.md"}
    huge = next(e for e in result.plan.entries if e.path == "huge-line.md")  # its one 300,000-char line fits
    assert huge.cut and "z" * 1000 not in huge.text and "[cut; not shown: " in huge.text  # no budget here
    assert len(result.text) <= 100_000
    assert "# Bad \ufffd\ufffd utf8" in result.text
    big = next(e for e in result.plan.entries if e.path == "big.md")
    assert "header only" in big.text and len(big.text) < 1000  # over max_doc_bytes: its header only
    assert any("skipped bin.md" in w for w in warnings)


def test_unreadable_doc_is_skipped_with_a_warning(tmp_path, monkeypatch):
    write_docs(tmp_path / "docs", {"alpha.md": "# Alpha\n", "locked.md": "# Locked\n"})
    real_open = os.open

    def guarded(path, flags, *args, **kw):
        if str(path).endswith("locked.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", guarded)
    warnings: list[str] = []
    result = route(TurnRequest("alpha locked"), None, str(tmp_path / "docs"), str(tmp_path), warnings.append)
    assert [e.path for e in result.plan.entries] == ["alpha.md"]
    assert warnings == ["warning: skipped locked.md: unreadable or binary"]


def test_long_and_odd_prompts(sample):
    warnings: list[str] = []
    long_prompt = "x " * 15_000 + " lighthouse"  # the keyword sits past the first 20,000 characters
    result = route(TurnRequest(long_prompt), str(sample), warn=warnings.append)
    assert "systems/lighthouse.md" not in {e.path for e in result.plan.entries}
    assert result.notices == ("note: prompt is 30,011 characters; matched on its first 20,000",)
    odd = "vault\x00\u202e\u200b 🚀 \udcff kestrel\r\n\tالعربية 中文"
    code = run_hook("claude", [], stdin=io.BytesIO(json.dumps({"prompt": odd, "cwd": str(sample.parent)}).encode()),
                    stdout=(out := io.StringIO()), stderr=io.StringIO())
    context = json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    assert code == 0 and "HOT] systems/vault.md" in context and "HOT] systems/kestrel.md" in context


def test_a_burst_of_automated_turns_is_served_read_only(tmp_path):
    write_docs(tmp_path / "docs", {"a.md": "# Alpha\n", "b.md": "# Beta\n"})
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 20, burst: 3}\n")
    config = str(tmp_path / "config.yaml")
    route(TurnRequest("alpha", host="claude"), config)
    results = [route(TurnRequest(f"automated report {i}", host="claude"), config) for i in range(20)]
    advanced = [r.advanced for r in results]
    assert advanced[:2] == [True, True] and not any(advanced[2:])
    assert results[-1].notices[0] == (
        "note: session 'default' sends turns faster than 20 a minute after 3 quick ones; this turn is shown but "
        "not saved (space the turns 3 s apart, or raise rate_limit in the config)")
    final = route(TurnRequest("status?", dry_run=True), config)
    alpha = next(e for e in final.plan.entries if e.path == "a.md")
    assert alpha.score >= 0.25  # 1.0 decayed by only the turns that advanced: still shown
    assert all(route(TurnRequest(f"by hand {i}"), config).advanced for i in range(5))  # `ctx route` is not limited


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_state_is_upgraded_keeping_its_sessions(ctx, sample, isolated_state, version):
    import marshal

    from context_router.store import state

    isolated_state.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(isolated_state)
    conn.executescript(state.SCHEMA if version == 1 else state.SCHEMA + state.SCHEMA_V2)
    conn.execute(f"PRAGMA application_id = {state.APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("INSERT INTO sessions (name, turn, bucket, semantic) VALUES ('old', 4, ?, ?)",
                 (marshal.dumps((3.0, 0.0)), marshal.dumps({})))
    conn.execute("INSERT INTO sem_docs VALUES (0, 'systems/vault.md', 0)")  # a model of the old layout
    conn.execute("INSERT INTO meta VALUES ('semantic', ?)", (marshal.dumps({"version": 1, "dims": 512, "k": 8}),))
    conn.execute("INSERT INTO scores VALUES ('old', 'systems/vault.md', 0.5, 3, 1)")
    conn.commit()
    conn.close()
    res = ctx("route", "which disk array do we use offsite?", "--config", str(sample), "--session", "old", "-f", "json")
    assert res.code == 0 and "moved to" not in res.err
    assert any(r.startswith("lexical:") for f in json.loads(res.out)["files"] for r in f["reasons"])
    status = json.loads(ctx("status", "--json", "--config", str(sample), "--session", "old").out)
    assert status["turn"] == 5
    conn = sqlite3.connect(isolated_state)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == state.SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM sem_docs WHERE dims IS NULL").fetchone()[0] == 0  # built anew
    conn.close()
