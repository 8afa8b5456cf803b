"""One turn, end to end: the workspace's index -> state -> attention -> tier plan -> render -> state.

The router asks the store and hands what it answers to the stages (turn/), which take plain data and return
plans; it saves what the turn changed. Everything here returns data; only the CLI and the hook adapters write
to the terminal. The hook path goes through this module too, so it imports nothing heavy: no typer, rich,
numpy, tiktoken, and pyyaml only when config.yaml or a doc with front matter changed.
"""

from __future__ import annotations

import os
import time

from .errors import InputError
from .records import FileScore, decayed, record
from .store import index, near
from .store.state import MEMORY, DatabaseError, Kept, Store, is_locked
from .turn import attention, keywords, lexical, memory, render, sections, tiers, variants, words
from .turn.prompt import human_part
from .workspace import (
    DocSettings,
    IndexView,
    Workspace,
    current_index,
    index_in_background,
    with_workspace,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Any

    from .config import Config
    from .store.state import Session

    Warn = Callable[[str], None]


# -- one turn ------------------------------------------------------------------------------------------------


@record
class TurnRequest:
    prompt: str
    session: str = "default"
    fmt: str = "markdown"
    budget: int | None = None
    host: str | None = None
    dry_run: bool = False
    trust_index: bool | None = None  # None: trust it while a `ctx watch` is running
    rate_limited: bool = True  # host turns are rate limited unless replayed on purpose
    contained: bool = False  # a found (not chosen) config may name docs only inside its own folder
    memory: bool | None = None  # send only what the conversation lacks (None: as the host keeps its history)
    restore: bool = False  # the conversation was compacted: what the last turn showed, sent again, no score moved
    machine: bool = False  # the host says no person wrote the prompt: served read-only, as machine text is


def host_measure(host: str | None) -> Callable[[str], int]:
    """How a host counts a hook's text against its limit: past it the model gets a preview instead of the
    context. Claude Code counts UTF-16 units (JavaScript's length: an emoji counts two), Codex CLI bytes (its
    2,500-token limit is estimated as UTF-8 bytes / 4); the others characters."""
    if host == "claude":
        return tiers.utf16_units
    if host == "codex":
        return tiers.utf8_bytes
    return len


def forget_session(session: str, config_option: str | None = None, docs_option: str | None = None,
                   cwd: str | None = None, warn: Warn | None = None) -> int:
    """The host's conversation no longer holds what ctx sent it in this session (it was compacted or
    cleared: Claude Code's SessionStart `compact`/`clear` and PostCompact, Gemini CLI's SessionStart `clear`
    (its compressions are read from its session file), Codex CLI's SessionStart `clear`/`compact` and
    PostCompact, Cline's PreCompact): forget what the session was sent, so the next turn sends what it needs
    again. Scores are kept: the topic is still the topic. How many units were forgotten."""
    return with_workspace(lambda ws: forget_sent(ws, session), config_option, docs_option, cwd, warn)


@record
class TurnResult:
    plan: tiers.Plan
    session: str
    advanced: bool
    causes: dict[str, tuple[str, ...]]
    text: str  # what to print: the markdown or xml context, or the json object
    notices: tuple[str, ...] = ()  # one-line messages for stderr


def remembers(cfg: Config, req: TurnRequest) -> bool:
    """Whether this turn sends only what the conversation lacks: a host that keeps the hook's output in its
    conversation (`hosts.NAME.history`) does, until it compacts or clears it; a prompt piped into a fresh one
    does not."""
    if req.memory is not None:
        return req.memory
    return req.host is not None and cfg.host_history.get(req.host, False)


def forget_sent(ws: Workspace, session: str) -> int:
    """The host compacted or cleared the conversation: it holds nothing ctx sent it any more."""
    with ws.store.transaction():
        return ws.store.forget_sent(ws.store.resolve_session(session))


def pin_floors(ws: Workspace, snap: IndexView, now: float) -> tuple[dict[str, float], tuple[str, ...]]:
    """(path -> score floor, notes): front matter and config pins as they are, `ctx pin` pins as attested."""
    cfg = ws.config
    floor = {"warm": cfg.warm.threshold, "hot": cfg.hot.threshold}
    out: dict[str, float] = {}
    for path, level in ws.store.pinned_docs().items():
        out[path] = floor[level]
    for path, level in cfg.pinned.items():
        out[path] = max(out.get(path, 0.0), floor[level])
    pins = ws.store.pins()
    if not pins:
        return out, ()
    from .store.attest import effective  # hashlib and hmac only when there are pins to check

    levels, notes = effective(pins, cfg.docs_root, ws.store.folder, now)
    for path, level in levels.items():
        out[path] = max(out.get(path, 0.0), floor[level])
    return out, notes


def decay_rate(cfg: Config, snap: IndexView, path: str) -> float:
    """The doc's own rate (front matter), else the longest matching prefix, else the default."""
    own = snap.settings[path][2]
    return own if own is not None else cfg.decay_for(path)


def related(cfg: Config, snap: IndexView, path: str) -> tuple[str, ...]:
    return cfg.related.get(path, ()) + snap.settings[path][0]


def coactivation_ceiling(cfg: Config) -> float:
    """Co-activation warms a related doc but does not print it whole on its own (measured: it added noise and
    no gold doc); keyword mode keeps claude-cognitive's rule, where it may reach 1.0."""
    return cfg.hot.threshold - 0.01 if cfg.semantic.enabled else 1.0


def _lexical(store: Store, prompt: str, memory: Any, cfg: Config, n_docs: int, held: frozenset[str],
             budget: int, also: Iterable[str] = ()) -> tuple[lexical.LexicalTurn, frozenset[str]]:
    """The text evidence: ask the text index what the stage needs, hand it the answers; and the copies of the
    variants the conversation does not use (variants.py; `also`: the docs its keywords hit), left out of it."""
    said = lexical.query_words(prompt)
    counts = store.lexical_doc_counts(said)
    said = lexical.unranked_phrases(said, counts, n_docs)
    query = lexical.query(said, counts, n_docs)
    docs = dict(store.lexical_search(query, lexical.FIELD_WEIGHTS, lexical.LIMIT)) if query else {}
    common = lexical.common_words(said, counts, n_docs)
    sec_counts, n_secs = store.section_counts(common, lexical.SECTION_EXTRA + 1) if common else ({}, 0)
    sec_query = lexical.sections_query(said, counts, n_docs, sec_counts, n_secs)
    secs = {(p, n): s for p, n, s in store.section_search(sec_query, lexical.SECTION_WEIGHTS, lexical.SECTION_LIMIT)
            } if sec_query else {}
    rare = lexical.rare_words(said, counts)
    close = near.near(rare, lexical.NEAR_LOOKED) if rare else {}
    if close:
        spread = store.lexical_doc_counts(sorted({w for words in close.values() for w in words}))
        second = lexical.query(lexical.near_words(rare, said, close, spread, n_docs), spread, n_docs)
        if second:
            docs = lexical.lighter(docs, dict(store.lexical_search(second, lexical.FIELD_WEIGHTS, lexical.LIMIT)))
            secs = lexical.lighter(secs, {(p, n): s for p, n, s in store.section_search(
                second, lexical.SECTION_WEIGHTS, lexical.SECTION_LIMIT)})
    gone, named = variants.left_out({*docs, *(p for p, _ in secs), *also}, said, variants.remembered(memory),
                                    lambda folder: store.paths_under(folder, variants.SCAN_LIMIT))
    if gone:
        docs = {p: s for p, s in docs.items() if p not in gone}
        secs = {k: s for k, s in secs.items() if k[0] not in gone}
        memory = variants.without(memory, gone)
    ranked = {*docs, *(p for p, _ in secs), *lexical.remembered(memory)}
    turn = lexical.step(said, docs, secs, store.hubs(sorted(ranked)) if ranked else frozenset(), memory,
                        cfg.hot.threshold, cfg.warm.threshold, held, lexical.names_topic(said, counts, n_docs),
                        lexical.leaders(budget))
    if named:
        turn.memory["variants"] = variants.to_memory(named)  # the variants the conversation is on, for its next turns
    return turn, gone


COMMON_FROM_DOCS = 30  # below this many docs a word's spread over them says little
COMMON_DOC_SHARE = 0.1  # a one-word keyword in the text of more than this share of the docs names none of them


def common_in_text(store: Store, kws: Iterable[str], n_docs: int) -> frozenset[str]:
    """The one-word keywords among these that the text of many docs holds ("install", "python" in a
    packaging tool's docs): a doc named after one is not what a prompt that says it is about."""
    single = sorted({kw for kw in kws if len(keywords.keyword_tokens(kw)) == 1})
    if n_docs < COMMON_FROM_DOCS or not single:
        return frozenset()
    counts = store.lexical_doc_counts(single)
    return frozenset(kw for kw in single if counts.get(kw, 0) > COMMON_DOC_SHARE * n_docs)


def hint_words(ws: Workspace, paths: list[str], n_docs: int) -> dict[str, tuple[str, ...]]:
    """The keywords a WARM header may tell the user to say: with the semantic layer on, only those that make
    the doc HOT when a prompt says them (chosen, one doc's own, not a common word nor common in the docs'
    text); a doc with none is named by its path, which always is a hit."""
    if not ws.config.semantic.enabled:
        return ws.store.keywords_of(paths)
    rows = ws.store.keyword_owners(paths, keywords.WEAK_OWNERS)
    common = common_in_text(ws.store, (kw for kw, _, derived, _ in rows if not derived), n_docs)
    out: dict[str, list[str]] = {}
    for kw, path, derived, owners in rows:
        if not derived and not keywords.is_weak(kw, owners) and kw not in common:
            out.setdefault(path, []).append(kw)
    return {p: tuple(v) for p, v in out.items()}


def _weak_hits(cfg: Config, hits: dict[str, list[str]], derived: set[tuple[str, str]], common: frozenset[str]
               ) -> tuple[dict[str, list[str]], tuple[attention.Signal, ...]]:
    """Hits by weak, common or derived keywords only lift their doc to the top of WARM: the text evidence
    decides if it is HOT."""
    strong, weak = keywords.split_weak(hits, derived, common)
    return strong, _weak_signals(cfg, _lifting(cfg, weak, common))


def _lifting(cfg: Config, weak: Mapping[str, list[str]], common: frozenset[str]) -> dict[str, list[str]]:
    """The weak hits that lift their doc: a word that the text of a tenth of the docs holds lifts only a doc
    you gave it in `keywords:`. Tried as a new user would on a site generator's docs, "site" (the title of five
    method pages, in 268 of 993 docs' text) filled WARM with those pages on every prompt that said it; the text
    ranking decides for them. Replayed on thirteen plain folders: the same answers in context, 300 chars a
    conversation less."""
    out: dict[str, list[str]] = {}
    for path, kws in weak.items():
        mine = {keywords.normalise(k) for k in cfg.keywords.get(path, ())}
        lifting = [kw for kw in kws if kw not in common or kw in mine]
        if lifting:
            out[path] = lifting
    return out


def _weak_signals(cfg: Config, weak: Mapping[str, list[str]]) -> tuple[attention.Signal, ...]:
    ceiling = cfg.hot.threshold - 0.01
    return tuple(attention.Signal(p, attention.FLOOR, ceiling, f"weak-keyword:{kw}")
                 for p, kws in sorted(weak.items()) for kw in kws)


@record
class _KeywordHits:
    hits: dict[str, list[str]]  # path -> the keywords that fired on it, of the docs they make HOT
    weak: tuple[attention.Signal, ...]  # the lifts of the weak hits among the keywords a few docs own
    broad: list[tuple[str, str]]  # (token, keyword) of the fired keywords more docs own than WARM can show


def _keyword_hits(cfg: Config, store: Store, prompt: str, tokens: set[str], n_docs: int) -> _KeywordHits:
    """The prompt's keyword hits with the semantic layer on. A keyword more docs own than the WARM tier can
    show is broad: which of them the turn shows is for other evidence to say, so its owners are not read
    here (broad_lifts asks for the few the text ranking names); the others are read, and split as strong
    or weak."""
    cap = cfg.warm.max_files
    owners: dict[str, int] = {}
    filed: dict[str, list[str]] = {}
    for token, kw, n in store.keyword_counts(tokens, cap + 1):  # past the cap, how many more is no matter
        owners[kw] = owners.get(kw, 0) + n
        filed.setdefault(kw, []).append(token)
    fired = keywords.fired(sorted(owners), prompt, tokens)
    broad = [(t, kw) for kw in fired if keywords.is_broad(owners[kw], cap) for t in filed[kw]]
    found = [row for kw in fired if not keywords.is_broad(owners[kw], cap) for t in filed[kw]
             for row in store.keyword_docs(t, kw)]
    hits: dict[str, list[str]] = {}
    for kw, path, _ in sorted(found):
        hits.setdefault(path, []).append(kw)
    derived = {(kw, p) for kw, p, flag in found if flag}
    common = common_in_text(store, (kw for kws in hits.values() for kw in kws), n_docs)
    strong, weak = _weak_hits(cfg, hits, derived, common)
    return _KeywordHits(strong, weak, broad)


def broad_lifts(cfg: Config, store: Store, broad: list[tuple[str, str]], hits: dict[str, list[str]],
                relevance: Mapping[str, float], n_docs: int) -> tuple[attention.Signal, ...]:
    """The lifts of the broad keywords that fired: a doc hit by a keyword of its own counts them among its
    hits; otherwise only the docs the turn's text ranking scored, the best few, are lifted like a weak hit.
    The others are not touched: no signal, no write, whether ten or ten thousand docs own the keyword."""
    if not broad:
        return ()
    asked = sorted({*hits, *relevance})
    owners: dict[str, list[str]] = {}
    for token, kw in broad:
        owners.setdefault(kw, []).extend(p for _, p, _ in store.keyword_docs(token, kw, asked))
    for kw, paths in sorted(owners.items()):
        for path in paths:
            if path in hits and kw not in hits[path]:
                hits[path].append(kw)
    lifts = keywords.broad_lifts({kw: [p for p in paths if p not in hits] for kw, paths in owners.items()},
                                 relevance, cfg.warm.max_files)
    return _weak_signals(cfg, _lifting(cfg, lifts, common_in_text(store, owners, n_docs)))


def _rate_limit(cfg: Config, session: Session, now: float) -> tuple[bool, tuple[float, float]]:
    """Token bucket: `burst` turns at once, refilled at turns_per_minute. (allowed, new bucket)."""
    if cfg.turns_per_minute == 0:
        return True, session.bucket
    tokens, then = session.bucket
    if tokens < 0:  # a new session starts full
        tokens, then = float(cfg.burst), now
    tokens = min(float(cfg.burst), tokens + max(0.0, now - then) * cfg.turns_per_minute / 60.0)
    if tokens >= 1.0:
        return True, (tokens - 1.0, now)
    return False, (tokens, now)


RECENT = index.Recent(4_000_000)  # chars of the docs' texts a process keeps between its turns


def _views(ws: Workspace, paths: list[str], section_query: str | None,
           ranked_sections: dict[str, Mapping[int, float]],
           known: Mapping[str, Mapping[str, int]] | None = None, bar: float = 1.0, turn: int = 0,
           stretch_query: str | None = None, said: frozenset[str] = frozenset()) -> dict[str, tiers.DocView]:
    """The candidates as they are on disk now: a doc's header and body are read at the turn (the index keeps
    neither), and a doc that is gone or unreadable since it was indexed is not shown. stretch_query: this
    prompt's words alone, which pick the stretch of a part too big for its room (sections._stretch) before the
    conversation's do: the part was ranked for the conversation, its paragraph that answers for this prompt (a
    configuration reference's `<remote_write>` block showed the protobuf setting the first prompt asked about,
    not the `queue_config` one this prompt asked about; replayed on the seventeen plain folders: 2 turns won,
    none lost). said: this prompt's heading words; a section of a doc the turn ranks that the prompt names by its
    heading ranks next to the doc's best part (sections.with_named), in `ranked_sections`, which the planner
    reads too."""
    cfg = ws.config
    views: dict[str, tiers.DocView] = {}
    for path, doc in ws.store.docs(paths).items():
        key = (cfg.docs_root, doc.path, cfg.warm.lines)
        ident = None if doc.oversize else index.identity(cfg.docs_root, doc.path)  # before the read: a later
        # change gives the file another identity
        kept = RECENT.get(key, ident)
        if kept is not None:
            whole, header, truncated = kept
        else:
            # An oversized doc is shown by its header only: read just enough bytes to find it.
            text, alone = index.read_doc_alone(cfg.docs_root, doc.path,
                                               limit=min(cfg.max_doc_bytes, 256 * 1024) if doc.oversize else None)
            if text is None:
                continue
            whole = render.doc_text(index.body_of(text, doc.path))
            header, truncated = index.header_of(whole, cfg.warm.lines)
            if doc.oversize:
                whole = header + f"\n... [file over {cfg.max_doc_bytes:,} bytes: header only] ..."
            RECENT.put(key, ident if alone else None, (whole, header, truncated), len(whole))
        if said and ranked_sections.get(doc.path):
            ranked_sections[doc.path] = sections.with_named(ranked_sections[doc.path], sections.split(whole), said)

        def body(whole: str = whole) -> str:
            return whole

        def cut(room: int, sent: Mapping[int, int], hint: bool, doc: index.Doc = doc, whole: str = whole,
                header: str = header) -> sections.Cut | None:
            # The sections the turn's search ranked among all docs' sections; else the doc's own, ranked alone.
            relevance = ranked_sections.get(doc.path) or {}
            if not relevance and section_query:
                parts = [(s.title, s.text) for s in sections.split(whole)]
                relevance = dict(ws.store.lexical_sections(parts, section_query, lexical.SECTION_WEIGHTS))
            rank = None
            if section_query:
                def rank(texts: Sequence[str], query: str = section_query) -> dict[int, float]:
                    queries = (stretch_query, query) if stretch_query and stretch_query != query else (query,)
                    keep = lexical.narrowed(texts, queries)
                    pieces = [("", texts[i]) for i in keep]
                    got: dict[int, float] = {}
                    for q in queries:
                        got = {keep[k]: v for k, v in ws.store.lexical_sections(pieces, q, lexical.SECTION_WEIGHTS)}
                        if any(v > 0 for v in got.values()):
                            break
                    return got
            return sections.cut(whole, room, relevance, doc.path, header, sent, hint, sections.PART_FLOOR * bar,
                                rank, turn)

        views[path] = tiers.DocView(body, header, truncated or doc.oversize, cut,
                                    known.get(path, {}) if known is not None else None)
    return views


def plan_turn(ws: Workspace, snap: IndexView, scores: Mapping[str, FileScore], hit: frozenset[str], turn: int,
              fmt: str, budget: int, mass: Mapping[str, float] | None = None, intent: str | None = None,
              notes: tuple[str, ...] = (), section_query: str | None = None,
              measure: Callable[[str], int] = len,
              ranked_sections: Mapping[str, Mapping[int, float]] | None = None,
              relevance: Mapping[str, float] | None = None, session: str | None = None,
              one: frozenset[str] = frozenset(), stretch_query: str | None = None,
              said: frozenset[str] = frozenset()) -> tiers.Plan:
    """The tier plan of a turn; session: whose conversation holds what ctx sent it (None: send everything); one:
    the docs that earn room for their best part alone (one_part); stretch_query: this prompt's words, and said,
    its heading words (_views)."""
    cfg = ws.config
    hot_max, warm_max = cfg.hot.max_files, cfg.warm.max_files
    if intent is not None:
        from .turn.semantic import intent_caps

        hot_max, warm_max = intent_caps(intent, hot_max, warm_max)
    caps = tiers.Caps(cfg.hot.threshold, hot_max, cfg.warm.threshold, warm_max)
    ranked = tiers.rank(scores, hit, mass, relevance)
    cands = tiers.candidates(ranked, caps)
    # Docs the caps left out: "intent" when the intent's caps are what left them out, else "cap".
    config_caps = tiers.Caps(cfg.hot.threshold, cfg.hot.max_files, cfg.warm.threshold, cfg.warm.max_files)
    within_config = {c.path for c in tiers.candidates(ranked, config_caps)} if caps != config_caps else set()
    capped = [(p, "intent" if p in within_config else "cap") for p in tiers.over_caps(ranked, caps, cands)]
    paths = [c.path for c in cands]
    # A doc this prompt's words hit and that is WARM all the same (past HOT's cap) is not told to be asked for by
    # them again: its line says how to read it (render._truncation_line).
    kws = {p: v for p, v in hint_words(ws, paths, snap.n_docs).items() if p not in hit}
    layout = render.layout_for(fmt, lambda p: kws.get(p, ()))
    known = ws.store.sent_units(session, [*paths, memory.CONVERSATION]) if session is not None else None
    about = known is None or memory.ABOUT not in known.pop(memory.CONVERSATION, {})
    parts = dict(ranked_sections or {})  # _views adds the sections the prompt names
    views = _views(ws, paths, section_query, parts, known, tiers.bar(budget), turn, stretch_query, said)
    return tiers.fit(cands, views, layout, budget, turn, snap.n_docs, intent, notes, capped, measure,
                     {p: max(v.values()) for p, v in parts.items() if v}, cfg.semantic.enabled, parts, hit, about,
                     one)


def one_part(causes: Mapping[str, tuple[str, ...]]) -> frozenset[str]:
    """The docs HOT this turn only for holding one of the prompt's best sections (lexical.step's leaders), or only
    because the conversation keeps them: no keyword, no best doc's rank, no pin behind them. Through a hook each
    earns room for its best part, not its others (tiers._section_rooms): a doc the conversation keeps earns its
    place again from this prompt's ranking. Replayed on seventeen plain folders through the hook, the section
    leaders alone: 77.1% in context both ways, 13 turns won and 13 lost, 61,090 -> 59,714 chars a conversation
    (noise 57.4% -> 56.4%; two parts each: 77.3% at 60,468); the kept docs too: 77.1%, 7 won and 7 lost, 59,235;
    a part the conversation lacks (a held one had taken the room): 77.3%, 8 won and 5 lost, 58,937; beside its
    opening when the turn ranks that too (shown whole, it had taken the part's room): 77.5%, 59,066.
    Piped, with 25,000 chars, one part each lost 22 turns (the answer shown 82.6% -> 81.0%): with more room than
    a hook's their parts rank as the others'."""
    thin = (lexical.SECTION_LED, lexical.KEPT)
    return frozenset(p for p, c in causes.items() if any(x in thin for x in c)
                     and all(x in thin or x == "decay" for x in c))


def scores_at(cfg: Config, snap: IndexView, kept: Mapping[str, Kept], turn: int) -> dict[str, FileScore]:
    """Kept scores as they read at `turn` (decayed by their rate since they were set); a score decayed to
    nothing is not there."""
    snap.settings.load(p for p, k in kept.items() if k.rate is None)
    out: dict[str, FileScore] = {}
    for path, k in kept.items():
        score = decayed(k.score, k.rate if k.rate is not None else decay_rate(cfg, snap, path), turn - k.turn)
        if score >= attention.ZERO:
            out[path] = FileScore(score, k.last_hit_turn, k.hits)
    return out


@record
class _Attention:
    update: attention.Update
    semantic: Any
    lexical: lexical.LexicalTurn | None
    writes: dict[str, tuple[Kept, int, int]]  # what the turn set: path -> (kept score, WARM until, live until)
    dropped: tuple[str, ...]  # the docs whose score it took to zero
    recorded: dict[str, tuple[str, ...]]  # the history of the turn: the docs whose score changed beyond decay


def _update(ws: Workspace, snap: IndexView, session: Session, prompt: str, turn: int, budget: int,
            pins: Mapping[str, float], work: AgentWork | None = None) -> _Attention:
    """The attention update of a typed prompt: keyword hits, the semantic and lexical evidence (budget: the
    turn's room, which says how many docs its best sections may make HOT), the files the agent worked on, pins.

    It reads the scores that can rank (at or above the WARM line) and those of the docs the turn touches, and
    sets only the latter: every other score decays where it is kept."""
    cfg, store, name = ws.config, ws.store, session.name
    kept = store.warm_scores(name, turn - 1)
    tokens = keywords.prompt_tokens(prompt)
    weak_signals: tuple[attention.Signal, ...] = ()
    broad: list[tuple[str, str]] = []
    if cfg.semantic.enabled:
        found = _keyword_hits(cfg, store, prompt, tokens, snap.n_docs)
        hits, weak_signals, broad = found.hits, found.weak, found.broad
    else:  # keyword mode keeps every hit at 1.0, as claude-cognitive does
        hits = keywords.match([(kw, p) for kw, p, _ in store.keyword_candidates(tokens)], prompt, tokens)
    # "what does this project do?" and "what is mypy?" name the docs' landing page, and no topic the semantic
    # layer could follow
    pointer, sole = words.about_the_project(prompt), None if hits else words.sole_word(prompt)
    if pointer or sole:
        tops = store.docs(store.known(words.landing_candidates()))
        sizes = {p: d.size for p, d in tops.items()}
        if not pointer and sole:  # the project's name, by its landing page's title or as a word of most docs
            first = words.landing_page(sizes)
            share = 0.0 if " " in sole else store.lexical_doc_counts([sole]).get(sole, 0) / max(1, snap.n_docs)
            pointer = sole if first and words.names_the_project(sole, tops[first].title, share) else None
        landing = words.landing_page(sizes, lambda p: _says_something(cfg, p)) if pointer else None
        if landing and pointer:
            hits = {**hits, landing: [*hits.get(landing, []), pointer]}
    kept.update(store.kept_scores(name, [p for p in hits if p not in kept], turn - 1))
    previous = scores_at(cfg, snap, kept, turn - 1)
    sem_turn = None
    if cfg.semantic.enabled and snap.version:  # (no model of an index that is not there yet)
        from . import model  # the semantic step; numpy only when its model must be rebuilt

        def everything() -> Mapping[str, FileScore]:
            every = scores_at(cfg, snap, store.session(name).scores, turn - 1)
            known = store.known(every)
            return {p: fs for p, fs in every.items() if p in known}

        sem_turn = model.step(ws, session.semantic, "" if pointer else prompt, hits, previous, snap.version,
                              snap.n_docs, everything)
    lex_turn = None
    lex_signals: tuple[attention.Signal, ...] = ()
    gone: frozenset[str] = frozenset()
    if cfg.semantic.enabled and cfg.semantic.lexical:
        held = frozenset(p for p, fs in previous.items() if fs.score >= cfg.hot.threshold)
        lex_turn, gone = _lexical(store, prompt, session.semantic.get("lexical") or {}, cfg, snap.n_docs, held,
                                  budget, hits)
        lex_signals = lex_turn.signals
    weak_signals += broad_lifts(cfg, store, broad, hits, lex_turn.relevance if lex_turn is not None else {},
                                snap.n_docs)
    sem_signals = sem_turn.signals if sem_turn is not None else ()
    if sem_signals:
        # A hub (an index, a release's notes) is near every topic's vector as it is near every prompt's words: the
        # model's evidence lifts it no more than the text's does (lexical.step). Tried as a new user would on a
        # note app's help vault, its release notes filled the WARM places for "sync between phone and laptop".
        hubs = store.hubs({s.path for s in sem_signals})
        sem_signals = tuple(s for s in sem_signals if s.path not in hubs)
    signals = (*weak_signals, *sem_signals, *lex_signals)
    if gone:  # the variants the conversation does not use get no evidence this turn, from any signal
        hits = {p: kws for p, kws in hits.items() if p not in gone}
        signals = tuple(s for s in signals if s.path not in gone)
    if work is not None and work.files:
        signals = (*signals, *work_signals(ws, work, frozenset(hits)))
    touched = {*hits, *pins, *(s.path for s in signals)}
    snap.settings.load(touched)
    touched.update(t for p in hits for t in related(cfg, snap, p))
    snap.settings.load(touched)
    more = store.kept_scores(name, [p for p in touched if p not in kept], turn - 1)
    previous.update(scores_at(cfg, snap, more, turn - 1))
    kept.update(more)
    known = store.known({*previous, *touched})
    upd = attention.update(previous, turn, hits, known.__contains__,
                           lambda p: kept_rate(cfg, snap, kept, p), lambda p: related(cfg, snap, p),
                           cfg.coactivation, pins, signals, coactivation_ceiling(cfg))
    recorded = {p: c for p, c in upd.causes.items() if c != ("decay",)}
    writes: dict[str, tuple[Kept, int, int]] = {}
    # What this turn set, and the upgraded scores it read (kept from now on with their doc's rate).
    for path in (*recorded, *(p for p in previous if kept[p].rate is None)):
        keep(cfg, snap, writes, path, upd.scores.get(path), turn)
    dropped = tuple(p for p in kept if p not in upd.scores)
    return _Attention(upd, sem_turn, lex_turn, writes, dropped, recorded)


def keep(cfg: Config, snap: IndexView, writes: dict[str, tuple[Kept, int, int]], path: str,
         fs: FileScore | None, turn: int) -> None:
    """Add the doc's score as this turn leaves it to what the turn writes (with its WARM and zero turns)."""
    if fs is None:
        return
    rate = decay_rate(cfg, snap, path)
    writes[path] = (Kept(fs.score, turn, rate, fs.last_hit_turn, fs.hits),
                    attention.last_turn_at(fs.score, rate, turn, cfg.warm.threshold),
                    attention.last_turn_at(fs.score, rate, turn, attention.ZERO))


def _sent(plan: tiers.Plan) -> list[tuple[str, str]]:
    """(path, unit) of what this turn's output gave the conversation, its box's line about the docs included."""
    rows = [(e.path, u) for e in plan.entries for u in e.units]
    return rows + [(memory.CONVERSATION, memory.ABOUT)] if plan.entries and plan.stats.about else rows


def _says_something(cfg: Config, path: str) -> bool:
    """Whether a doc's text, as a turn prints it, says something (not a home page that is one component)."""
    text = index.read_doc(cfg.docs_root, path, limit=cfg.max_doc_bytes)
    return text is not None and not index.no_text(index.body_of(text, path))


def kept_rate(cfg: Config, snap: IndexView, kept: Mapping[str, Kept], path: str) -> float:
    """The rate a score decays at: the one it was kept with, else its doc's."""
    k = kept.get(path)
    return k.rate if k is not None and k.rate is not None else decay_rate(cfg, snap, path)


def decay_stories(ws: Workspace, rows: list[tuple[int, str, float, str]], kept: Mapping[str, Kept], last: int
                  ) -> dict[str, list[tuple[int, float, str]]]:
    """path -> its history turn by turn up to `last` (attention.story) from a session's recorded rows
    (turn, path, score, causes); read inside a transaction."""
    by_path: dict[str, list[tuple[int, float, str]]] = {}
    for turn, path, score, causes in rows:
        by_path.setdefault(path, []).append((turn, score, causes))
    snap = IndexView(0, DocSettings(ws.store), 0)
    snap.settings.load(by_path)
    return {p: attention.story(story, kept_rate(ws.config, snap, kept, p), last) for p, story in by_path.items()}


def ranked_scores(cfg: Config, scores: Mapping[str, FileScore]) -> dict[str, FileScore]:
    """The scores a turn ranks: those at or above the WARM line (the others are COLD whatever their order)."""
    line = min(cfg.warm.threshold, cfg.hot.threshold)
    return {p: fs for p, fs in scores.items() if fs.score >= line}


HOOK_LOCK_WAIT_S = 1.0  # a hook turn waits this long for another process's write lock, then reads only


@record
class _Done:
    plan: tiers.Plan
    session: str
    advanced: bool
    update: attention.Update
    behind: bool  # docs or the model still to index: the background indexer's work
    pending: int  # changed docs left unread by this turn
    due: bool  # a full scan of the folder is due
    unlisted: bool  # the folder was too big to list inside the turn
    n_docs: int  # docs indexed


def _turn(ws: Workspace, req: TurnRequest, prompt: str, typed: bool, budget: int, now: float, notices: list[str],
          warn: Warn | None, read_only: bool) -> _Done:
    """The turn inside one transaction.

    read_only: another process holds the write lock; show this prompt's turn from the index as it is and
    save nothing."""
    cfg, store = ws.config, ws.store
    with store.read_transaction() if read_only else store.transaction():
        # Only a hook has a deadline: a turn someone waits for reads a repo of a few hundred docs whole.
        snap = current_index(ws, req.trust_index, read_only, warn, prompt if typed else None, wait=req.host is None)
        name = store.resolve_session(req.session)
        session = store.session(name, scores=False)
        # Only hook turns are rate limited: an editor fires them in bursts (scheduled tasks, sub-agent
        # reports), while a `ctx route` is asked for on purpose.
        limited = req.host is not None and req.rate_limited and not req.dry_run and not req.restore
        allowed, bucket = _rate_limit(cfg, session, now) if limited else (True, session.bucket)
        if not allowed:
            # Said as the limit it is: "more than 20 a minute" after five turns read as a count.
            notices.append(f"note: session {name!r} sends turns faster than {cfg.turns_per_minute} a minute after "
                           f"{cfg.burst} quick ones; this turn is shown but not saved (space the turns "
                           f"{60 / max(1, cfg.turns_per_minute):g} s apart, or raise rate_limit in the config)")
        advance = allowed and typed and not req.dry_run and not read_only
        turn = session.turn + 1 if typed else session.turn
        pins, pin_notes = pin_floors(ws, snap, now)
        restoring = req.restore and remembers(cfg, req) and not read_only and not req.dry_run
        if restoring:
            store.forget_sent(name)
        sem_turn = lex_turn = att = None
        work = agent_work(ws, name, consume=advance) if typed else None
        if work is not None and work.doc_reads and advance and remembers(cfg, req):
            hold_read_docs(ws, name, session.turn, work.doc_reads)
        if typed:
            att = _update(ws, snap, session, prompt, turn, budget, pins, work)
            upd, sem_turn, lex_turn = att.update, att.semantic, att.lexical
        else:
            now_scores = scores_at(cfg, snap, store.warm_scores(name, turn), turn)
            known = store.known(now_scores)
            upd = attention.Update({p: fs for p, fs in now_scores.items() if p in known}, {}, frozenset())
        memory = dict(session.semantic)
        ranked = ranked_scores(cfg, upd.scores)
        mass = None
        if sem_turn is not None:
            from . import model

            memory = sem_turn.memory
            mass = model.masses(ws, memory, sorted(ranked), sem_turn.goal_cosine)
        if lex_turn is not None:
            memory["lexical"] = lex_turn.memory
        plan = plan_turn(ws, snap, ranked, upd.hit, turn, "markdown" if req.fmt == "json" else req.fmt, budget,
                         mass, sem_turn.intent if sem_turn is not None else None, pin_notes,
                         lexical.section_query(prompt, session.semantic.get("lexical")),
                         host_measure(req.host),
                         lex_turn.sections if lex_turn is not None else None,
                         lex_turn.relevance if lex_turn is not None else None,
                         name if remembers(cfg, req) else None, one_part(upd.causes),
                         lexical.section_query(prompt, None), sections.said_in(prompt) if typed else frozenset())
        for e in plan.entries:
            if e.repeat:  # `ctx explain` says why the doc was named rather than sent
                upd.causes[e.path] = (*upd.causes.get(e.path, ()), f"in-conversation:{e.repeat}")
                if att is not None:  # recorded, with the score it has (a doc that only decayed is set again)
                    att.recorded[e.path] = upd.causes[e.path]
                    if e.path not in att.writes:
                        keep(cfg, snap, att.writes, e.path, upd.scores.get(e.path), turn)
        if advance and att is not None:
            # How this turn showed each doc (`ctx status` never claims more than the model saw; `ctx stats`).
            shown = {e.path: (e.tier, len(e.text), e.saved) if e.saved else (e.tier, len(e.text))
                     for e in plan.entries}
            shown.update((p, (r, 0)) for p, r in zip(plan.omitted, plan.reasons, strict=True))
            store.save_turn(name, turn, att.writes, att.recorded, bucket, memory, now, (len(plan.output), shown),
                            att.dropped)
            if remembers(cfg, req):
                store.remember_sent(name, turn, _sent(plan))
            store.prune_sessions(now - cfg.keep_days * 86400, keep=name)
        elif restoring:
            store.remember_sent(name, session.turn, _sent(plan))
        elif bucket != session.bucket and not read_only:
            store.save_turn(name, session.turn, {}, {}, bucket, session.semantic, now)
    behind = bool(snap.pending) or snap.due or (typed and cfg.semantic.enabled and
                                                 (sem_turn is None or sem_turn.stale))
    return _Done(plan, name, advance, upd, behind, snap.pending, snap.due, snap.unlisted, snap.n_docs)


ENV_ALLOW_DOCS = "CTX_ALLOW_DOCS"  # folders outside a project that a found config may name as docs


def _check_contained(cfg: Config) -> None:
    """A config the hook found in a repo (rather than one the user chose) may not point it at docs outside
    the folder that holds the config (`docs: ~/`, `../..`) unless the user allowed that folder."""
    if cfg.path is None:
        return
    project = os.path.realpath(os.path.dirname(cfg.path))
    docs = os.path.realpath(cfg.docs_root)
    allowed = [os.path.realpath(os.path.expanduser(p)) for p in os.environ.get(ENV_ALLOW_DOCS, "").split(os.pathsep)
               if p]
    if any(docs == root or docs.startswith(root.rstrip(os.sep) + os.sep) for root in (project, *allowed)):
        return
    raise InputError(f"{cfg.path} names docs outside its project ({cfg.docs_root}); not followed "
                     f"(allow it with ${ENV_ALLOW_DOCS}={cfg.docs_root})")


def run_turn(ws: Workspace, req: TurnRequest, warn: Warn | None = None, now: float | None = None) -> TurnResult:
    cfg = ws.config
    if req.fmt not in render.FORMATS:
        raise InputError(f"unknown format {req.fmt!r} (expected one of: {', '.join(render.FORMATS)})")
    if not req.prompt.strip() and not req.restore:
        raise InputError("empty prompt: nothing to route")
    if req.budget is not None and req.budget < 0:
        raise InputError(f"--budget must be at least 0, got {req.budget}")
    if req.contained:
        _check_contained(cfg)
    notices: list[str] = []
    # Bytes smuggled in as surrogates (an argument that is not UTF-8) can be neither matched nor stored.
    prompt = human_part(req.prompt.encode("utf-8", "replace").decode("utf-8"))
    typed = bool(prompt.strip()) and not req.restore and not req.machine
    if not typed and not req.restore:  # nothing a person typed: a read-only turn that moves no score
        notices.append("note: this prompt is machine text only (a task notification or the like): "
                       "served read-only")
    if len(prompt) > cfg.max_prompt_chars:
        notices.append(f"note: prompt is {len(prompt):,} characters; matched on its first "
                       f"{cfg.max_prompt_chars:,}")
        prompt = prompt[:cfg.max_prompt_chars]
    budget = req.budget if req.budget is not None else cfg.budget_for(req.host)
    now = time.time() if now is None else now
    if req.host is not None:
        ws.store.wait_for_lock(HOOK_LOCK_WAIT_S)
    try:
        done = _turn(ws, req, prompt, typed, budget, now, notices, warn, read_only=False)
    except DatabaseError as exc:
        if req.host is None or not is_locked(exc):
            raise
        notices.append(f"note: another ctx process has held the state for over {HOOK_LOCK_WAIT_S:g} s (a watcher "
                       "indexing, or another turn): this turn is served read-only")
        done = _turn(ws, req, prompt, typed, budget, now, notices, warn, read_only=True)
    plan, name, advance, upd = done.plan, done.session, done.advanced, done.update
    if done.behind and index_in_background(ws):
        if done.pending:
            notices.append(f"note: {done.pending:,} changed docs are being indexed in the background; this turn "
                           f"used the {done.n_docs:,} indexed so far")
        elif done.unlisted or (done.due and not done.n_docs):
            used = f"the {done.n_docs:,} indexed so far" if done.n_docs else "none yet"
            notices.append(f"note: the docs are being indexed in the background; this turn used {used}")
    if not plan.entries and plan.omitted:
        notices.append(f"note: nothing fit the budget of {budget:,} chars; {len(plan.omitted)} doc(s) qualified "
                       f"({', '.join(plan.omitted[:3])}{', ...' if len(plan.omitted) > 3 else ''}): "
                       "raise --budget or budget_chars")
    text = render.to_json(plan, name, upd.causes) if req.fmt == "json" else plan.output
    return TurnResult(plan, name, advance, upd.causes, text, tuple(notices))


def route(req: TurnRequest, config_option: str | None = None, docs_option: str | None = None,
          cwd: str | None = None, warn: Warn | None = None) -> TurnResult:
    return with_workspace(lambda ws: run_turn(ws, req, warn), config_option, docs_option, cwd, warn,
                          create=not req.dry_run, defer=req.host is not None)


# -- the agent's own work: the files it read and edited since the last prompt (the hosts' after-tool events) --


@record
class AgentWork:
    files: list[tuple[str, str]]  # (path from the project folder, read|edit), edited first, most recent first
    doc_reads: list[str]  # docs the agent read whole itself


def project_folder(cfg: Config) -> str:
    """The folder the agent's file paths and the claims' globs are relative to: the repository's root above
    the config (a config kept in `.claude/` or `docs/` still claims `src/...`), else the config's folder."""
    start = os.path.dirname(cfg.path) if cfg.path is not None else os.path.dirname(cfg.docs_root)
    folder = start
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


def agent_work(ws: Workspace, session: str, consume: bool) -> AgentWork:
    """What the after-tool events noted for the session (store/events.py); consume: this turn takes them."""
    from .store import events
    from .turn.claims import recent_files

    rows = events.take(ws.store.path, session, consume) if ws.store.path != MEMORY else []
    if not rows:
        return AgentWork([], [])
    cfg = ws.config
    project, docs = project_folder(cfg), cfg.docs_root
    files: list[tuple[str, str]] = []
    reads: list[str] = []
    for path, kind, stamp in rows:
        if path == docs or path.startswith(docs.rstrip(os.sep) + os.sep):
            # A doc read whole, and unchanged since, is held by the conversation; a glance at part is not.
            if kind == events.READ and stamp is not None and stamp == events.stamp(path):
                reads.append(os.path.relpath(path, docs).replace(os.sep, "/"))
            continue
        if path.startswith(project.rstrip(os.sep) + os.sep):
            files.append((os.path.relpath(path, project).replace(os.sep, "/"), kind))
    known = ws.store.known(reads) if reads else frozenset()
    return AgentWork(recent_files(files), [p for p in dict.fromkeys(reads) if p in known])


NAMED_LIMIT = 3  # docs asked of the text index per way of naming a file


def work_signals(ws: Workspace, work: AgentWork, prompt_docs: frozenset[str]) -> tuple[attention.Signal, ...]:
    """The lifts for the docs about the agent's files: the docs that claim them (front matter, config
    `paths`), then the docs whose text names them."""
    from .store.globs import NO, compile_line
    from .turn import claims

    cfg = ws.config
    globs = {doc: list(g) for doc, g in ws.store.doc_claims().items()}
    for doc, g in cfg.paths.items():
        globs.setdefault(doc, []).extend(g)
    known = ws.store.known(globs) if globs else frozenset()
    patterns = [(doc, pat) for doc in sorted(known) for g in globs[doc] for pat in (compile_line(g),) if pat]
    claimed: dict[str, list[str]] = {}
    named: dict[str, list[str]] = {}
    near: dict[str, list[str]] = {}
    for path, _ in work.files:
        claimed[path] = list(dict.fromkeys(d for d, pat in patterns if pat.match(path) != NO))
        own, folder = claims.name_queries(path)
        named[path] = _search_until(ws.store, own, claims.PER_FILE)
        near[path] = _search_until(ws.store, folder, claims.PER_FILE) if len(named[path]) < claims.PER_FILE else []
    # A hub page (an index, a map of the code) names every file once: naming is no evidence that it is about one.
    found = sorted({d for docs in (*named.values(), *near.values()) for d in docs})
    hubs = ws.store.hubs(found) if found else frozenset()
    named = {p: [d for d in docs if d not in hubs] for p, docs in named.items()}
    near = {p: [d for d in docs if d not in hubs] for p, docs in near.items()}
    return claims.signals(work.files, claimed, named, near, cfg.hot.threshold, cfg.warm.threshold, prompt_docs)


def _search_until(store: Store, queries: list[str], enough: int) -> list[str]:
    """The docs the text index finds for the queries, the first query's first, until there are enough."""
    found: list[str] = []
    for query in queries:
        found += [p for p, _ in store.lexical_search(query, lexical.FIELD_WEIGHTS, NAMED_LIMIT) if p not in found]
        if len(found) >= enough:
            break
    return found


def hold_read_docs(ws: Workspace, session: str, turn: int, docs: list[str]) -> None:
    """The agent read these docs itself: the conversation holds them as they are now, so a turn names them
    instead of sending them again (a host that keeps its history)."""
    cfg = ws.config
    rows: list[tuple[str, str]] = []
    for path in docs:
        text = index.read_doc(cfg.docs_root, path, limit=cfg.max_doc_bytes)
        if text is None:
            continue
        body = index.body_of(text, path)
        header, _ = index.header_of(body, cfg.warm.lines)
        rows += [(path, memory.unit(memory.WHOLE, body)), (path, memory.unit(memory.HEADER, header))]
        split = sections.split(body)
        rows += [(path, memory.unit(memory.PART, s.text)) for s in split if s.text]
        if split and split[0].text:  # what a cut doc shows of its opening
            rows.append((path, memory.unit(memory.PART, sections.opening_of(split[0].text))))
    ws.store.remember_sent(session, max(turn, 0), rows)
