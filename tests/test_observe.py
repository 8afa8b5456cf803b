"""Observed docs folders (the resident server): a turn whose folder reported no change since a scan that proves
the index current skips its scan; one whose folder reported changes reads them; anything the observer cannot
vouch for is scanned as before."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from context_router import indexer, workspace
from context_router.router import TurnRequest, route
from context_router.store import index, observe
from context_router.workspace import with_workspace

from .conftest import write_docs
from .test_quickscan import N, age_folders, big  # noqa: F401 - the fixture


def event(path: Path, kind: str = "modified", dest: Path | None = None) -> SimpleNamespace:
    return SimpleNamespace(event_type=kind, src_path=str(path), dest_path=str(dest) if dest else "")


@pytest.fixture
def observing(monkeypatch):
    """This process observes as the server does; its observers are stopped after the test."""
    monkeypatch.setattr(observe, "OBSERVING", {})
    monkeypatch.setattr(observe, "WANTED", [])
    monkeypatch.setattr(observe, "REFUSED", set())
    yield
    observe.stop_all()


@pytest.fixture
def scans(monkeypatch) -> list[str]:
    """The roots of the scans turns run."""
    seen: list[str] = []
    real = index.scan

    def counted(root, *args, **kwargs):
        seen.append(root)
        return real(root, *args, **kwargs)

    monkeypatch.setattr(index, "scan", counted)
    return seen


@pytest.fixture
def small(tmp_path: Path) -> Path:
    write_docs(tmp_path / "docs", {"guide/kiwi.md": "# Kiwi\n\nkiwi fruit notes\n", "ref/fig.md": "# Fig\n\nfigs\n"})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nsemantic: {enabled: false}\nrate_limit: {turns_per_minute: 0}\n")
    return cfg


def observer_of(cfg: Path) -> observe.Observed:
    return observe.OBSERVING[str(cfg.parent / "docs")]


def test_the_observer_names_what_a_scan_could_list(tmp_path):
    seen = observe.Observed(str(tmp_path))
    seen.dispatch(event(tmp_path / "a" / "x.md"))
    seen.dispatch(event(tmp_path / "b.md", "moved", tmp_path / "c" / "b.md"))
    seen.dispatch(event(tmp_path / ".ctx" / "state.db"))  # the state's own folder
    seen.dispatch(event(tmp_path / ".swp"))
    seen.dispatch(event(tmp_path / ".ctxignore"))
    seen.dispatch(event(tmp_path / "a" / "x.md", "opened"))  # a read
    seen.dispatch(event(tmp_path.parent / "elsewhere.md"))
    assert seen.take() == {"a/x.md", "b.md", "c/b.md", ".ctxignore"}
    assert seen.take() == frozenset()  # taken once


def test_too_many_changes_are_forgotten_and_the_observer_starts_again(tmp_path, monkeypatch):
    monkeypatch.setattr(observe, "MAX_CHANGED", 3)
    seen = observe.Observed(str(tmp_path))
    before = seen.since
    later = before + 100
    monkeypatch.setattr(observe.time, "time", lambda: later)  # the clock, injected
    for i in range(5):
        seen.dispatch(event(tmp_path / f"d{i}.md"))
    assert seen.since == later  # only a full scan from now on proves the index current
    assert seen.take() == {"d4.md"}


def test_a_quiet_observed_folder_is_not_scanned(small, scans, observing):
    route(TurnRequest("kiwi"), str(small))  # nothing observes the folder yet: scanned, and asked for
    observe.settle()
    assert len(scans) == 1 and len(observe.OBSERVING) == 1
    route(TurnRequest("kiwi"), str(small))  # the last full scan is older than the observer: scanned
    assert len(scans) == 2
    res = route(TurnRequest("kiwi"), str(small))
    assert len(scans) == 2  # no change since a full scan that followed the observer: no scan
    assert "HOT] guide/kiwi.md" in res.text


def test_a_reported_edit_is_read_on_the_next_turn(small, scans, observing):
    for _ in range(2):
        route(TurnRequest("kiwi"), str(small))
        observe.settle()
    doc = small.parent / "docs" / "ref" / "fig.md"
    doc.write_text("# Quokkas\n\nfigs, now about quokkas\n")
    observer_of(small).dispatch(event(doc))  # what the OS reports (the real observer may report it first)
    before = len(scans)
    assert "HOT] ref/fig.md" in route(TurnRequest("quokkas"), str(small)).text
    assert len(scans) == before + 1


def test_the_os_reports_an_edit_in_place(small, observing):
    route(TurnRequest("kiwi"), str(small))
    observe.settle()
    seen = observer_of(small)
    if seen._observer is None:
        pytest.skip("this system does not report file changes")
    doc = small.parent / "docs" / "guide" / "kiwi.md"
    doc.write_text("# Kiwi\n\nkiwi, and now wombats\n")
    changed: set[str] = set()
    end = time.monotonic() + 10  # waits for the event, never for a time the test measures
    while "guide/kiwi.md" not in changed and time.monotonic() < end:
        changed |= seen.take() or set()
        time.sleep(0.02)
    assert "guide/kiwi.md" in changed


def test_an_old_full_scan_is_done_again(small, scans, observing, monkeypatch):
    for _ in range(3):
        route(TurnRequest("kiwi"), str(small))
        observe.settle()
    assert len(scans) == 2
    later = time.time() + workspace.OBSERVED_FULL_S + 1
    monkeypatch.setattr(workspace.time, "time", lambda: later)  # the clock, injected
    route(TurnRequest("kiwi"), str(small))
    assert len(scans) == 3  # a folder the OS may not report on (a network mount) is still checked


def test_a_folder_with_links_is_always_scanned(tmp_path, scans, observing):
    write_docs(tmp_path / "docs", {"real/kiwi.md": "# Kiwi\n\nkiwi\n"})
    os.symlink(tmp_path / "docs" / "real", tmp_path / "docs" / "alias")
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nsemantic: {enabled: false}\nrate_limit: {turns_per_minute: 0}\n")
    for _ in range(4):
        route(TurnRequest("kiwi"), str(cfg))
        observe.settle()
    assert len(scans) == 4  # where a link points can change without a report


def test_a_link_out_of_the_folder_leaves_it_provably_quiet(tmp_path, scans, observing):
    """Tried as a new user would: `docs/README.md -> ../README.md` is common, and ctx never follows a link out
    of the docs folder, so where it points changes nothing a turn reads: the folder is trusted as any other."""
    write_docs(tmp_path / "docs", {"real/kiwi.md": "# Kiwi\n\nkiwi\n"})
    (tmp_path / "README.md").write_text("# Readme\n\nkiwi project\n")
    os.symlink(tmp_path / "README.md", tmp_path / "docs" / "README.md")
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nsemantic: {enabled: false}\nrate_limit: {turns_per_minute: 0}\n")
    for _ in range(4):
        route(TurnRequest("kiwi"), str(cfg))
        observe.settle()
    assert len(scans) == 2  # as a folder without links (test_a_quiet_observed_folder_is_not_scanned)


def test_a_big_folder_with_links_has_no_full_scan_started_on_every_turn(big, scans, observing,  # noqa: F811
                                                                        monkeypatch):
    """No scan proves a folder with a link inside it current, so none is due on every turn: it is scanned in
    full on the clock, as an unobserved folder is (each full scan is a process of its own)."""
    docs = big.parent / "docs"
    os.symlink(docs / "g1", docs / "g1-alias")
    age_folders(docs)
    assert with_workspace(indexer.run, str(big))  # the link is in the last full scan
    started: list[str] = []
    monkeypatch.setattr("context_router.store.background.start", lambda *a, **k: started.append("full"))
    before = len(scans)
    for _ in range(4):
        route(TurnRequest("doc 0001"), str(big))
        observe.settle()
    assert started == []
    assert len(scans) == before + 4  # each turn still scans quickly: where a link points can change without a report


def test_a_folder_the_os_will_not_observe_is_scanned_and_not_tried_again(small, scans, observing, monkeypatch):
    tries: list[str] = []

    def refuse(self):
        tries.append(self.root)
        return False

    monkeypatch.setattr(observe.Observed, "start", refuse)
    for _ in range(3):
        route(TurnRequest("kiwi"), str(small))
        observe.settle()
    assert len(scans) == 3 and len(tries) == 1 and observe.OBSERVING == {}


def test_only_the_last_folders_are_observed(tmp_path, observing, monkeypatch):
    monkeypatch.setattr(observe, "OBSERVED_ROOTS", 2)
    stopped: list[str] = []
    monkeypatch.setattr(observe.Observed, "start", lambda self: True)
    monkeypatch.setattr(observe.Observed, "stop", lambda self: stopped.append(self.root))
    roots = []
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        roots.append(str(tmp_path / name))
        assert observe.changes(roots[-1]) is None  # not observed yet: asked for
        observe.settle()
    assert list(observe.OBSERVING) == roots[1:]
    assert stopped == [os.path.realpath(roots[0])]


def test_nothing_is_observed_outside_the_server(small, scans):
    assert observe.OBSERVING is None
    for _ in range(3):
        route(TurnRequest("kiwi"), str(small))
        observe.settle()
    assert len(scans) == 3


def test_a_big_observed_folder_has_its_full_scan_run_in_the_background(big, scans, observing, monkeypatch):  # noqa: F811
    started: list[str] = []
    monkeypatch.setattr("context_router.store.background.start", lambda *a, **k: started.append("full"))
    route(TurnRequest("doc 0001"), str(big))
    assert started == []  # not observed: the full scan of a minute ago stands
    observe.settle()
    route(TurnRequest("doc 0001"), str(big))  # observed, but the last full scan is older than the observer
    assert started  # a full scan is due now, not in a minute


def test_a_reported_edit_in_a_big_folder_is_statted(big, observing, monkeypatch):  # noqa: F811
    monkeypatch.setattr(workspace, "SAMPLE_DOCS", 0)  # no rotating sample: only the report finds the edit
    route(TurnRequest("warm"), str(big))
    observe.settle()
    doc = big.parent / "docs" / "g4" / "d0004.md"
    doc.write_text("# Narwhals\n\nbody 4, now about narwhals\n")
    observer_of(big).dispatch(event(doc))
    assert "g4/d0004.md" in route(TurnRequest("narwhals"), str(big)).text


def test_a_folder_of_too_many_folders_is_not_observed(tmp_path, monkeypatch):
    monkeypatch.setattr(observe, "MAX_FOLDERS", 3)
    for i in range(3):
        (tmp_path / f"f{i}").mkdir()
    assert not observe._folders_over(str(tmp_path), 3)
    (tmp_path / ".git" / "objects").mkdir(parents=True)  # hidden folders count: the OS would watch them
    assert observe._folders_over(str(tmp_path), 3)
    assert observe.Observed(str(tmp_path)).start() is False


def test_a_full_scan_counts_from_when_it_started(small, monkeypatch):
    """A doc changed while a scan runs may be missed by it: the scan vouches for the docs as they were when it
    started, so an observer that started meanwhile is not taken as covered by it."""
    ticks = iter(range(1_000_000, 2_000_000))
    monkeypatch.setattr(workspace.time, "time", lambda: float(next(ticks)))  # the clock, injected: each read later
    during: list[float] = []
    real = index.scan

    def scan(*args, **kwargs):
        out = real(*args, **kwargs)
        during.append(workspace.time.time())  # the scan has listed the folder by now
        return out

    monkeypatch.setattr(index, "scan", scan)
    route(TurnRequest("kiwi"), str(small))
    full_at = with_workspace(lambda ws: ws.store.get_meta(workspace.FOLDERS_KEY), str(small))["full_at"]
    assert full_at < during[-1]


def test_a_replaced_docs_folder_is_scanned_and_observed_afresh(small, scans, observing):
    for _ in range(3):
        route(TurnRequest("kiwi"), str(small))
        observe.settle()
    assert len(scans) == 2
    docs = small.parent / "docs"
    os.rename(docs, small.parent / "old")  # a checkout that swaps the folder: the observer watched the old one
    write_docs(docs, {"guide/kiwi.md": "# Kiwi\n\nkiwi fruit notes\n", "ref/lime.md": "# Lime\n\nlimes\n"})
    assert "HOT] ref/lime.md" in route(TurnRequest("lime"), str(small)).text
    assert len(scans) == 3
    observe.settle()
    assert observer_of(small).folder == observe._identity(str(docs))


@pytest.mark.parametrize(("fstype", "local"), [("ext4", True), ("overlay", True), ("nfs4", False),
                                               ("9p", False), ("fuse.sshfs", False), ("cifs", False)])
def test_only_a_local_file_system_is_observed(tmp_path, fstype, local):
    """A change made on the other side of a network mount, a WSL Windows drive or a VM's shared folder is
    never reported: such a folder is scanned every turn as before."""
    mounts = tmp_path / "mounts"
    mounts.write_text(f"/dev/vda / ext4 rw 0 0\nsrv:/docs /mnt/team\\040docs {fstype} rw 0 0\n")
    assert observe._local("/mnt/team docs/guide", str(mounts)) is local
    assert observe._local("/home/me/docs", str(mounts)) is True  # the root file system's
    assert observe._local("/mnt/team", str(tmp_path / "none")) is False  # no mount table: not observed


def test_a_mount_point_of_any_name_is_found(tmp_path):
    mounts = tmp_path / "mounts"
    mounts.write_text("/dev/vda / ext4 rw 0 0\nsrv:/d /mnt/équipe數\\011x\\134y nfs rw 0 0\n", encoding="utf-8")
    assert observe._local("/mnt/équipe數\tx\\y/docs", str(mounts)) is False
