"""A long-lived process keeps what it made of the docs it read, by each file's identity: the docs a
conversation is on are not read again, and a doc that changed is."""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from context_router import router
from context_router.router import TurnRequest, route
from context_router.store import index

from .conftest import write_docs

DOCS = {
    "lighthouse.md": "# Lighthouse\n\nThe GPU server.\n\n## Thermals\n\nThe RTX card throttles above 83 C.\n",
    "vault.md": "# Vault\n\nStorage and backups.\n\n## Scrubs\n\nA scrub runs every first Sunday.\n",
    "shared.md": '# Shared\n\n--8<-- "part.md"\n',
    "part.md": "The lighthouse fan curve was raised in March.\n",
}


def later(monkeypatch, ticks: int) -> None:
    """The clock identity() reads, moved on: the docs were written long enough ago to be taken as unchanged
    while their times are (a file changed a moment ago never is)."""
    now = time.time_ns()
    monkeypatch.setattr(index, "now_ns", lambda: now + ticks * 10 * index.RACY_NS)


def project(tmp_path: Path) -> Path:
    write_docs(tmp_path / "docs", DOCS)
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n"
                   "keywords: {lighthouse.md: [lighthouse], vault.md: [vault], shared.md: [lighthouse]}\n")
    return cfg


def counting(monkeypatch) -> list[str]:
    reads: list[str] = []
    real = index.read_text

    def read_text(root: str, rel: str, limit: int | None = None) -> str | None:
        reads.append(rel)
        return real(root, rel, limit)

    monkeypatch.setattr(index, "read_text", read_text)
    monkeypatch.setattr(router, "RECENT", index.Recent(1_000_000))
    return reads


def test_a_doc_unchanged_since_the_last_turn_is_not_read_again(tmp_path, monkeypatch):
    cfg = project(tmp_path)
    route(TurnRequest("lighthouse and vault"), str(cfg))
    later(monkeypatch, 1)
    reads = counting(monkeypatch)
    first = route(TurnRequest("lighthouse and vault", session="a"), str(cfg)).text
    assert {"lighthouse.md", "vault.md", "shared.md"} <= set(reads)
    reads.clear()
    again = route(TurnRequest("lighthouse and vault", session="b"), str(cfg)).text
    assert again == first
    assert "lighthouse.md" not in reads and "vault.md" not in reads
    assert "shared.md" in reads  # it includes another file: its own file cannot say whether it changed


def test_a_doc_changed_since_it_was_kept_is_read_again(tmp_path, monkeypatch):
    cfg = project(tmp_path)
    route(TurnRequest("lighthouse"), str(cfg))
    later(monkeypatch, 1)
    reads = counting(monkeypatch)
    assert "83 C" in route(TurnRequest("lighthouse", session="a"), str(cfg)).text
    doc = tmp_path / "docs" / "lighthouse.md"
    doc.write_text(DOCS["lighthouse.md"].replace("83 C", "85 C"))  # the same size: only its times move
    later(monkeypatch, 2)
    reads.clear()
    text = route(TurnRequest("lighthouse", session="b"), str(cfg)).text
    assert "lighthouse.md" in reads and "85 C" in text and "83 C" not in text


def test_a_doc_changed_a_moment_ago_is_always_read(tmp_path, monkeypatch):
    """Two writes within the clock's tick can leave a file's times as they were: such a file is not kept."""
    cfg = project(tmp_path)
    reads = counting(monkeypatch)
    route(TurnRequest("lighthouse", session="a"), str(cfg))
    reads.clear()
    route(TurnRequest("lighthouse", session="b"), str(cfg))
    assert "lighthouse.md" in reads


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 3), st.integers(0, 400)), max_size=60),
       st.integers(1, 1000))
def test_what_is_kept_stays_within_its_chars(puts, cap):
    recent = index.Recent(cap)
    for key, ident, chars in puts:
        recent.put(key, (ident,), "x" * chars, chars)
        assert 0 <= recent.chars <= cap
        kept = recent.get(key, (ident,))
        assert kept == ("x" * chars if chars <= cap else None)
        assert recent.get(key, (ident + 1,)) is None  # another identity: not this file as it was
