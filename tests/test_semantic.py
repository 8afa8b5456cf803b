"""The semantic layer: vectors, goal, clusters, mass, intent, attested pins, and the drifting-needle test."""

import json
import math
import os
import subprocess
import sys
import time
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_router.router import TurnRequest, route
from context_router.turn import semantic

from . import needle
from .conftest import REPO, write_docs


def test_terms_split_identifiers_and_drop_stopwords():
    assert semantic.terms("What is the SECRET_KEY of the API?") == ["secret", "key", "api"]


def test_hashed_vectors_are_deterministic_and_unit_length():
    counts = semantic.hashed_counts("gpu gpu server throttles", 512)
    assert counts == semantic.hashed_counts("GPU gpu server throttles", 512)
    assert sum(counts.values()) == 4 and all(0 <= d < 512 for d in counts)
    vec = semantic.weigh(counts, [1.0] * 512)
    assert math.isclose(sum(w * w for w in vec.values()), 1.0)
    gpu = semantic.dim_of("gpu", 512)
    assert vec[gpu] > vec[semantic.dim_of("server", 512)]  # sublinear tf: 1 + ln 2 against 1


def test_goal_is_three_tenths_prompt_seven_tenths_history():
    a, b = {0: 1.0}, {1: 1.0}
    assert semantic.goal(a, []) == a
    g = semantic.goal(a, [b, b])
    assert math.isclose(g[0] / g[1], 0.3 / 0.7)
    assert math.isclose(math.hypot(g[0], g[1]), 1.0)


def test_mass_formula():
    assert math.isclose(semantic.mass(0.64, 1.0), 0.8)
    assert math.isclose(semantic.mass(0.0, -1.0), 0.0)
    assert math.isclose(semantic.mass(0.0, 1.0), 0.1)  # entropy floored at 0.01
    assert semantic.entropy("aaaaaaaa") == 0.0 and 0.5 < semantic.entropy("the quick brown fox jumps") <= 1.0


def test_affinities_are_relative_to_the_best_cluster():
    assert semantic.affinities([0.2, 0.1, 0.01]) == pytest.approx([1.0, 0.5, 0.05])
    assert semantic.affinities([0.01, 0.02]) is None  # about none of the topics: no freeze, no thaw


@pytest.mark.parametrize("prompt, kind", [
    ("What is the port of the archive?", "FACTUAL"), ("define backpressure", "FACTUAL"),
    ("show me the exact code for the retry", "FACTUAL"), ("who is on call", "FACTUAL"),
    ("where is the api key", "FACTUAL"), ("summarize the night", "NARRATIVE"), ("catch me up", "NARRATIVE"),
    ("give me an overview of the rig", "NARRATIVE"), ("recap the story so far", "NARRATIVE"),
    ("the kestrel dome is stuck", "HYBRID"), ("what is the overview", "HYBRID"),
])
def test_intent(prompt, kind):
    assert semantic.intent(prompt) == kind


def test_intent_caps():
    assert semantic.intent_caps("FACTUAL", 4, 8) == (4, 4)
    assert semantic.intent_caps("NARRATIVE", 4, 8) == (2, 12)
    assert semantic.intent_caps("HYBRID", 4, 8) == (4, 8)


def test_kmeans_is_deterministic():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 16))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    first, _ = semantic.kmeans(x, 4)
    second, _ = semantic.kmeans(x.copy(), 4)
    assert (first == second).all() and len(set(first.tolist())) == 4


def test_intent_in_box_and_json(sample, ctx):
    res = ctx("route", "summarize the lighthouse and vault story", "--config", str(sample))
    assert "║ Intent: NARRATIVE " in res.out
    hybrid = json.loads(ctx("route", "the lighthouse gpu", "--format", "json", "--config", str(sample)).out)
    assert hybrid["intent"] == "HYBRID" and "Intent" not in hybrid["context"]  # the one that changes nothing
    data = json.loads(ctx("route", "what is the lighthouse gpu?", "--format", "json", "--config", str(sample)).out)
    assert data["intent"] == "FACTUAL" and "║ Intent: FACTUAL " in data["context"]
    off = sample.read_text() + "semantic: {enabled: false}\n"
    sample.write_text(off)
    data = json.loads(ctx("route", "what is the lighthouse gpu?", "--format", "json", "--config", str(sample)).out)
    assert "intent" not in data and "Intent" not in data["context"]


@pytest.fixture(scope="module")
def needle_run(tmp_path_factory):
    """The drifting-needle conversation, run once with the layer on and once off; the outputs per turn."""
    runs = {}
    convo = (needle.prompts("project", 50, 1) + needle.prompts("cooking", 50, 2)
             + needle.prompts("project", 10, 3) + [needle.SECRET_QUESTION])
    with pytest.MonkeyPatch.context() as env:
        for on in (True, False):
            root = tmp_path_factory.mktemp("needle-on" if on else "needle-off")
            config = str(needle.generate(root, semantic=on))
            env.setenv("CTX_STATE", str(root / "state.db"))
            runs[on] = (config, root, [route(TurnRequest(p), config) for p in convo])
    return runs


