"""Read-only views of a workspace: status, explain, check. They never change a session's state."""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from dataclasses import dataclass

from ..errors import InputError
from ..records import DOC_SUFFIXES, READS, FileScore, is_doc_file
from ..router import common_in_text, hint_words, kept_rate, pin_floors, scores_at
from ..store import index, rst
from ..turn import attention
from ..turn.keywords import WEAK_OWNERS, has_word, is_weak, keyword_tokens
from ..turn.sections import is_release_notes
from ..turn.words import doc_name
from ..workspace import Workspace, current_index, doc_keywords, index_in_background, refresh
from . import scaffold

_MARKUP = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>\n]*>", re.DOTALL | re.IGNORECASE)  # tags, scripts, styles

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

UNTITLED_FOLDER = 5, 0.9  # a folder of at least this many untitled docs, this share of its docs, names them by files
EACH_LINE = 3  # findings of one kind (docs without a title, shared keywords) one a line; more share one line
COMMON_EACH_LINE = 8  # keywords that are a common word, each with a phrase to say instead, one a line


@dataclass(frozen=True)
class StatusRow:
    path: str
    score: float
    tier: str
    last_hit_turn: int
    pinned: bool
    keywords: tuple[str, ...]
    cluster: int | None = None  # the doc's topic cluster (semantic layer)
    left_out: str | None = None  # why the last turn did not show a doc that qualified: budget, warm share, cap, intent


@dataclass(frozen=True)
class Status:
    session: str
    turn: int
    rows: tuple[StatusRow, ...]
    n_docs: int
    frozen: tuple[int, ...] = ()  # clusters the conversation has left (semantic layer)
    semantic: bool = False
    pending: int = 0  # changed docs not indexed yet (a big repo's first contact)
    indexing: bool = False  # docs are being indexed in the background (how many are left may not be known)

    def to_dict(self) -> dict[str, object]:
        files: list[dict[str, object]] = []
        for r in self.rows:
            row: dict[str, object] = {"path": r.path, "score": round(r.score, 4), "tier": r.tier,
                                      "last_hit_turn": r.last_hit_turn, "pinned": r.pinned}
            if r.left_out:
                row["left_out"] = r.left_out
            if self.semantic:
                row["cluster"] = r.cluster
            files.append(row)
        out: dict[str, object] = {"session": self.session, "turn": self.turn, "files": files}
        if self.semantic:
            out["frozen_clusters"] = list(self.frozen)
        return out


def status(ws: Workspace, session: str, trust_index: bool = False, implied: bool = False) -> Status:
    """implied: `session` is only the default (see Store.resolve_session)."""
    semantic_on = ws.config.semantic.enabled
    with ws.store.transaction():
        snap = current_index(ws, trust_index)
        session = ws.store.resolve_session(session, implied)
        sess = ws.store.session(session)
        pinned, _ = pin_floors(ws, snap, time.time())
        now = scores_at(ws.config, snap, sess.scores, sess.turn)
        known = ws.store.known(now)
        scored = sorted(((p, fs) for p, fs in now.items() if fs.score > 0 and p in known),
                        key=lambda kv: (-kv[1].score, kv[0]))
        kws = ws.store.keywords_of(known)
        clusters = {p: c for p, (_, c) in ws.store.sem_by_path(known).items()} if semantic_on else {}
        model = ws.store.get_meta("semantic") if semantic_on else None
        turns = ws.store.turns([session])
        last = turns[-1] if turns and turns[-1][1] == sess.turn else None
    memory = sess.semantic
    current = model is not None and memory.get("model") == model.get("made")
    frozen = tuple(sorted(int(c) for c in memory.get("frozen", {}))) if current else ()
    shown: dict[str, str] = {p: v[0] for p, v in last[4].items()} if last else {}
    rows = tuple(StatusRow(p, fs.score, shown[p] if shown.get(p) in ("HOT", "WARM") else "COLD",
                           fs.last_hit_turn, p in pinned, kws.get(p, ()), clusters.get(p),
                           shown[p] if shown.get(p) in ("budget", "warm share", "cap", "intent", "held") else None)
                 for p, fs in scored)
    if snap.pending or snap.due:
        index_in_background(ws)
    return Status(session, sess.turn, rows, snap.n_docs, frozen, semantic_on, snap.pending,
                  snap.unlisted or snap.indexing)


