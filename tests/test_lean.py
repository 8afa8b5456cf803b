"""A lean turn: a score is kept with the turn it was set and decays when read, a turn writes only the docs it
touched, and the history keeps causes, not a decay row per doc per turn; `ctx explain` tells the same story."""

from __future__ import annotations

import json
import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_router.records import FileScore, decayed
from context_router.turn import attention


def full_history(events: list[bool], rate: float) -> tuple[list[tuple[int, float, str]], list[tuple[int, float, str]]]:
    """(every turn's row as a turn-by-turn update records it, the rows that changed more than decay)."""
    scores: dict[str, FileScore] = {}
    every, causes_only = [], []
    for turn, hit in enumerate(events, 1):
        upd = attention.update(scores, turn, {"a.md": ["alpha"]} if hit else {}, lambda p: True, lambda p: rate,
                               lambda p: (), 0.0, {})
        scores = upd.scores
        causes = upd.causes.get("a.md")
        if causes is None:
            continue
        row = (turn, scores["a.md"].score if "a.md" in scores else 0.0, "\t".join(causes))
        every.append(row)
        if causes != ("decay",):
            causes_only.append(row)
    return every, causes_only


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40), st.sampled_from([0.5, 0.7, 0.85, 0.95]))
def test_the_story_told_from_causes_is_the_turn_by_turn_history(events, rate):
    every, causes_only = full_history(events, rate)
    assert attention.story(causes_only, rate, len(events)) == every


@given(st.floats(0.001, 1.0), st.sampled_from([0.5, 0.7, 0.85, 0.99]), st.integers(0, 1000),
       st.sampled_from([attention.ZERO, 0.25, 0.8]))
def test_the_last_turn_above_a_line_is_where_decay_crosses_it(score, rate, turn, line):
    last = attention.last_turn_at(score, rate, turn, line)
    if last >= turn:
        assert decayed(score, rate, last - turn) >= line
    assert decayed(score, rate, last + 1 - turn) < line


def test_a_score_that_never_decays_stays_above_every_line():
    assert attention.last_turn_at(0.5, 1.0, 3, 0.25) == attention.FOREVER
    assert attention.last_turn_at(0.1, 0.7, 3, 0.25) == 2


def keyword_project(tmp_path):
    from .conftest import write_docs

    write_docs(tmp_path / "docs", {f"{name}.md": f"# {name.title()}\n\nAbout {name}.\n"
                                   for name in ("alpha", "beta", "gamma", "delta")})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nsemantic: {enabled: false}\nrate_limit: {turns_per_minute: 0}\n")
    return ("--config", str(cfg), "--session", "s")


def test_a_turn_writes_only_the_docs_it_touched_and_records_no_decay_rows(ctx, tmp_path, isolated_state):
    args = keyword_project(tmp_path)
    for prompt in ("alpha", "beta", "gamma", "delta"):
        assert ctx("route", f"what about {prompt}?", *args).code == 0
    conn = sqlite3.connect(isolated_state)
    # Each kept as set on the turn that hit it: nothing rewrote a score while it only decayed.
    assert dict(conn.execute("SELECT path, turn FROM scores WHERE session = 's'")) == {
        "alpha.md": 1, "beta.md": 2, "gamma.md": 3, "delta.md": 4}
    assert conn.execute("SELECT turn, path, causes FROM history ORDER BY turn").fetchall() == [
        (1, "alpha.md", "keyword:alpha"), (2, "beta.md", "keyword:beta"), (3, "gamma.md", "keyword:gamma"),
        (4, "delta.md", "keyword:delta")]
    conn.close()
    status = {f["path"]: f["score"] for f in json.loads(ctx("status", "--json", *args).out)["files"]}
    assert status == {"delta.md": 1.0, "gamma.md": 0.7, "beta.md": 0.49, "alpha.md": 0.343}
    explain = ctx("explain", "alpha.md", *args)
    lines = [line.split() for line in explain.out.splitlines() if line.strip().startswith("turn")]
    assert [(int(w[1]), w[2], w[-1]) for w in lines] == [
        (1, "1.00", "keyword:alpha"), (2, "0.70", "decay"), (3, "0.49", "decay"), (4, "0.34", "decay")]