def shown(result, topic):
    return [e.path for e in result.plan.entries if e.path.startswith(topic)]


def test_drifting_needle(needle_run, monkeypatch):
    config, root, turns = needle_run[True]
    project, cooking, back, question = turns[:50], turns[50:100], turns[100:110], turns[110]
    assert all(shown(t, "project/") for t in project[:5])  # the layer finds the topic with no keyword said
    # 50 turns about cooking: every project doc leaves the output, frozen rather than deleted
    assert all(not shown(t, "project/") for t in cooking[10:])
    freezes = {c for t in cooking for causes in t.causes.values() for c in causes if c.startswith("freeze:")}
    assert len(freezes) >= 3
    # 10 turns back on the project, naming no doc: at least three of its docs come back
    assert len({p for t in back for p in shown(t, "project/")}) >= 3
    thaws = {c for t in back for causes in t.causes.values() for c in causes if c.startswith("thaw:")}
    assert thaws
    # the needle
    hot = [e.path for e in question.plan.entries if e.tier == "HOT"]
    assert needle.SECRET_DOC in hot and "12345" in question.text
    assert question.plan.stats.intent == "FACTUAL"
    # frozen docs stay in the index and the state remembers the frozen clusters
    monkeypatch.setenv("CTX_STATE", str(root / "state.db"))
    from context_router.faces.report import status
    from context_router.workspace import with_workspace
    st = with_workspace(lambda ws: status(ws, "default"), config)
    assert st.n_docs == 100 and st.frozen


def test_drifting_needle_without_the_layer(needle_run):
    _, _, turns = needle_run[False]
    assert all(not t.plan.entries for t in turns)  # opaque keywords: keyword routing alone shows nothing
    assert "12345" not in turns[-1].text


def test_explain_shows_the_new_causes(needle_run, ctx, monkeypatch):
    config, root, _ = needle_run[True]
    monkeypatch.setenv("CTX_STATE", str(root / "state.db"))
    out = ctx("explain", needle.SECRET_DOC, "--config", config).out
    assert "semantic:0." in out
    frozen_doc = next(p for p in (root / "docs" / "project").iterdir())
    text = "".join(ctx("explain", f"project/{p.name}", "--config", config).out
                   for p in sorted((root / "docs" / "project").iterdir()))
    assert "freeze:" in text and "thaw:" in text and frozen_doc.exists()
    status = json.loads(ctx("status", "--json", "--config", config).out)
    assert status["frozen_clusters"] and all(isinstance(f["cluster"], int) for f in status["files"])


def _pin_project(tmp_path):
    write_docs(tmp_path / "docs", {"a.md": "# Alpha\nalpha body\n", "b.md": "# Beta\nbeta body\n"})
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n")
    return str(tmp_path / "config.yaml")


def test_hot_pin_expires_to_warm(tmp_path, ctx):
    config = _pin_project(tmp_path)
    assert ctx("pin", "a.md", "--hot", "--ttl", "2s", "--config", config).code == 0
    assert "HOT] a.md" in ctx("route", "nothing", "--config", config).out
    time.sleep(2.1)
    out = ctx("route", "still nothing", "--config", config).out
    assert "WARM] a.md" in out
    assert "⚠️ HOT pin on a.md expired: now WARM (ctx pin --hot to renew)" in out


def test_changed_pinned_doc_is_suspended(tmp_path, ctx, isolated_state):
    config = _pin_project(tmp_path)
    ctx("pin", "b.md", "--hot", "--config", config)
    key = isolated_state.parent / "pin.key"
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    (tmp_path / "docs" / "b.md").write_text("# Beta\ntampered\n")
    out = ctx("route", "nothing", "--config", config).out
    assert "b.md" not in out.replace("(b.md)", "")
    assert "pinned doc changed since it was pinned: re-pin to trust it (b.md)" in out
    ctx("pin", "b.md", "--hot", "--config", config)
    assert "HOT] b.md" in ctx("route", "nothing", "--config", config).out


def test_config_hot_pins_are_trusted(tmp_path, ctx):
    config = _pin_project(tmp_path)
    (tmp_path / "config.yaml").write_text("docs: docs\npinned: {a.md: hot}\n")
    (tmp_path / "docs" / "a.md").write_text("# Alpha\nedited freely\n")
    assert "HOT] a.md" in ctx("route", "nothing", "--config", config).out


@pytest.mark.parametrize("ttl, message", [("soon", "--ttl must look like 8h, 30m, 2d or 90s, got 'soon'"),
                                          ("0h", "--ttl must be above zero, got '0h'")])
def test_bad_ttl(tmp_path, ctx, ttl, message):
    res = ctx("pin", "a.md", "--ttl", ttl, "--config", _pin_project(tmp_path))
    assert res.code == 2 and message in res.err