def body_text(ws: Workspace, path: str) -> str:
    text = index.read_doc(ws.config.docs_root, path)
    return "" if text is None else index.body_of(text, path)


@dataclass(frozen=True)
class Explanation:
    path: str
    session: str
    turn: int
    score: float
    keywords: tuple[str, ...]
    history: tuple[tuple[int, float, str], ...]
    last: LastTurn | None = None  # how the session's last turn showed the doc, or why it did not
    hot_keywords: tuple[str, ...] | None = None  # those of `keywords` a prompt that says them makes HOT (None: all)


@dataclass(frozen=True)
class LastTurn:
    """How a turn showed a doc, or why not, with the figures that decided it."""

    turn: int
    verdict: str  # HOT, WARM; or why not shown: budget, warm share, held, cap, intent, below (the WARM line), unmatched
    score: float
    chars: int  # of its block, when shown
    printed: int  # chars the turn printed
    rank: int  # by score among the docs at or above the WARM line (0: below it)
    qualified: int  # docs at or above the WARM line
    warm_line: float
    hot_max: int
    warm_max: int
    hot_places: int  # of the HOT places, those taken (the rest rank for the WARM places)
    header_chars: int  # what its WARM header costs
    doc_chars: int
    last_hit: int
    hub: bool = False  # a page of links, a log of releases or a stub: the text ranking never brings it in


def named_doc(ws: Workspace, path: str) -> str:
    """The doc a user names: its path in the docs folder or from the working folder (index.user_doc_path),
    without its extension (`ctx show guards`, as its site names it), or by its file name alone when one doc
    has it (`ctx show throttling.md` for `api-guide/throttling.md`: tried as a new user would, it was unknown).
    A name that fits no doc is returned as given; one that fits several is an InputError naming them."""
    root = ws.config.docs_root
    rel = index.user_doc_path(root, path)
    if os.path.isfile(os.path.join(root, rel)):
        return rel
    names = [rel] if is_doc_file(rel) else [rel + ext for ext in DOC_SUFFIXES]
    found = [name for name in names if os.path.isfile(os.path.join(root, name))]
    if not found and "/" not in rel.strip("/"):
        with ws.store.transaction():
            listed = ws.store.listing()
        found = sorted(p for p in listed if any(p.endswith("/" + name) for name in names))
        number = _numbered(path)
        if not found and number is not None:
            found = sorted(p for p in listed if _leading_number(p.rsplit("/", 1)[-1]) == number)
    if len(found) > 1:
        raise InputError(f"{path} names {len(found)} docs: {', '.join(found[:5])}"
                         + (f", +{len(found) - 5} more" if len(found) > 5 else "") + " (say which)")
    return found[0] if found else rel


def _numbered(name: str) -> int | None:
    """The number a doc is named by ("3058", "RFC 3058", "adr-12"), as numbered decision records are: tried as a new
    user would on a language's RFCs (`text/3058-try-trait-v2.md`), `ctx show 3058` was an unknown doc."""
    head, _, digits = name.strip().lower().replace("-", " ").replace("_", " ").rpartition(" ")
    if not digits.isdigit() or head not in ("", "rfc", "adr", "rfd", "pep", "kep", "decision", "record"):
        return None
    return int(digits)


def _folder_arg(folder: str) -> str:
    """A folder as `ctx init` takes it from here: `ctx init --force` alone took the default folder, not the one
    the config names (tried as a new user would: the docs of `.` became the five pages of `docs/`)."""
    import shlex

    return shlex.quote(os.path.relpath(folder))


def _leading_number(name: str) -> int | None:
    """The number a file's name starts with, before a dash or an underscore (`0243-trait-based.md`: 243)."""
    digits = name[:len(name) - len(name.lstrip("0123456789"))]
    return int(digits) if digits and name[len(digits):len(digits) + 1] in ("-", "_") else None


def explain(ws: Workspace, session: str, path: str, implied: bool = False) -> Explanation:
    path = named_doc(ws, path)
    with ws.store.transaction():
        snap = current_index(ws, False)
        session = ws.store.resolve_session(session, implied)
        history = ws.store.history(session, path)
        if not ws.store.known([path]) and not history:
            raise InputError(f"unknown doc: {path} (not in {ws.config.docs_root})")
        sess = ws.store.session(session)
        kws = ws.store.keywords_of([path]).get(path, ())
        hot = hint_words(ws, [path], snap.n_docs).get(path, ()) if ws.config.semantic.enabled else None
        now = scores_at(ws.config, snap, sess.scores, sess.turn)
        # The history keeps the turns that changed the score beyond decay; the rule tells the others again.
        story = attention.story(history, kept_rate(ws.config, snap, sess.scores, path), sess.turn)
        turns = ws.store.turns([session])
    fs = now.get(path)
    last = turns[-1] if turns and turns[-1][1] == sess.turn else None
    return Explanation(path, session, sess.turn, fs.score if fs else 0.0, kws, tuple(story),
                       _last_turn(ws, path, now, last[1], last[3], last[4]) if last else None, hot)


