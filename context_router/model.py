"""The semantic model's upkeep and the semantic step of a turn: goal vector, semantic recall, topic freeze and
thaw, mass, intent.

It keeps the model (turn/semantic.py's pure functions) in the store: builds it, folds changed docs in place.
The step runs between co-activation and pins (DESIGN §2) and speaks only through attention.Signal records,
each with its cause: `semantic:<cosine>`, `freeze:<cluster>`, `thaw:<cluster>`. Its memory of a session
(recent prompt vectors, frozen and active clusters, cached masses) is one small blob in the session's row.
It sits above the store and the stages, beside the workspace it works on: the turn and the background
indexer both use it.
"""

from __future__ import annotations

from .records import record
from .turn import semantic
from .turn.attention import FLOOR, ZERO_SIGNAL, Signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from .records import FileScore
    from .workspace import Workspace

MODEL_KEY = "semantic"
MASS_MOVE = 0.1  # recompute masses once the goal vector has moved this far (Euclidean)
RECALL_LIMIT = 16  # at most this many docs are recalled by the goal per turn: twice the WARM cap


@record
class SemanticTurn:
    signals: tuple[Signal, ...]
    memory: dict[str, Any]  # the session's semantic memory after this turn
    intent: str | None
    goal_cosine: dict[str, float]  # cos(doc, G) for the docs near G
    stale: bool = False  # the model predates the index: the background indexer rebuilds it


MODEL_INLINE_DOCS = 2000  # above this many docs a turn never builds the model whole: the background indexer does
UPDATE_MAX_DOCS = 64  # changed docs folded into the model in place at once; more make a whole build
# ... on a turn of a repo over MODEL_INLINE_DOCS: each doc rewrites the posting lists of its 64 dims, about
# 15 ms for one doc at 100,000 docs and 150 ms for five; more are left to the background indexer.
TURN_UPDATE_DOCS = 4
RECLUSTER_SHARE = 0.1  # once this share of the docs changed since the clusters were made, they are made again


def model(ws: Workspace, index_version: int, rebuild: bool = True, fold: int = UPDATE_MAX_DOCS
          ) -> dict[str, Any] | None:
    """The model's small part (IDF, centroids, its version), brought up to the docs index.

    A few changed docs are folded in place (their vectors against the model's IDF, their nearest cluster,
    their postings); a whole build (numpy) runs when there is no model, when many docs changed, or once the
    changes add up to RECLUSTER_SHARE of the docs. rebuild=False (a big repo, on a turn): never a whole build;
    a model that needs one is served as it is (see needs_build) and None when there is none yet. fold: fold
    at most this many changed docs here; with more queued the model is served as it is (rebuild=False)."""
    cfg = ws.config.semantic
    meta = ws.store.get_meta(MODEL_KEY)
    if meta is not None and (meta["dims"] != cfg.dims or meta["k"] != cfg.clusters or "made" not in meta):
        meta = None
    if meta is not None and meta["version"] == index_version and (not rebuild or not _reclustering(meta)):
        return meta  # type: ignore[no-any-return]
    if ws.store.read_only:  # a turn served read-only writes nothing: the model as it is
        return meta  # type: ignore[no-any-return]
    if meta is not None and meta["built"] and ws.store.sem_next_id() == 0:
        meta = None  # the index was made anew (store.clear_index): its model too, whole
    if meta is not None:
        pending = ws.store.sem_pending(UPDATE_MAX_DOCS)
        if len(pending) <= (UPDATE_MAX_DOCS if rebuild else fold) and \
                (not rebuild or not _reclustering(meta, len(pending))):
            return update_model(ws, meta, index_version, pending)
    if not rebuild:
        return meta
    return save_model(ws, index_version, build_model(ws))


def _reclustering(meta: Mapping[str, Any], more: int = 0) -> bool:
    """Whether the docs changed since the clusters were made are past RECLUSTER_SHARE of them."""
    return bool(meta["drift"] + more > max(1.0, RECLUSTER_SHARE * meta["built"]))


def needs_build(ws: Workspace, index_version: int) -> bool:
    """Whether the model must be built whole (by the background indexer or the watcher): none yet, more
    changed docs than fold in at once, or too many changes since the clusters were made. A few changed docs
    are folded in here, on the way."""
    meta = model(ws, index_version, rebuild=False)
    return meta is None or meta["version"] != index_version or _reclustering(meta)