def test_a_doc_decayed_to_nothing_is_deleted_and_its_story_ends_at_zero(ctx, tmp_path, isolated_state):
    args = keyword_project(tmp_path)
    assert ctx("route", "what about alpha?", *args).code == 0
    for i in range(25):
        assert ctx("route", f"unrelated chatter number {i}", *args).code == 0
    conn = sqlite3.connect(isolated_state)
    assert conn.execute("SELECT count(*) FROM scores").fetchone()[0] == 0
    conn.close()
    story = [line for line in ctx("explain", "alpha.md", *args).out.splitlines()
             if line.split()[:1] == ["turn"] and line.split()[1].isdigit()]
    assert story[-1].split()[1:3] == ["21", "0.00"] and story[-1].endswith("decay zero") and len(story) == 21


def test_the_text_index_keeps_no_copy_of_the_text_and_forgets_a_changed_docs_words(tmp_path, isolated_state):
    from context_router.router import TurnRequest, route
    from context_router.workspace import with_workspace

    from .conftest import write_docs

    write_docs(tmp_path / "docs", {"a.md": "# Animals\n\n## Stripes\n\nThe zebra crossing.\n",
                                   "b.md": "# Other\n\n## One\n\nNothing here.\n\n## Two\n\nThe penguin.\n"})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n")
    assert "a.md" in {e.path for e in route(TurnRequest("zebra"), str(cfg)).plan.entries}
    (tmp_path / "docs" / "a.md").write_text("# Animals\n\n## Necks\n\nThe giraffe browses.\n")
    route(TurnRequest("giraffe"), str(cfg))

    def look(ws):
        with ws.store.read_transaction():
            return (ws.store.lexical_doc_counts(["zebra", "giraffe"]),
                    ws.store.section_search('"zebra"', (1.0, 1.0), 10),
                    ws.store.section_search('"giraffe" OR "penguin"', (1.0, 1.0), 10),
                    ws.store.lexical_snippets('"giraffe"', (3.0, 4.0, 2.0, 1.0), 5))

    counts, zebra_sections, found, snippets = with_workspace(look, str(cfg))
    assert counts == {"zebra": 0, "giraffe": 1} and zebra_sections == []
    # each section found is named by its own doc and number, the changed doc's and the one indexed after it
    assert sorted((p, n) for p, n, _ in found) == [("a.md", 1), ("b.md", 2)]
    assert [p for p, _, _ in snippets] == ["a.md"] and "The **giraffe** browses." in snippets[0][2]
    conn = sqlite3.connect(isolated_state)
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert not tables & {"lex_content", "sec_content"}


def test_one_cause_shared_by_many_docs_is_one_history_row_and_each_doc_still_tells_it(tmp_path, ctx,
                                                                                      isolated_state):
    from .conftest import write_docs

    write_docs(tmp_path / "docs", {f"d{i:02}.md": f"# Doc {i:02}\n\nText {i}.\n" for i in range(12)})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nsemantic: {enabled: false}\nrate_limit: {turns_per_minute: 0}\nkeywords:\n"
                   + "".join(f"  d{i:02}.md: [lattice]\n" for i in range(12)))
    args = ("--config", str(cfg), "--session", "s")
    assert ctx("route", "the lattice", *args).code == 0
    assert ctx("route", "something else", *args).code == 0
    conn = sqlite3.connect(isolated_state)
    assert conn.execute("SELECT count(*) FROM history").fetchone()[0] == 0
    assert conn.execute("SELECT turn, score, causes FROM history_shared").fetchall() == [(1, 1.0, "keyword:lattice")]
    conn.close()
    lines = [line.split() for line in ctx("explain", "d07.md", *args).out.splitlines() if "turn" in line[:8]]
    assert [(w[1], w[2], w[-1]) for w in lines] == [("1", "1.00", "keyword:lattice"), ("2", "0.70", "decay")]