def _last_turn(ws: Workspace, path: str, scores: dict[str, FileScore], turn: int, printed: int,
               shown: dict[str, tuple[object, ...]]) -> LastTurn:
    """Where the doc stood at the last turn: shown, or the rule that left it out (not matched, below the WARM
    line, the caps, the budget) and its figures."""
    cfg = ws.config
    fs = scores.get(path, FileScore(0.0))
    seen = shown.get(path)
    qualified = fs.score >= cfg.warm.threshold
    verdict = str(seen[0]) if seen else "budget" if qualified else "below" if fs.score > 0 else "unmatched"
    above = [p for p, s in scores.items() if s.score >= cfg.warm.threshold]
    # Docs tied on score were ranked by what this view does not keep (hit this turn, relevance): the turn
    # recorded the shown docs, then the left-out ones, each in rank order.
    order = {p: i for i, p in enumerate(shown)}
    rank = 1 + sum(1 for p in above if p != path and (scores[p].score > fs.score or scores[p].score == fs.score
                                                      and order.get(p, len(order)) < order.get(path, len(order))))
    body = body_text(ws, path)
    header, _ = index.header_of(body, cfg.warm.lines)
    chars = seen[1] if seen and len(seen) > 1 and isinstance(seen[1], int) else 0
    n_hot = sum(1 for p in above if scores[p].score >= cfg.hot.threshold)
    return LastTurn(turn, verdict, fs.score, chars, printed, rank if qualified else 0, len(above),
                    cfg.warm.threshold, cfg.hot.max_files, cfg.warm.max_files, min(n_hot, cfg.hot.max_files),
                    len(header), len(body), fs.last_hit_turn,
                    verdict == "unmatched" and bool(ws.store.hubs([path])))


@dataclass(frozen=True)
class Finding:
    level: str  # "error" | "warning"
    message: str


