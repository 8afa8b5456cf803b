"""Gemini CLI's history as ctx reads it from the session file (faces/gemini.py): the records as the client
writes them, its token estimate, its threshold, and where its compression splits the history."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_router.faces import gemini


def write(path, *records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records),
                    encoding="utf-8")
    return str(path)


def user(i, text):
    return {"id": f"u{i}", "type": "user", "content": [{"text": text}]}


def reply(i, tokens=None, **fields):
    out = {"id": f"g{i}", "type": "gemini", "content": "ok", "model": "gemini-3.8-flash", **fields}
    if tokens is not None:
        out["tokens"] = {"input": tokens, "output": 1, "cached": 0, "thoughts": 0, "tool": 0, "total": tokens + 1}
    return out


HEADER = {"sessionId": "s", "projectHash": "p", "startTime": "2026-12-01T23:51:02.713Z", "kind": "main"}


def test_records_add_replace_set_and_rewind(tmp_path):
    path = write(tmp_path / "s.jsonl", HEADER, {"$set": {"messages": [user(0, "<session_context>")]}},
                 user(1, "a"), reply(1), reply(1, tokens=70), {"$set": {"lastUpdated": "x"}},
                 user(2, "b"), reply(2, tokens=90), {"$rewindTo": "u2"})
    history = gemini.read_history(path)
    assert history is not None
    assert [(r, p[0].get("text")) for r, p in history.entries] == [("user", "<session_context>"), ("user", "a"),
                                                                    ("model", "ok")]
    assert history.tokens == 90 and history.model == "gemini-3.8-flash"  # a rewind keeps the client's count


def test_a_history_set_anew_or_a_new_process_is_estimated(tmp_path):
    base = [HEADER, user(1, "a"), reply(1, tokens=70)]
    assert gemini.read_history(write(tmp_path / "a.jsonl", *base)).tokens == 70
    assert gemini.read_history(write(tmp_path / "b.jsonl", *base, {"$set": {"messages": [user(1, "a")]}})).tokens \
        is None
    assert gemini.read_history(write(tmp_path / "c.jsonl", *base, HEADER)).tokens is None


def test_tool_calls_and_their_results_are_entries(tmp_path):
    call = {"id": "c1", "name": "read_file", "args": {"absolute_path": "/p/x.md"},
            "result": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "x"}}}]}
    history = gemini.read_history(write(tmp_path / "t.jsonl", user(1, "a"), reply(1, toolCalls=[call])))
    assert [r for r, _ in history.entries] == ["user", "model", "user"]
    assert "functionCall" in history.entries[1][1][1] and "functionResponse" in history.entries[2][1][0]


@pytest.mark.parametrize("content", ['{"id": "u1", "ty', "[1, 2]", "\xff\xfe"])
def test_a_file_not_of_the_clients_shape_is_not_read(tmp_path, content):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(json.dumps(user(1, "a")).encode() + b"\n" + content.encode("latin-1"))
    assert gemini.read_history(str(path)) is None
    assert gemini.held_turns(str(path), None) is None
    assert gemini.read_history(str(tmp_path / "missing.jsonl")) is None
    assert gemini.read_history(None) is None


def test_only_the_last_full_history_is_read(tmp_path, monkeypatch):
    path = write(tmp_path / "s.jsonl", user(1, "x" * 500), {"$set": {"messages": [user(2, "b")]}}, reply(2))
    monkeypatch.setattr(gemini, "FIRST_CHUNK", 50)
    monkeypatch.setattr(gemini, "MAX_BYTES", 200)
    assert [p[0].get("text") for _, p in gemini.read_history(path).entries] == ["b", "ok"]
    write(tmp_path / "s.jsonl", {"$set": {"messages": [user(2, "b")]}}, user(1, "x" * 500))
    assert gemini.read_history(path) is None  # the last full history is further back than the tail read


def test_the_banner_turns_of_ctxs_blocks():
    parts = [{"text": "is it up? [Turn 9]"}, {"text": "<hook_context>╔══ ATTENTION STATE [Turn 12] ══╗\n"},
             {"text": "<hook_context>no banner"}, {"text": "ATTENTION STATE [Turn 3]"}]
    assert gemini._banner_turns(parts) == [12]


def test_the_clients_token_estimate():
    assert gemini.estimate_tokens([{"text": "abcd" * 10}]) == 10
    assert gemini.estimate_tokens([{"text": "é🔥"}]) == 4.5  # 1.5 a UTF-16 unit that is not ASCII
    assert gemini.estimate_tokens([{"text": "é" * 100_001}]) == 100_001 / 4
    assert gemini.estimate_tokens([{"inlineData": {"data": "abc"}}]) == len('{"inlineData":{"data":"abc"}}') / 4


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                                  max_size=4), max_leaves=12)


@given(JSON)
def test_json_length_is_the_clients(value):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert gemini.json_len(value) == len(text.encode("utf-16-le", "surrogatepass")) // 2


def entries(*sizes_roles):
    return [(role, [{"text": "x" * size}]) for size, role in sizes_roles]


@pytest.mark.parametrize("history, split", [
    # the whole history when no prompt starts past 70% of it and it ends in a reply
    (entries((1600, "user"), (4600, "user"), (20, "model")), 3),
    # the first prompt past 70% (and past 72%: ctx's side of the line)
    (entries((1000, "user"), (10, "model"), (1000, "user"), (10, "model"), (1000, "user"), (10, "model"),
             (100, "user"), (10, "model")), 6),
    # a prompt that starts between 70% and 72%: the client keeps it, ctx counts it as summarised
    (entries((840, "user"), (10, "model"), (300, "user"), (10, "model")), 4),
    (entries((1000, "user"), (10, "model"), (300, "user"), (10, "model")), 2),
])
def test_where_the_compression_splits(history, split):
    assert gemini.split_point(history) == split


def test_the_clients_own_split_of_that_history():
    history = entries((840, "user"), (10, "model"), (300, "user"), (10, "model"))
    sizes = [gemini.json_len({"role": r, "parts": p}) for r, p in history]
    assert gemini._split(history, sizes, 0.7) == 2


def test_a_history_ending_in_a_tool_call_splits_at_the_last_prompt():
    history = [("user", [{"text": "x" * 100}]), ("model", [{"functionCall": {"name": "read_file"}}]),
               ("user", [{"functionResponse": {"name": "read_file", "response": {"output": "y"}}}]),
               ("user", [{"text": "z"}]), ("model", [{"functionCall": {"name": "ls"}}])]
    assert gemini.split_point(history) == 3


@pytest.mark.parametrize("tokens, share, model, compresses", [
    (524_287, 0.5, None, False), (524_288, 0.5, None, True), (128_000, 0.5, "gemma-4-31b-it", True),
    (127_999, 0.5, "gemma-4-31b-it", False), (300_000, 0.25, None, True), (200_000, 0.25, None, False),
])
def test_will_compress_at_the_threshold(tokens, share, model, compresses):
    history = gemini.History([("user", [{"text": "a"}])], tokens, model)
    assert gemini.will_compress(history, share) is compresses
    assert gemini.will_compress(gemini.History([], tokens, model), share) is False


def test_an_estimated_history_compresses_a_little_early():
    history = gemini.History([("user", [{"text": "a" * 4000}])], None, None)  # 1,000 tokens
    assert gemini.will_compress(history, 1000 / gemini.WINDOW)
    assert gemini.will_compress(history, 1015 / gemini.WINDOW)  # within the slack: sent, not named
    assert not gemini.will_compress(history, 1100 / gemini.WINDOW)


@pytest.mark.parametrize("project, user, share", [
    (None, None, 0.5), (0.25, None, 0.25), (None, 0.3, 0.3), (0.25, 0.3, 0.25), ("high", 0.3, 0.3),
    (0, None, 0.5), (True, None, 0.5), (1.5, None, 0.5),
])
def test_the_threshold_from_the_settings(tmp_path, monkeypatch, project, user, share):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for folder, value in ((tmp_path, project), (home, user)):
        if value is not None:
            (folder / ".gemini").mkdir(parents=True)
            (folder / ".gemini" / "settings.json").write_text(json.dumps({"model": {"compressionThreshold": value}}))
    assert gemini.threshold(str(tmp_path)) == share


def test_the_gemini_hook_reads_its_history_without_a_heavy_import(sample, tmp_path):
    """A warm Gemini turn that reads the session file (and finds it will compress) loads nothing heavy."""
    import os
    import subprocess
    import sys

    from .conftest import REPO
    from .test_hooks import HEAVY

    chats = write(tmp_path / "session.jsonl", HEADER, {"$set": {"messages": [user(0, "<session_context>")]}},
                  user(1, "kestrel"), reply(1, tokens=900_000))
    raw = json.dumps({"session_id": "g", "transcript_path": chats, "cwd": str(sample.parent),
                      "hook_event_name": "BeforeAgent", "prompt": "is kestrel up?"})
    probe = (
        "import io, sys\n"
        "before = set(sys.modules)\n"
        "from context_router.faces.hooks import run_hook\n"
        f"raw = {raw.encode()!r}\n"
        "out = io.StringIO()\n"
        "run_hook('gemini', [], stdin=io.BytesIO(raw), stdout=out, stderr=sys.stderr)\n"
        "assert 'kestrel' in out.getvalue()\n"
        f"print(repr([m for m in {HEAVY!r} if m in set(sys.modules) - before]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(2):  # the second run is warm: config cached, index built
        res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
        assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


@settings(max_examples=25, deadline=None)  # a state file each: a few are enough for this one
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 6)), max_size=20),
       st.frozensets(st.integers(0, 6)))
def test_forgetting_all_but_the_held_turns(rows, keep):
    """What was sent at a held turn stays remembered, all else is forgotten, and the count says how much."""
    import tempfile

    from context_router.store.state import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"{folder}/state.db")
        units = {(f"{p}.md", f"w{p}{t}"): t for p, t in rows}
        with store.transaction():
            for (path, unit), turn in units.items():
                store.remember_sent("s", turn, [(path, unit)])
            store.remember_sent("other", 9, [("a.md", "x")])
            gone = store.forget_sent("s", keep=keep)
        with store.read_transaction():
            left = store.sent_units("s", {p for p, _ in units})
            other = store.sent_units("other", ["a.md"])
        store.close()
    assert {(p, u): t for p, us in left.items() for u, t in us.items()} == \
        {k: t for k, t in units.items() if t in keep}
    assert gone == sum(1 for t in units.values() if t not in keep) and other == {"a.md": {"x": 9}}