def test_a_long_session_keeps_the_history_of_its_last_turns(tmp_path, isolated_state):
    from context_router.store.state import KEEP_TURNS, PRUNE_EVERY, Kept, Store

    store = Store(str(isolated_state))
    with store.transaction():
        for turn in range(1, KEEP_TURNS + PRUNE_EVERY + 1):
            store.save_turn("s", turn, {"a.md": (Kept(1.0, turn, 0.7, turn, 1), turn + 3, turn + 20)},
                            {"a.md": ("keyword:a",)}, (1.0, 0.0), {}, 1.0, (10, {"a.md": ("HOT", 10)}))
    with store.read_transaction():
        kept = [t for t, _, _ in store.history("s", "a.md")]
        turns = [t[1] for t in store.turns(["s"])]
    store.close()
    assert kept[0] == PRUNE_EVERY + 1 and kept[-1] == KEEP_TURNS + PRUNE_EVERY and turns[0] == PRUNE_EVERY + 1


def test_a_doc_that_only_decayed_but_was_named_as_held_keeps_its_score_in_the_history(ctx, tmp_path,
                                                                                        isolated_state):
    args = (*keyword_project(tmp_path), "--keep-history")
    assert ctx("route", "what about alpha?", *args).code == 0
    second = json.loads(ctx("route", "and something else", *args, "--format", "json").out)
    entry = next(f for f in second["files"] if f["path"] == "alpha.md")
    assert entry["reasons"] == ["decay", "in-conversation:1"]
    lines = [line.split() for line in ctx("explain", "alpha.md", *args[:4]).out.splitlines()
             if line.strip().startswith("turn")]
    assert [(w[1], w[2], w[-1]) for w in lines] == [("1", "1.00", "keyword:alpha"), ("2", "0.70", "in-conversation:1")]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(9, 150), st.integers(0, 12))
def test_a_keyword_many_docs_share_writes_only_the_docs_the_text_ranks(tmp_path_factory, owners, said):
    """A keyword more docs own than WARM shows lifts only the owners whatever else ranks: the turn writes a row
    for none of the others, however many there are."""
    import os

    from context_router.entry import main

    from .conftest import write_docs

    root = tmp_path_factory.mktemp("shared")
    names = [f"d{i:03}" for i in range(owners + 5)]
    write_docs(root / "docs", {f"{n}.md": f"# {n.title()}\n\nThe {n} service. {'The zorblix change. ' * (i < said)}\n"
                               for i, n in enumerate(names)})
    cfg = root / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\nkeywords:\n"
                   + "".join(f"  {n}.md: [zorblix]\n" for n in names[:owners]))
    state = root / "state.db"
    os.environ["CTX_STATE"] = str(state)
    try:
        assert main(["route", "is the zorblix change to blame?", "--config", str(cfg), "--session", "s"]) == 0
    finally:
        del os.environ["CTX_STATE"]
    from context_router.store.state import Store

    store = Store(str(state))
    with store.read_transaction():
        written = {p for p, k in store.session("s").scores.items()}
        lifted = {p for _, p, _, causes in store.all_history("s") if "weak-keyword:zorblix" in causes}
    store.close()
    sayers = {f"{n}.md" for n in names[:said]}
    assert lifted <= sayers
    # What else the turn wrote comes from other evidence (the semantic layer's, on a tiny corpus): a few docs,
    # never a row per owner.
    assert len(written - sayers) <= 5


def test_a_doc_hit_by_its_own_keyword_counts_a_broad_one_it_shares_among_its_hits(ctx, tmp_path):
    from .conftest import write_docs

    write_docs(tmp_path / "docs", {f"d{i:02}.md": f"# Doc {i:02}\n\nText {i}.\n" for i in range(12)})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\nkeywords:\n  d00.md: [zorblix, quuxwidget]\n"
                   + "".join(f"  d{i:02}.md: [zorblix]\n" for i in range(1, 12)))
    data = json.loads(ctx("route", "the quuxwidget and zorblix", "--config", str(cfg), "-f", "json").out)
    first = data["files"][0]
    assert first["path"] == "d00.md" and first["tier"] == "HOT"
    assert {"keyword:quuxwidget", "keyword:zorblix"} <= set(first["reasons"])
    assert not [f for f in data["files"] if "weak-keyword:zorblix" in f["reasons"]]