def check(ws: Workspace) -> tuple[Finding, ...]:
    cfg = ws.config
    findings: list[Finding] = []
    if ws.config_id is None:  # tried as a new user would, after an init that named no folder: "ok" checked nothing
        findings.append(Finding("warning", f"no ctx config.yaml here or above: ctx uses the defaults with "
                                           f"{cfg.docs_root} as docs; `ctx init DOCS` writes one"))
    messages: list[str] = []
    with ws.store.transaction():
        refresh(ws, messages.append)
        docs = ws.store.docs()
        skipped = ws.store.skipped()
    # The files skipped, by this read or an earlier one (`ctx init` counts only the docs it indexed), in one list.
    notes = {index.skipped_note(p) for p in skipped}
    findings += [Finding("warning", m) for m in (m.removeprefix("warning: ") for m in messages) if m not in notes]
    findings += _warnings(skipped, index.skipped_note,
                          lambda first, more: f"skipped {len(skipped)} files, unreadable or binary: "
                                              f"{', '.join(first)}, ... (+{more} more)")
    if not docs:
        findings.append(Finding("warning", f"no docs in {cfg.docs_root}: {READS}"))
    findings += [Finding("warning", scaffold.left_out_note(kind, cfg.docs_root, folders))
                 for kind, folders in scaffold.left_out(docs, cfg.docs_root).items()]
    # Docs with no text (a site's redirect stub, a page that is one component: `<ThemePage />`) have nothing to
    # be found by, not even a title; a Claude Code command or skill is named by its file and says what it is in
    # its front matter `description`: neither is asked for a title.
    blank = set()
    for path in sorted(docs):  # front matter problems of docs read by an earlier turn, said again
        text = index.read_doc(cfg.docs_root, path)
        meta, body, problem = index.split_front_matter(text) if text is not None else ({}, "", None)
        if not _MARKUP.sub("", body).strip() or isinstance(meta.get("description"), str):
            blank.add(path)
        message = f"{path}: {problem}"
        if problem and all(f.message != message for f in findings):
            findings.append(Finding("warning", message))
    # Entries for files that are no docs (gone, or left out by an ignore file since `ctx init` wrote them): one
    # line each, or one line for them all with how to write the config anew. Tried as a new user would: after
    # `/vendor/` was added to `.ctxignore`, 140 lines said `related: vendor/... is not a doc`.
    stale = [f"{section}: {path} is not a doc in {cfg.docs_root}"
             for section, paths in (("keywords", cfg.keywords), ("derived_keywords", cfg.derived_keywords),
                                    ("related", cfg.related), ("pinned", cfg.pinned))
             for path in paths if path not in docs]
    stale += [f"related.{source}: {target} is not a doc" for source, targets in cfg.related.items()
              for target in targets if target not in docs]
    findings += _warnings(stale, lambda line: line,
                          lambda first, more: f"{len(first) + more} entries of the config name files that are not "
                                              f"docs in {cfg.docs_root} (gone, or left out since `ctx init` wrote "
                                              f"them): {'; '.join(first)}; ... (+{more} more); `ctx init "
                                              f"{_folder_arg(cfg.docs_root)} --force` derives them anew (it "
                                              "rewrites the whole config)")
    untitled = []
    # A folder with a doc named with spaces names its pages by their files (an Obsidian vault: its title is the
    # file name, `Sync your notes across devices.md`, and `Callout.md` beside it is titled so too).
    named_by_files = {path.rpartition("/")[0] for path in docs if " " in path.rpartition("/")[2]}
    for path, doc in sorted(docs.items()):
        for target in doc.related:
            if target not in docs:
                findings.append(Finding("warning", f"{path}: front matter related {target} is not a doc"))
        if not doc.title and path not in blank and not _named_in_capitals(path) and not is_release_notes(path) \
                and path.rpartition("/")[0] not in named_by_files and not _numbered_record(path) \
                and not scaffold.underscored(path):
            # Its header is shown all the same; what it lacks is a title to be found by (a keyword, the
            # text index's title field). A page of an mkdocs site always has one: its nav entry or file name;
            # a book's page has its SUMMARY.md entry. A release's notes are named by their version. A page in
            # a folder named `_*` is a snippet others include (a site generator's 36 `_common/` pages) or a
            # Jekyll collection's, which its file name titles.
            untitled.append(path)
    untitled = _not_by_convention(untitled, docs)
    findings += _warnings(untitled, lambda path: f"{path}: no '# Title' line or front matter `title:`, so only its "
                                                 "file name names it",
                          lambda first, more: f"{len(untitled)} docs have no '# Title' line or front matter "
                                              f"`title:`, so only their file names name them: {', '.join(first)}, "
                                              f"... (+{more} more)")
    owners: dict[str, set[str]] = {}
    # Only the keywords someone wrote (config `keywords`, front matter) are judged: a doc's own name and title,
    # and what `ctx init` derived, are evidence that is weak by design when it is common or shared.
    configured: dict[str, set[str]] = {}
    for path, doc in docs.items():
        for kw in doc_keywords(cfg, doc):
            if kw != path:
                owners.setdefault(kw, set()).add(path)
        for kw in (*cfg.keywords.get(path, ()), *doc.keywords):
            configured.setdefault(" ".join(kw.lower().split()), set()).add(path)
    findings += [Finding("warning", f"keyword {kw!r} ({', '.join(sorted(named))}) holds no word, so it never "
                                    "fires: a mark alone would fire on every prompt that has it")
                 for kw, named in sorted(configured.items()) if kw and not has_word(kw)]
    shared = sorted(((kw, len(named)) for kw, named in owners.items() if kw in configured
                     and len(named) >= WEAK_OWNERS), key=lambda item: (-item[1], item[0]))
    # A site's front matter often gives every page the same few search keywords: one line between them.
    findings += _warnings(shared, lambda item: f"keyword {item[0]!r} names {item[1]} docs, so it is weak: it lifts "
                                               "them to WARM, never HOT alone; give each doc a word of its own",
                          lambda first, more: f"{len(shared)} keywords each name several docs ("
                                              + ", ".join(f"{kw!r} {n} docs" for kw, n in first)
                                              + f", ... (+{more} more)), so they are weak: they lift those docs to "
                                              "WARM, never HOT alone; give each doc a word of its own")
    # ... or a word the text of many docs holds (`reveal_type` in 16 of a type checker's 37 pages: tried as a new
    # user would, the keyword lifted its doc to WARM, and check said nothing)
    with ws.store.transaction():
        in_text = common_in_text(ws.store, [kw for kw, named in owners.items() if kw in configured
                                            and len(named) < WEAK_OWNERS], len(docs))
    common = [kw for kw, named in sorted(owners.items())
              if kw in configured and len(named) < WEAK_OWNERS and (is_weak(kw, len(named)) or kw in in_text)]

    def one(kw: str) -> str:
        first = sorted(configured[kw])[0]
        what = "in the text of many docs" if kw in in_text else "a common word"
        return (f"keyword {kw!r} ({', '.join(sorted(configured[kw]))}) is {what}, so it is weak: it lifts "
                f"the doc to WARM, never HOT alone; a phrase says more{_phrase(kw, first, docs[first].title)}")

    # Each line suggests a phrase for the user's own few; tried as a new user would on a docs platform's own
    # docs, their pages' front matter search keywords made 28 lines of this, one a word.
    findings += _warnings(common, one, lambda first, more: f"{len(common)} keywords are common words or in many docs ("
                          + ", ".join(f"{kw!r} in {sorted(configured[kw])[0]}" for kw in first)
                          + f", ... (+{more} more)), so they are weak: they lift their docs to WARM, never HOT "
                          "alone; a phrase says more", most=COMMON_EACH_LINE)
    return tuple(findings)