@pytest.mark.parametrize("enabled", [True, False])
def test_hook_path_imports_no_numpy(sample, enabled):
    """A warm hook turn never imports numpy: off, the layer is not loaded; on, it runs on sparse vectors."""
    if not enabled:
        sample.write_text(sample.read_text() + "semantic: {enabled: false}\n")
    probe = (
        "import io, sys\n"
        "before = set(sys.modules)\n"
        "from context_router.faces.hooks import run_hook\n"
        f"raw = {json.dumps({'prompt': 'the lighthouse gpu', 'cwd': str(sample.parent)}).encode()!r}\n"
        "out = io.StringIO()\n"
        "run_hook('claude', [], stdin=io.BytesIO(raw), stdout=out, stderr=sys.stderr)\n"
        "assert 'lighthouse' in out.getvalue()\n"
        "print(sorted({'numpy', 'context_router.model'} & (set(sys.modules) - before)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-c", probe], env=env, check=True, capture_output=True, timeout=60)
    res = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == ("['context_router.model']" if enabled else "[]")


def test_a_frozen_topic_needs_this_prompts_evidence_to_thaw(tmp_path, monkeypatch):
    """A prompt about nothing the docs know (a name like gdplot018) thaws no topic, even while the goal's
    memory of the last prompts leans back towards a frozen one; prompts on the topic still thaw it."""
    monkeypatch.setenv("CTX_STATE", str(tmp_path / "state.db"))
    config = str(needle.generate(tmp_path))
    for p in needle.prompts("project", 30, 1) + needle.prompts("cooking", 30, 2):
        route(TurnRequest(p), config)
    back = [route(TurnRequest(p), config) for p in needle.prompts("project", 6, 3)]
    noise = [route(TurnRequest(p), config) for p in ("why does gdplot018 crash?", "gdplot018 again", "zzq wobble 77")]

    def thaws(turns):
        return {c for t in turns for causes in t.causes.values() for c in causes if c.startswith("thaw:")}

    assert thaws(back) and not thaws(noise)


def _cosines_without_numpy(goal, prompt, postings):
    """semantic.similarities as a hook process runs it, where numpy is not loaded."""
    saved = sys.modules.get("numpy")
    sys.modules["numpy"] = None  # type: ignore[assignment]
    try:
        return semantic.similarities(goal, prompt, postings)
    finally:
        sys.modules["numpy"] = saved


_vectors = st.dictionaries(st.integers(0, 7), st.floats(0.01, 1.0), max_size=5)


@settings(max_examples=60, deadline=None)
@given(goal=_vectors, prompt=_vectors,
       lists=st.lists(st.tuples(st.integers(0, 7), st.lists(st.tuples(st.integers(0, 40), st.floats(0.0, 1.0)),
                                                              max_size=12)), max_size=6),
       threshold=st.sampled_from([0.0, 0.05, 0.3, 0.9]), limit=st.sampled_from([None, 1, 3, 16]))
def test_numpy_and_plain_cosines_are_the_same_floats(goal, prompt, lists, threshold, limit):
    """In the resident server numpy sums the postings, in a hook process plain Python: the same floats, the same
    docs in the same order at every threshold."""
    postings = [(d, array("i", [i for i, _ in pairs]).tobytes(), array("f", [w for _, w in pairs]).tobytes())
                for d, pairs in lists]
    plain = _cosines_without_numpy(goal, prompt, postings)
    dense = semantic.similarities(goal, prompt, postings)
    assert isinstance(dense[0], semantic.DenseCosines)
    for a, b in zip(plain, dense, strict=True):
        assert a.at_least(threshold, limit) == b.at_least(threshold, limit)
        for doc in range(-1, 45):
            assert (doc in a) == (doc in b) and a.get(doc) == b.get(doc)


def test_an_api_stub_page_close_to_the_prompt_gets_no_evidence_from_the_model(tmp_path, monkeypatch):
    """Tried as a new user would on a TUI framework's mkdocs docs: `api/binding.md`, whose whole text is
    `::: textual.binding`, was HOT for "how do I add a key binding?" by its vector of two words. A stub is a
    hub: the model's evidence lifts it no more than the text's does (a note app's release notes, each a hub,
    took the WARM places by it)."""
    monkeypatch.setenv("CTX_STATE", str(tmp_path / "state.db"))
    write_docs(tmp_path / "docs", {
        "api/keys.md": "::: textual.binding\n",
        "guide/input.md": "# Input\n\nKeys reach the focused widget first. A binding maps a key to an action: "
                          "list them in BINDINGS on the app or a widget.\n",
        **{f"guide/topic{i}.md": f"# Topic {i}\n\nScreens, widgets and styles, part {i}.\n" for i in range(6)}})
    (tmp_path / "config.yaml").write_text("docs: docs\n")
    turn = route(TurnRequest("textual binding"), str(tmp_path / "config.yaml"))
    assert not any(c.startswith("semantic:") for c in turn.causes.get("api/keys.md", ())), turn.causes
    assert "api/keys.md" not in [e.path for e in turn.plan.entries]
    assert [e.tier for e in turn.plan.entries if e.path == "guide/input.md"] == ["HOT"]