def test_a_docs_keywords_are_kept_once_in_order_and_a_changed_docs_old_ones_are_gone(isolated_state):
    from context_router.store.state import Store

    store = Store(str(isolated_state))
    with store.transaction():
        store.set_keywords({"a.md": [("zebra", "zebra crossing", False), ("lion", "lion", True)],
                            "b.md": [("lion", "lion", False)]}, replace_all=True)
        store.set_keywords({"a.md": [("giraffe", "giraffe", False), ("lion", "lion", True)]})
    with store.read_transaction():
        assert store.keyword_candidates(["zebra"]) == []
        assert sorted(store.keyword_docs("lion", "lion")) == [("lion", "a.md", 1), ("lion", "b.md", 0)]
        assert store.keywords_of(["a.md", "b.md"]) == {"a.md": ("giraffe", "lion"), "b.md": ("lion",)}
        assert store.keyword_owners(["b.md", "a.md"], 5) == [("giraffe", "a.md", 0, 1), ("lion", "a.md", 1, 2),
                                                             ("lion", "b.md", 0, 2)]
        assert store.keyword_owners(["a.md"], 1) == [("giraffe", "a.md", 0, 1), ("lion", "a.md", 1, 1)]
    with store.transaction():
        store.set_keywords({"a.md": []})
    with store.read_transaction():
        assert store.keyword_candidates(["giraffe", "lion"]) == [("lion", "b.md", 0)]
        assert store.keywords_of(["a.md"]) == {}
    store.close()


def test_a_words_sections_are_counted_only_as_far_as_the_turn_needs(ctx, tmp_path, isolated_state):
    from context_router.store.state import Store

    body = "".join(f"## Part {i}\n\nCheck the logs of part {i}.\n\n" for i in range(40))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n" + body, encoding="utf-8")
    (tmp_path / "config.yaml").write_text("docs: docs\n", encoding="utf-8")
    assert ctx("index", "--config", str(tmp_path / "config.yaml")).code == 0
    store = Store(str(isolated_state))
    with store.transaction():
        assert store.section_counts(["check", "nowhere"], 5) == ({"check": 5, "nowhere": 0}, 10)
        assert store.section_counts(["check", "nowhere"], 5) == ({"check": 5, "nowhere": 0}, 10)  # remembered
        # ... until the index changes, or a turn counts as far as another bound (another ctx's budget): a count
        # remembered as "5 or more" is not taken for "exactly 5"
        assert store.section_counts(["check"], 100) == ({"check": 40}, 41)
        assert store.conn.execute("SELECT count(*) FROM sec_df").fetchone()[0] == 3  # the bound, the total, "check"
    store.close()


def test_a_turn_reads_the_config_keywords_of_the_docs_it_lifts_not_the_whole_list(ctx, tmp_path, isolated_state,
                                                                                monkeypatch):
    """The config's keywords are kept by doc in the state: once the config is read, a turn that asks whether you
    chose a weak keyword for a doc reads that doc's entry, never all of them (10,000 entries at 10,000 docs)."""
    from context_router.store.state import Store

    from .conftest import write_docs

    docs = {f"methods/{kind}/site.md": f"# Site\n\nThe {kind} object's site.\n" for kind in ("page", "menu")}
    docs |= {f"topics/t{i:02}.md": f"# Topic {i}\n\nHow the site handles topic {i}.\n" for i in range(40)}
    write_docs(tmp_path / "docs", docs)
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\nkeywords: {methods/page/site.md: [site]}\n")
    prompt = ("route", "how do I add a second language to my site?", "-f", "json", "--config", str(cfg))
    assert ctx(*prompt).code == 0  # reads the config and keeps it
    asked: list[str | None] = []
    real = Store.config_map
    monkeypatch.setattr(Store, "config_map", lambda self, table, path=None: asked.append(path) or
                        real(self, table, path))
    res = ctx(*prompt)
    assert res.code == 0, res.err
    lifted = [f["path"] for f in json.loads(res.out)["files"] if "weak-keyword:site" in f["reasons"]]
    assert lifted == ["methods/page/site.md"]
    assert asked and None not in asked
