"""`ctx replay`: known figures on a known conversation, the user's sessions untouched, every error path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import write_docs

DOCS = {"a.md": "# Alpha\n\nAlpha text.\n", "b.md": "# Beta\n\nBeta text.\n", "c.md": "# Gamma\n\nGamma text.\n"}


def setup(tmp_path: Path, conversations: object, config: str = "semantic: {enabled: false}\n") -> Path:
    write_docs(tmp_path / "docs", DOCS)
    (tmp_path / "config.yaml").write_text("docs: docs\n" + config, encoding="utf-8")
    path = tmp_path / "convs.json"
    path.write_text(json.dumps(conversations), encoding="utf-8")
    return path


def test_replay_figures_are_known(ctx, tmp_path):
    convs = [{"id": "one", "turns": [
        {"prompt": "alpha", "gold": ["a.md"], "kind": "keyword"},  # a HOT: full 1, seen 1, no noise
        {"prompt": "nothing here", "gold": ["a.md"], "kind": "followup"},  # a decays to 0.7: WARM only
        {"prompt": "beta", "gold": ["c.md"], "kind": "keyword"},  # b HOT, a WARM, c not shown
    ]}]
    path = setup(tmp_path, convs)
    res = ctx("replay", str(path), "--json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    turns = data["turns"]
    assert [(t["full"], t["seen"]) for t in turns] == [(1.0, 1.0), (0.0, 1.0), (0.0, 0.0)]
    assert turns[0]["gold_chars"] == turns[0]["shown_chars"] > 0
    assert turns[2]["gold_chars"] == 0 and [s["path"] for s in turns[2]["shown"]] == ["b.md", "a.md"]
    # why each doc is shown: the turn's causes of its score (a decayed doc's: decay)
    assert [s["reasons"] for s in turns[2]["shown"]] == [["keyword:beta"], ["decay"]]
    shown = sum(t["shown_chars"] for t in turns)
    gold = sum(t["gold_chars"] for t in turns)
    chars = sum(t["chars"] for t in turns)
    assert data["total"] == {"turns": 3, "full": round(1 / 3, 4), "seen": round(2 / 3, 4),
                             "noise": round((shown - gold) / shown, 4), "chars": round(chars / 3, 1),
                             "conversation_chars": chars, "repeat": round(sum(t["repeated"] for t in turns) / chars, 4)}
    assert turns[0]["repeated"] == 0 and turns[1]["repeated"] > 0  # a.md's header again
    assert data["by_kind"]["keyword"]["turns"] == 2 and data["by_kind"]["followup"]["seen"] == 1.0
    text = ctx("replay", str(path), "--turns").out
    assert "keyword" in text and "followup" in text and "33%" in text


def test_replay_leaves_the_users_sessions_alone(ctx, tmp_path):
    path = setup(tmp_path, [{"id": "x", "turns": [{"prompt": "gamma", "gold": ["c.md"]}]}])
    assert ctx("route", "alpha").code == 0
    before = ctx("status", "--json").out
    assert ctx("replay", str(path)).code == 0
    assert ctx("status", "--json").out == before


def test_replay_through_the_hook_uses_its_budget(ctx, tmp_path):
    big = "# Big\n\n" + "\n".join(f"## Part {i}\n\n" + "words " * 400 for i in range(10))
    path = setup(tmp_path, [{"id": "x", "turns": [{"prompt": "big", "gold": ["big.md"]}]}])
    write_docs(tmp_path / "docs", {"big.md": big})
    hook = json.loads(ctx("replay", str(path), "--hook", "claude", "--json").out)
    route = json.loads(ctx("replay", str(path), "--json").out)
    assert hook["budget_chars"] == 10000 and route["budget_chars"] == 25000
    assert hook["turns"][0]["chars"] <= 10000 < route["turns"][0]["chars"]
    assert hook["turns"][0]["full"] == 1.0  # cut to fit, still HOT


@pytest.mark.parametrize(("content", "message"), [
    ("not json", "error: cannot read"),
    ({"turns": []}, "error: convs.json: expected a JSON list of conversations"),
    ([{"turns": []}], "error: convs.json: conversation 1: expected an object with a non-empty 'turns' list"),
    ([{"turns": [{"prompt": " ", "gold": ["a.md"]}]}], "conversation 1, turn 1: expected an object with a non-empty"),
    ([{"turns": [{"prompt": "x", "gold": []}]}], "turn 1: 'gold' must be a non-empty list of doc paths"),
    ([{"turns": [{"prompt": "x", "gold": ["zz.md", "yy.md"]}]}], "error: gold doc not in "),
])
def test_replay_bad_input(ctx, tmp_path, content, message):
    path = setup(tmp_path, [])
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    res = ctx("replay", str(path))
    assert res.code == 2 and res.out == "" and message in res.err and res.err.count("\n") == 1


def test_replay_bad_options(ctx, tmp_path):
    path = setup(tmp_path, [{"turns": [{"prompt": "x", "gold": ["a.md"]}]}])
    for args, message in ((["--hook", "vim"], "error: unknown host 'vim' (known: claude, cline, codex, gemini, plain)"),
                          (["--budget", "-1"], "error: --budget must be at least 0, got -1")):
        res = ctx("replay", str(path), *args)
        assert res.code == 2 and message in res.err
    res = ctx("replay", "missing.json")
    assert res.code == 2 and "error: file not found: missing.json" in res.err


def test_replay_reports_answer_lines_this_turn_and_in_the_conversation(ctx, tmp_path):
    convs = [{"id": "one", "turns": [
        {"prompt": "alpha", "gold": ["a.md"], "answers": ["Alpha text."]},  # a HOT
        {"prompt": "beta", "gold": ["a.md"], "answers": ["Alpha text."]},  # a WARM: its header holds the line
        {"prompt": "gamma", "gold": ["b.md"], "answers": ["Beta text."]},  # b WARM since turn 2: likewise
        {"prompt": "nothing at all", "gold": ["c.md"]},  # no answer lines: not counted
    ]}]
    path = setup(tmp_path, convs)
    data = json.loads(ctx("replay", str(path), "--json").out)
    turns = data["turns"]
    assert [t.get("answer") for t in turns] == [True, True, True, None]
    assert all(t.get("answer_in_context") for t in turns[:3]) and "answer" not in turns[3]
    assert data["total"]["answered"] == 3 and data["total"]["answer"] == 1.0
    text = ctx("replay", str(path), "--turns").out
    assert "answer" in text and "in ctx" in text


def test_an_answer_sent_earlier_counts_in_context_only(ctx, tmp_path):
    convs = [{"id": "one", "turns": [
        {"prompt": "alpha", "gold": ["a.md"], "answers": ["Alpha text."]},
        {"prompt": "beta", "gold": ["b.md"], "answers": ["Beta text."]},
        {"prompt": "gamma", "gold": ["c.md"], "answers": ["Alpha text."]},  # a.md at 0.49: WARM, still shown
        {"prompt": "nothing", "gold": ["c.md"], "answers": ["Alpha text."]},
        {"prompt": "nothing again", "gold": ["c.md"], "answers": ["Alpha text."]},  # a.md COLD: sent at turn 1
    ]}]
    path = setup(tmp_path, convs)
    turns = json.loads(ctx("replay", str(path), "--json").out)["turns"]
    assert turns[4]["answer"] is False and turns[4]["answer_in_context"] is True


def test_replay_rejects_bad_answer_lines(ctx, tmp_path):
    path = setup(tmp_path, [{"id": "x", "turns": [{"prompt": "alpha", "gold": ["a.md"], "answers": "Alpha"}]}])
    res = ctx("replay", str(path))
    assert res.code == 2 and "'answers' must be a list of non-empty lines" in res.err


def test_an_answer_line_is_found_however_its_spaces_run():
    """A table row is printed without its padding: the labelled line, copied from the source, still counts."""
    from context_router.faces.replay import answered

    assert answered(("| `--port <port>`     | Specify port       |",), "x\n| `--port <port>` | Specify port |\ny")
    assert not answered(("| `--host` | Specify host |",), "| `--port <port>` | Specify port |")
