"""Quick scans of big docs folders: only the folders whose mtime moved are listed, a rotating sample of docs
is statted for edits in place, everything is scanned again once a minute; small folders as always."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from context_router import indexer, workspace
from context_router.router import TurnRequest, route
from context_router.store import background, index
from context_router.workspace import with_workspace

from .conftest import write_docs

N = 2100  # above workspace.QUICK_FROM_DOCS


def age_folders(root: Path, seconds: float = 10.0) -> None:
    """Folders written a moment ago are not trusted (their mtime may still move within its granularity)."""
    past = time.time() - seconds
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        os.utime(folder, (past, past))


@pytest.fixture
def big(tmp_path: Path) -> Path:
    write_docs(tmp_path / "docs", {f"g{i % 7}/d{i:04}.md": f"# Doc {i:04}\n\nbody {i}\n" for i in range(N)})
    age_folders(tmp_path / "docs")
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nsemantic: {enabled: false}\nrate_limit: {turns_per_minute: 0}\n")
    # The index is built here, in this process: a turn that found it unfinished would start a background
    # indexer, and one that takes the lock only once its interpreter is up (on a busy machine, after
    # wait_for_indexer looked) serves a test's next turn read-only, without the change it tests.
    assert with_workspace(indexer.run, str(cfg))
    route(TurnRequest("warm up"), str(cfg))  # the folders are remembered
    route(TurnRequest("warm up"), str(cfg))
    wait_for_indexer(tmp_path)
    return cfg


def wait_for_indexer(tmp_path: Path) -> None:
    """Until a background indexer a turn started lets go of the state: a turn it still holds the lock from is
    served read-only, from the index as it was (on a busy machine the warm-up's indexer may outlive it)."""
    end = time.monotonic() + 60
    while background.running(str(tmp_path / "state")) and time.monotonic() < end:
        time.sleep(0.05)


def test_an_unchanged_folder_is_not_listed_or_statted_again(tmp_path):
    write_docs(tmp_path, {"a/x.md": "# X\n", "b/y.md": "# Y\n"})
    age_folders(tmp_path)
    first = index.scan(str(tmp_path))
    assert first.folders is not None
    quick = index.Quick(first.folders, sample=("b/y.md",))
    again = index.scan(str(tmp_path), quick=quick)
    assert again.listed == () and again.folders == first.folders  # nothing listed: every folder trusted
    assert again.files == {"b/y.md": first.files["b/y.md"]}  # only the sampled doc was statted
    (tmp_path / "a" / "z.md").write_text("# Z\n")  # an add moves the folder's mtime
    third = index.scan(str(tmp_path), quick=quick)
    assert third.listed == ("a/",) and set(third.files) == {"a/x.md", "a/z.md", "b/y.md"}


def test_adds_and_removes_are_seen_on_the_next_turn(big, tmp_path):
    new = tmp_path / "docs" / "g3" / "brandnew.md"
    new.write_text("# Brandnew\n\nzebra crossing\n")  # the folder's new mtime is recent: listed again
    assert "HOT] g3/brandnew.md" in route(TurnRequest("brandnew"), str(big)).text
    new.unlink()
    (tmp_path / "docs" / "g3").touch()
    assert "brandnew" not in route(TurnRequest("brandnew"), str(big)).text


def test_an_edit_in_place_is_seen_once_sampled(big, tmp_path, monkeypatch):
    doc = tmp_path / "docs" / "g1" / "d0001.md"
    doc.write_text("# Quokkas\n\nbody 1, now about quokkas\n")
    monkeypatch.setattr(workspace, "SAMPLE_DOCS", N)  # this turn's sample covers every doc
    res = route(TurnRequest("quokkas"), str(big))
    assert "g1/d0001.md" in res.text


def test_everything_is_scanned_again_after_a_minute(big, tmp_path, monkeypatch):
    doc = tmp_path / "docs" / "g2" / "d0002.md"
    doc.write_text("# Wombats\n\nbody 2, now about wombats\n")
    monkeypatch.setattr(workspace, "SAMPLE_DOCS", 0)
    monkeypatch.setattr(workspace, "FULL_SCAN_EVERY_S", 0.0)
    route(TurnRequest("anything"), str(big))  # a turn has no time for the full scan: the background does it
    if not with_workspace(indexer.run, str(big)):  # the indexer that turn started holds the lock
        wait_for_indexer(tmp_path)
    assert "g2/d0002.md" in route(TurnRequest("wombats"), str(big)).text


def test_without_a_sample_or_a_full_scan_an_edit_in_place_waits(big, tmp_path, monkeypatch):
    doc = tmp_path / "docs" / "g4" / "d0004.md"
    doc.write_text("# Numbats\n\nbody 4\n")
    monkeypatch.setattr(workspace, "SAMPLE_DOCS", 0)  # the quick scan is what it says: the folder is trusted
    assert "g4/d0004.md" not in route(TurnRequest("numbats"), str(big)).text


def test_a_folder_changed_a_moment_ago_is_listed_again(tmp_path):
    write_docs(tmp_path, {"a/x.md": "# X\n"})
    first = index.scan(str(tmp_path))
    assert first.folders is not None
    again = index.scan(str(tmp_path), quick=index.Quick(first.folders, sample=()))
    assert "a/" in (again.listed or ()) and "a/x.md" in again.files  # too fresh to trust


def test_a_folder_removed_whole_takes_its_docs_out_of_the_index(big, tmp_path):
    import shutil

    shutil.rmtree(tmp_path / "docs" / "g5")
    route(TurnRequest("anything"), str(big))

    def listing(ws):
        with ws.store.read_transaction():
            return ws.store.listing(), ws.store.doc_count()

    files, count = with_workspace(listing, str(big))
    assert not any(p.startswith("g5/") for p in files) and count == N - N // 7