def build_model(ws: Workspace) -> semantic.Model:
    """The model of the docs indexed now (numpy): reads the store, writes nothing."""
    cfg = ws.config.semantic
    return semantic.build(ws.store.doc_terms, cfg.dims, cfg.clusters)


def save_model(ws: Workspace, index_version: int, built: semantic.Model) -> dict[str, Any]:
    """Swap in a whole model built from the index at `index_version` (the docs changed since stay queued)."""
    cfg = ws.config.semantic
    ws.store.save_model(built.paths, built.clusters, built.postings, built.doc_dims, index_version)
    sizes = [0] * len(built.centroids)
    for c in built.clusters.values():
        sizes[c] += 1
    meta = {"version": index_version, "dims": cfg.dims, "k": cfg.clusters, "idf": built.idf,
            "centroids": built.centroids, "sizes": sizes, "built": len(built.paths), "drift": 0,
            "made": index_version}  # the clusters' identity: updates in place keep their meaning
    ws.store.put_meta(MODEL_KEY, meta)
    return meta


def update_model(ws: Workspace, meta: dict[str, Any], index_version: int, paths: list[str]) -> dict[str, Any]:
    """Fold the changed docs `paths` into the model in place: each one's vector against the model's IDF, its
    nearest centroid, its postings. The IDF and the centroids stay as they were built."""
    store = ws.store
    old = store.sem_rows(paths)
    terms = {p: (d, c) for p, d, c in store.doc_terms(paths)}
    drop: dict[int, list[int]] = {}
    for doc_id, _, dims in old.values():
        for d in semantic.unpack_dims(dims or b""):
            drop.setdefault(d, []).append(doc_id)
    add: dict[int, list[tuple[int, float]]] = {}
    rows = []
    next_id = store.sem_next_id()
    sizes = list(meta["sizes"])
    for _, cluster, _ in old.values():
        sizes[cluster] -= 1
    for path in sorted(terms):
        vec = semantic.doc_vector(*terms[path], meta["idf"])
        if path in old:
            doc_id = old[path][0]
        else:
            doc_id, next_id = next_id, next_id + 1
        cluster = semantic.nearest(vec, meta["centroids"])
        sizes[cluster] += 1
        rows.append((doc_id, path, cluster, semantic.pack_dims(vec)))
        for d, w in vec.items():
            add.setdefault(d, []).append((doc_id, w))
    gone = [old[p][0] for p in old if p not in terms]
    edited = semantic.edit_postings(store.postings({*drop, *add}), drop, add)
    store.update_model(gone, rows, edited, paths)
    meta = {**meta, "version": index_version, "sizes": sizes, "drift": meta["drift"] + len(paths)}
    store.put_meta(MODEL_KEY, meta)
    return meta