def _not_by_convention(untitled: list[str], docs: Mapping[str, Any]) -> list[str]:
    """The untitled docs but those of a folder below the docs' own whose docs are untitled, all but a few: its
    site titles them by their files (a key-value store's 370 command pages, `acl-cat.md`, titled from a data
    file; a runtime's 124 lint rules). Tried as a new user would, `ctx check` asked for 366 titles no one would
    write. Docs untitled throughout the docs' own folder are still named."""
    def folder(path: str) -> str:
        return path.rpartition("/")[0]

    size = Counter(map(folder, docs))
    bare = Counter(map(folder, untitled))
    least, share = UNTITLED_FOLDER
    return [p for p in untitled if not (folder(p) and bare[folder(p)] >= least
                                        and bare[folder(p)] >= share * size[folder(p)])]


def _warnings(items: list[Any], each: Callable[[Any], str], together: Callable[[list[Any], int], str],
              most: int = EACH_LINE) -> list[Finding]:
    """One warning a finding, or, past `most` findings of the kind, one line naming the first EACH_LINE of them
    and counting the rest."""
    if len(items) <= most:
        return [Finding("warning", each(item)) for item in items]
    return [Finding("warning", together(items[:EACH_LINE], len(items) - EACH_LINE))]


def _numbered_record(path: str) -> bool:
    """`text/0243-trait-based-exception-handling.md`, `adr/0012-use-postgres.md`: a numbered record is named by its
    file, a title of several words (tried as a new user would on a language's RFCs: check asked 618 of 648 for a
    title)."""
    name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    rest = name.lstrip("0123456789")[1:]
    return _leading_number(name) is not None and len(rest.replace("_", "-").split("-")) >= 2


def _named_in_capitals(path: str) -> bool:
    """LICENSE.md, NOTICE.md, CODE_OF_CONDUCT.md: a repo's file named in capitals is named by that name, as the
    forge shows it, and needs no title (tried as a new user would, `ctx init .`: a LICENSE.md was warned about)."""
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0].isupper()


def _phrase(keyword: str, path: str, title: str) -> str:
    """An example phrase for a weak keyword: the doc's name or title when it holds the keyword and more
    ('cache api responses' for 'cache'), or the doc's name, title or folder before the keyword, the first of
    them that does not hold it already ('cache cache' says no more than 'cache')."""
    own = set(keyword_tokens(keyword))
    names = [_plain(name).split() for name in (doc_name(path), title)]
    for words in names:
        if own < set(keyword_tokens(" ".join(words))):
            return f" (e.g. '{' '.join(words)}')"
    for words in (*names, *(_plain(f).split() for f in reversed(path.split("/")[:-1]))):
        if words and not own & set(keyword_tokens(" ".join(words))):
            return f" (e.g. '{' '.join(words)} {keyword}')"
    return " (two or three words people use for this doc)"


def _plain(name: str) -> str:
    return name.replace("-", " ").replace("_", " ").replace("/", " ").lower()


