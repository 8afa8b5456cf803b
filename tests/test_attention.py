import pytest

from context_router.turn.attention import FLOOR, ZERO_SIGNAL, FileScore, Signal, update


def run(prev, turn, hits=None, related=None, pins=None, rate=0.7, known=lambda p: True, co=0.35):
    related = related or {}
    return update(prev, turn, hits or {}, known, lambda p: rate if isinstance(rate, float) else rate(p),
                  lambda p: tuple(related.get(p, ())), co, pins or {})


def test_decay_sequence_to_cold():
    scores = run({}, 1, {"a.md": ["a"]}).scores
    seen = [scores["a.md"].score]
    for turn in range(2, 6):
        scores = run(scores, turn).scores
        seen.append(scores["a.md"].score)
    assert seen == pytest.approx([1.0, 0.70, 0.49, 0.343, 0.2401])
    assert seen[-1] < 0.25  # COLD on the 5th quiet turn


def test_hit_brings_back_to_one_and_records_causes():
    prev = {"a.md": FileScore(0.3, 1, 1)}
    upd = run(prev, 5, {"a.md": ["alpha", "beta"]})
    assert upd.scores["a.md"] == FileScore(1.0, 5, 2)
    assert upd.causes["a.md"] == ("decay", "keyword:alpha", "keyword:beta")


def test_coactivation_one_hop_capped():
    related = {"a.md": ["b.md"], "b.md": ["c.md"]}
    upd = run({"b.md": FileScore(1.0)}, 2, {"a.md": ["a"]}, related)
    assert upd.scores["b.md"].score == 1.0  # 0.70 + 0.35 capped at 1.0
    assert "c.md" not in upd.scores  # one hop only
    assert upd.causes["b.md"] == ("decay", "coactivation:a.md")


def test_pin_floor_and_unknown_files_dropped():
    upd = run({"gone.md": FileScore(1.0)}, 2, pins={"p.md": 0.25}, known=lambda p: p != "gone.md")
    assert upd.scores == {"p.md": FileScore(0.25)}
    assert upd.causes["p.md"] == ("pin",)


def test_per_file_rate_and_zero_floor():
    upd = run({"slow.md": FileScore(1.0), "fast.md": FileScore(0.001)}, 2,
              rate=lambda p: 0.9 if p == "slow.md" else 0.5)
    assert upd.scores["slow.md"].score == pytest.approx(0.9)
    assert "fast.md" not in upd.scores
    assert upd.causes["fast.md"] == ("decay", "zero")


def test_a_cause_given_twice_is_recorded_once():
    """Tried as a new user would: `reasons` read ['semantic:0.56', 'semantic:0.56'] (the goal's recall and the
    prompt's cosine both lift the doc, with the same figure)."""
    signals = [Signal("a.md", FLOOR, 0.6, "semantic:0.56"), Signal("a.md", FLOOR, 1.0, "semantic:0.56"),
               Signal("a.md", FLOOR, 1.0, "lexical:best")]
    upd = update({"a.md": FileScore(0.3, 1)}, 4, {}, lambda p: True, lambda p: 0.7, lambda p: (), 0.35, {},
                 signals)
    assert upd.causes["a.md"] == ("decay", "semantic:0.56")
    assert upd.scores["a.md"].score == 1.0


def test_a_doc_lifted_by_evidence_records_its_hit_turn():
    """Tried as a new user would: `ctx status` showed `-` as the last hit of a doc made HOT by its text."""
    prev = {"old.md": FileScore(0.49, 2, 1), "held.md": FileScore(1.0, 3, 1), "gone.md": FileScore(0.5, 2, 1)}
    signals = [Signal("new.md", FLOOR, 1.0, "lexical:best"), Signal("old.md", FLOOR, 0.6, "lexical:0.40"),
               Signal("held.md", FLOOR, 0.5, "lexical:0.10"), Signal("gone.md", ZERO_SIGNAL, 0.0, "freeze:1")]
    upd = update(prev, 5, {}, lambda p: True, lambda p: 0.7, lambda p: (), 0.35, {"pin.md": 0.3}, signals)
    assert upd.scores["new.md"] == FileScore(1.0, 5, 0)
    assert upd.scores["old.md"] == FileScore(0.6, 5, 1)  # its keyword hits are those of its last keyword turn
    assert upd.scores["held.md"].last_hit_turn == 3  # above the floor already: the floor did not lift it
    assert upd.scores["pin.md"].last_hit_turn == 0  # a pin is not a hit
