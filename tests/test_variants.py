"""Variant folders (turn/variants.py): a conversation that names one framework, provider or platform gets no
evidence for the other variants' copies of the pages it has."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from context_router.router import TurnRequest, route
from context_router.turn import variants

from .conftest import write_docs

PAGES = ("guides/optimistic-updates.md", "guides/caching.md", "guides/testing.md", "overview.md")
TREE = [f"framework/{fw}/{page}" for fw in ("react", "vue", "solid") for page in PAGES]


def under(paths):
    def listing(folder):
        return [p for p in paths if not folder or p.startswith(folder + "/")]
    return listing


def test_a_family_of_folders_with_the_same_pages_are_variants():
    kids = variants._children("framework", TREE)
    assert variants.variant_names(kids) == {"react", "vue", "solid"}


def test_two_folders_alike_are_steps_not_a_family():
    paths = [f"set-up/{step}/{os}.md" for step in ("install", "run") for os in ("linux", "macos", "windows")]
    assert variants.variant_names(variants._children("set-up", paths)) == frozenset()


def test_a_folder_that_shares_too_little_is_no_variant():
    paths = [*TREE, *(f"framework/angular/{n}.md" for n in ("a", "b", "c", "d", "e", "f", "g", "h")),
             "framework/angular/overview.md"]
    assert "angular" not in variants.variant_names(variants._children("framework", paths))


def test_the_named_variant_leaves_the_others_copies_out():
    paths = [*TREE, "framework/vue/guides/vue-only.md", "framework/react/guides/react-only.md"]
    ranked = ["framework/react/guides/optimistic-updates.md", "framework/vue/guides/optimistic-updates.md"]
    gone, named = variants.left_out(ranked, ["optimistic", "vue"], {}, under(paths))
    assert named == {"framework": ["vue"]}
    assert gone == {f"framework/{fw}/{page}" for fw in ("react", "solid") for page in PAGES}
    # a page only another variant has stays: the named one has no page of its own for it
    assert "framework/react/guides/react-only.md" not in gone


def test_the_variant_named_last_holds_until_another_is_named():
    ranked = ["framework/react/overview.md", "framework/solid/overview.md"]
    gone, named = variants.left_out(ranked, ["rollback"], {"framework": ["solid"]}, under(TREE))
    assert "framework/react/overview.md" in gone and "framework/solid/overview.md" not in gone
    assert named == {"framework": ["solid"]}
    gone, named = variants.left_out(ranked, ["react", "now"], named, under(TREE))
    assert "framework/solid/overview.md" in gone and named == {"framework": ["react"]}
    # a folder not ranked this turn keeps what the conversation named there
    assert variants.left_out(["other/a.md"], ["x"], named, under(TREE))[1] == named


def test_a_folder_is_named_whatever_its_case():
    paths = [p.replace("/react/", "/React/") for p in TREE]
    gone = variants.left_out(["framework/React/overview.md", "framework/vue/overview.md"], ["react"], {},
                             under(paths))[0]
    assert "framework/vue/overview.md" in gone and not any("/React/" in p for p in gone)


def test_a_family_of_packages_is_named_by_each_ones_own_word():
    paths = [f"packages/{fw}-query/{page}" for fw in ("react", "vue", "solid") for page in PAGES]
    ranked = ["packages/react-query/overview.md", "packages/vue-query/overview.md"]
    gone = variants.left_out(ranked, ["vue", "query", "overview"], {}, under(paths))[0]
    assert "packages/react-query/overview.md" in gone and not any("/vue-query/" in p for p in gone)
    assert variants.left_out(ranked, ["query"], {}, under(paths)) == (frozenset(), {})  # the family's shared word


def test_nothing_is_left_out_unnamed_or_when_the_folder_is_too_big_to_read():
    ranked = ["framework/react/overview.md", "framework/vue/overview.md"]
    assert variants.left_out(ranked, ["caching"], {}, under(TREE)) == (frozenset(), {})
    assert variants.left_out(ranked, ["vue"], {}, lambda folder: None) == (frozenset(), {})


@given(st.sets(st.sampled_from(TREE), min_size=1), st.lists(st.sampled_from(["react", "vue", "solid", "caching"]),
                                                             max_size=3))
def test_what_is_left_out_is_always_another_variants_copy_of_a_named_variants_page(ranked, said):
    gone = variants.left_out(sorted(ranked), said, {}, under(TREE))[0]
    named = {w for w in said if w in ("react", "vue", "solid")}
    for path in gone:
        fw, rest = path.split("/", 2)[1:]
        assert fw not in named and any(f"framework/{n}/{rest}" in TREE for n in named)


def test_the_named_variants_round_trip_through_the_memory_and_junk_is_none():
    named = {"framework": ["vue"], "packages": ["react-query", "vue-query"]}
    assert variants.remembered({"variants": variants.to_memory(named)}) == named
    assert variants.remembered({"variants": [["a"], 3, ["b", "c"], [1, ["x"]]]}) == {} == variants.remembered(None)


def test_memory_without_the_left_out_docs():
    memory = {"rankings": [{"a/x.md": 1.0, "b/x.md": 0.5}], "sections": [{("a/x.md", 0): 1.0, ("b/x.md", 1): 0.4}],
              "words": [["x"]]}
    out = variants.without(memory, frozenset({"a/x.md"}))
    assert out["rankings"] == [{"b/x.md": 0.5}] and out["sections"] == [{("b/x.md", 1): 0.4}]
    assert out["words"] == [["x"]] and memory["rankings"][0]["a/x.md"] == 1.0  # the given memory is kept


def test_a_conversation_on_one_framework_gets_its_pages_not_the_others(tmp_path):
    docs = {}
    for fw in ("react", "vue", "solid"):
        docs[f"framework/{fw}/guides/optimistic-updates.md"] = (
            f"# Optimistic Updates\n\nUpdate the cache before the mutation settles in {fw.title()} Query.\n\n"
            "## Rolling back\n\nOn error, roll back to the snapshot taken in onMutate.\n")
        docs[f"framework/{fw}/guides/caching.md"] = "# Caching\n\nStale time and garbage collection of queries.\n"
        docs[f"framework/{fw}/guides/testing.md"] = "# Testing\n\nWrap the hook in a client provider.\n"
        docs[f"framework/{fw}/overview.md"] = f"# Overview\n\nQuery for {fw.title()}: fetching, caching.\n"
    write_docs(tmp_path / "docs", docs)
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\n")
    first = route(TurnRequest("how do optimistic updates work in our vue app?", session="s"), str(cfg))
    hot = {e.path for e in first.plan.entries if e.tier == "HOT"}
    assert "framework/vue/guides/optimistic-updates.md" in hot
    assert not hot & {"framework/react/guides/optimistic-updates.md", "framework/solid/guides/optimistic-updates.md"}
    follow = route(TurnRequest("and how do I roll back when the mutation errors?", session="s"), str(cfg))
    shown = {e.path for e in follow.plan.entries}
    assert "framework/vue/guides/optimistic-updates.md" in shown
    assert not shown & {"framework/react/guides/optimistic-updates.md", "framework/solid/guides/optimistic-updates.md"}
    route(TurnRequest("and the testing setup?", session="s"), str(cfg))
    later = route(TurnRequest("how long is the stale time when caching?", session="s"), str(cfg))
    hot = {e.path for e in later.plan.entries if e.tier == "HOT"}  # vue, named three prompts ago, still holds
    assert "framework/vue/guides/caching.md" in hot and not hot & {f"framework/{fw}/guides/caching.md"
                                                                  for fw in ("react", "solid")}


def test_init_says_which_folders_hold_variants(ctx, tmp_path, monkeypatch):
    write_docs(tmp_path / "docs", {p: f"# {p}\n\nText of {p}.\n" for p in TREE})
    monkeypatch.chdir(tmp_path)
    res = ctx("init")
    assert res.code == 0
    assert "note: framework/ holds the same pages for react, solid, vue: a conversation that names one" in res.out
    assert variants.families(TREE) == [("framework", ["react", "solid", "vue"])]
    assert variants.families(p.replace("solid", "solid-x") for p in TREE if "/vue/" not in p) == []  # two: none


def test_a_tutorials_units_with_numbered_pages_are_steps_not_variants():
    # tried as a new user would on a web framework's docs: `ctx init` called its tutorial's units variants
    paths = [f"tutorial/{unit}/{page}" for unit in ("1-setup", "2-pages", "3-components", "4-layouts")
             for page in ("1.mdx", "2.mdx", "3.mdx", "4.mdx", "index.mdx")]
    assert variants.variant_names(variants._children("tutorial", paths)) == frozenset()
    assert variants.families(paths) == []
    # pages named for what they hold still make a family, its own pages (index.md) among its copies
    tree = [*TREE, *(f"framework/{fw}/index.md" for fw in ("react", "vue", "solid"))]
    assert variants.families(tree) == [("framework", ["react", "solid", "vue"])]
    gone, _ = variants.left_out(["framework/react/index.md", "framework/vue/index.md"], ["vue"], {}, under(tree))
    assert "framework/react/index.md" in gone