def _doc_and_section(ws: Workspace, path: str, section: str | None) -> tuple[str, str | None]:
    """The doc named and the section asked of it, where a path with spaces came unquoted (`ctx show Getting
    started/Sync.md Set up`: its first words are the path's end): the shortest run of words that names a doc."""
    rel = named_doc(ws, path)
    words = section.split(" ") if section else []
    if os.path.isfile(os.path.join(ws.config.docs_root, rel)):
        return rel, section
    for k in range(1, len(words) + 1):
        try:
            joined = named_doc(ws, " ".join([path, *words[:k]]))
        except InputError:
            continue
        if os.path.isfile(os.path.join(ws.config.docs_root, joined)):
            return joined, " ".join(words[k:]) or None
    return rel, section


PLACEHOLDER = "SECTION"  # what the line under a cut doc says in place of a section's name
LISTED = 40  # sections named in that list (a page of 265 sections was one line of 12,000 chars)


def show(ws: Workspace, path: str, section: str | None = None) -> str:
    """A doc's text (without front matter), or one section of it with its subsections. Only docs inside the
    docs folder are read."""
    from ..turn import headings, sections

    rel, section = _doc_and_section(ws, path, section)
    text = index.read_doc(ws.config.docs_root, rel) if is_doc_file(rel) else None
    if text is None:
        raise InputError(f"unknown doc: {path} (not a readable doc in {ws.config.docs_root})")
    body = index.body_of(text, rel)
    if section is None:
        return body
    body = index.setext_as_atx(body)  # an underlined heading names its section too
    if section == PLACEHOLDER:
        # The line under a cut doc run as it is printed (tried as a new user would: it showed whatever section
        # mentions "section" most): the doc's sections, to name one.
        names = [headings.plain(t) for t in dict.fromkeys(sections.titles(body))]
        listed = ", ".join(names[:LISTED]) + (f", +{len(names) - LISTED} more" if len(names) > LISTED else "")
        return (f"... [{rel} has {len(names)} sections: {listed or 'none'}; "
                f"`{sections.show_command(rel)} NAME` shows one] ...")
    # "(part)" is how a turn's output heads a section it shows in part: the name is the section's
    section = section.removesuffix(sections.PART_MARK)
    found = sections.find(body, section)
    if found is None and rel.endswith(rst.SUFFIX) and (title := rst.labelled(text, section)) is not None:
        found = sections.find(body, title)  # a Sphinx label, as a `:ref:` names the section
    if found is None and (mention := sections.mentioning(body, section)) is not None:
        title, text = mention
        return f"... [no section is called {section!r}; the one that mentions it most: {title}] ...\n\n{text}"
    if found is None:
        titles = sections.titles(body)
        near = headings.close(titles + [title for _, _, title in sections.deeper(body)], section)
        if near:
            raise InputError(f"no section {section!r} in {rel} (close matches: {', '.join(map(repr, near))})")
        names = [headings.plain(t) for t in titles]
        listed = ", ".join(names[:12]) + (f", +{len(names) - 12} more" if len(names) > 12 else "")
        raise InputError(f"no section {section!r} in {rel} (sections: {listed or 'none'})")
    if not sections.heading_level(section)[0]:
        # Headings of that name at other levels (a style guide's `### Paths` and `#### Paths`): the reader is
        # told how to ask for the others, by their marks.
        import shlex

        shown = len(found) - len(found.lstrip("#"))
        others = [lv for lv in dict.fromkeys(sections.named_levels(body, section)) if lv != shown]
        if others:
            asks = ", ".join(f"`{sections.show_command(rel)} {shlex.quote('#' * lv + ' ' + section)}`" for lv in others)
            found += f"\n\n... [also called {section!r}: {asks}] ..."
    return found


@dataclass(frozen=True)
class SessionRow:
    name: str
    turns: int
    updated: float | None  # when its last turn was written
    top: tuple[tuple[str, float], ...]  # its highest scores

    def to_dict(self) -> dict[str, object]:
        return {"session": self.name, "turns": self.turns, "last_turn": self.updated,
                "top": [{"path": p, "score": round(s, 4)} for p, s in self.top]}


def sessions(ws: Workspace) -> tuple[SessionRow, ...]:
    """Every session of this state, the most recent first. Changes nothing."""
    with ws.store.transaction():
        rows = ws.store.sessions()
    return tuple(SessionRow(n, t, u, tuple(top)) for n, t, u, top in rows)