def step(ws: Workspace, memory: Mapping[str, Any], prompt: str, hits: Mapping[str, object],
         scores: Mapping[str, FileScore], index_version: int, n_docs: int = 0,
         everything: Callable[[], Mapping[str, FileScore]] | None = None) -> SemanticTurn | None:
    """None when there is no model yet and this repo is too big to build one inside a turn.

    scores: the session's scores that can rank (and those of the docs hit); everything: all of its scores, asked
    for only when a topic freezes (every doc of it with a score is frozen)."""
    cfg = ws.config
    sem = cfg.semantic
    rebuild = n_docs <= MODEL_INLINE_DOCS
    meta = model(ws, index_version, rebuild, TURN_UPDATE_DOCS)
    if meta is None:
        return None
    fresh = memory.get("model") != meta["made"]  # clusters were made again: their numbers mean something else
    frozen: dict[int, list[str]] = {} if fresh else {int(c): list(p) for c, p in memory.get("frozen", {}).items()}
    active: set[int] = set() if fresh else set(memory.get("active", ()))
    history: list[dict[int, float]] = list(memory.get("history", ())) if not fresh else []

    prompt_vec = semantic.prompt_vector(prompt, meta["idf"])
    goal = semantic.goal(prompt_vec, history)
    # The goal's strongest dimensions carry nearly all of its weight; the prompt's own are always matched.
    dims = set(semantic.strongest(goal, semantic.GOAL_TERMS)) | set(prompt_vec)
    to_goal, to_prompt = semantic.similarities(goal, prompt_vec, ws.store.postings(dims, semantic.POSTINGS_READ))
    # Only a doc at the recall line can be recalled: the rest (tens of thousands at 100,000 docs) is not sorted.
    closest = to_goal.at_least(sem.recall_threshold, RECALL_LIMIT)
    named = to_prompt.at_least(sem.prompt_hot_threshold)
    near = {i for i, _ in closest} | {i for i, _ in named}
    info = ws.store.sem_docs(near)

    scored = ws.store.sem_by_path(scores)
    signals: list[Signal] = []
    relative = semantic.affinities(semantic.centroid_cosines(goal, meta["centroids"])) if goal else None
    # A topic the conversation left thaws on evidence of this turn, not on the goal's memory alone: the prompt's
    # own words must be on it too (a prompt about nothing the docs know, "gdplot018", thaws nothing).
    said = semantic.affinities(semantic.centroid_cosines(prompt_vec, meta["centroids"])) if prompt_vec else None
    if relative is not None:
        for c, cos in enumerate(relative):
            if c in frozen:
                if cos > sem.thaw_above and said is not None and said[c] >= sem.freeze_below:
                    signals += [Signal(p, FLOOR, cfg.warm.threshold, f"thaw:{c}") for p in frozen.pop(c)]
                    active.add(c)
            elif cos >= sem.freeze_below:
                active.add(c)
            elif c in active:  # the goal moved away from this topic: its docs go COLD, remembered as frozen
                active.discard(c)
                pool = scores if everything is None else everything()
                where = scored if pool is scores else ws.store.sem_by_path(pool)
                members = sorted(p for p, fs in pool.items()
                                 if p in where and where[p][1] == c and fs.score > 0 and p not in hits)
                if members:  # a topic with nothing in view has nothing to freeze
                    frozen[c] = members
                    signals += [Signal(p, ZERO_SIGNAL, 0.0, f"freeze:{c}") for p in members]

    span = 1.0 - sem.recall_threshold
    ceiling = cfg.hot.threshold - 0.01  # the goal alone makes a doc WARM; only the prompt itself makes it HOT
    for i, cos in closest:
        if sem.recall and i in info and cos >= sem.recall_threshold and info[i][1] not in frozen:
            lift = (cos - sem.recall_threshold) / span if span > 0 else 1.0
            value = min(ceiling, cfg.warm.threshold + lift * (cfg.hot.threshold - cfg.warm.threshold))
            signals.append(Signal(info[i][0], FLOOR, value, f"semantic:{cos:.2f}"))
    # A hub or an API stub page (`::: textual.strip`: a vector of one or two words) is close to any prompt that
    # says its name: that is no evidence that it answers, so it rises to WARM at most.
    hubs = ws.store.hubs(info[i][0] for i, _ in named if i in info) if named else frozenset()
    for i, cos in named:
        if i in info:
            path, c = info[i]
            if c in frozen and path in frozen[c]:
                frozen[c].remove(path)  # named this closely, it comes back on its own
            signals.append(Signal(path, FLOOR, ceiling if path in hubs else 1.0, f"semantic:{cos:.2f}"))

    if prompt_vec:
        history = (history + [prompt_vec])[-sem.history:]
    new_memory = {"model": meta["made"], "history": history, "frozen": frozen, "active": sorted(active),
                  "goal": goal, "mass_goal": memory.get("mass_goal", {}) if not fresh else {},
                  "mass": memory.get("mass", {}) if not fresh else {}}
    goal_cosine = {info[i][0]: to_goal.get(i) for i in info if i in to_goal}
    goal_cosine.update({p: to_goal.get(i, 0.0) for p, (i, _) in scored.items()})
    stale = meta["version"] != index_version or (not rebuild and _reclustering(meta))
    return SemanticTurn(tuple(signals), new_memory, semantic.intent(prompt) if sem.intent else None, goal_cosine,
                        stale)


def masses(ws: Workspace, memory: dict[str, Any], paths: list[str], goal_cosine: Mapping[str, float]
           ) -> dict[str, float]:
    """Mass of each path, computed lazily: cached in `memory` until the goal vector moves more than 0.1."""
    goal = memory.get("goal", {})
    cache: dict[str, float] = memory.get("mass", {})
    if semantic.distance(goal, memory.get("mass_goal", {})) > MASS_MOVE:
        cache = {}
        memory["mass_goal"] = goal
    missing = [p for p in paths if p not in cache]
    if missing:
        entropy = ws.store.entropies(missing)
        for p in missing:
            cache[p] = semantic.mass(entropy.get(p, 0.0), goal_cosine.get(p, 0.0))
    memory["mass"] = cache
    return {p: cache[p] for p in paths}
