"""The semantic step of a turn: goal vector, semantic recall, topic freeze and thaw, mass, intent.

It runs between co-activation and pins (DESIGN §2) and speaks only through attention.Signal records, each
with its cause: `semantic:<cosine>`, `freeze:<cluster>`, `thaw:<cluster>`. Its memory of a session (recent
prompt vectors, frozen and active clusters, cached masses) is one small blob in the session's row.
"""

from __future__ import annotations

import heapq

from ..records import record
from . import semantic
from .attention import FLOOR, ZERO_SIGNAL, Signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ..router import Workspace
    from .attention import FileScore

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


MODEL_INLINE_DOCS = 2000  # above this many docs a turn never rebuilds the model: the background indexer does


def model(ws: Workspace, index_version: int, rebuild: bool = True) -> dict[str, Any] | None:
    """The model's small part (IDF, centroids), rebuilt with numpy when the docs index changed.

    rebuild=False: a stale model is served as it is (its docs are checked against the index when scored),
    and None when there is none yet."""
    cfg = ws.config.semantic
    meta = ws.store.get_meta(MODEL_KEY)
    if meta is not None and meta["version"] == index_version and meta["dims"] == cfg.dims and \
            meta["k"] == cfg.clusters:
        return meta  # type: ignore[no-any-return]
    if not rebuild:
        return meta if meta is not None and meta["dims"] == cfg.dims and meta["k"] == cfg.clusters else None
    return save_model(ws, index_version, build_model(ws))


def build_model(ws: Workspace) -> semantic.Model:
    """The model of the docs indexed now (numpy): reads the store, writes nothing."""
    cfg = ws.config.semantic
    terms = ws.store.doc_terms()
    return semantic.build({p: (d, c) for p, (d, c, _) in terms.items()}, cfg.dims, cfg.clusters)


def save_model(ws: Workspace, index_version: int, built: semantic.Model) -> dict[str, Any]:
    cfg = ws.config.semantic
    ws.store.save_model(built.paths, built.clusters, built.postings)
    meta = {"version": index_version, "dims": cfg.dims, "k": cfg.clusters, "idf": built.idf,
            "centroids": built.centroids, "sizes": [list(built.clusters.values()).count(c)
                                                    for c in range(len(built.centroids))]}
    ws.store.put_meta(MODEL_KEY, meta)
    return meta


def step(ws: Workspace, memory: Mapping[str, Any], prompt: str, hits: Mapping[str, object],
         scores: Mapping[str, FileScore], index_version: int, n_docs: int = 0) -> SemanticTurn | None:
    """None when there is no model yet and this repo is too big to build one inside a turn."""
    cfg = ws.config
    sem = cfg.semantic
    meta = model(ws, index_version, rebuild=n_docs <= MODEL_INLINE_DOCS)
    if meta is None:
        return None
    fresh = memory.get("model") != meta["version"]  # clusters were rebuilt: their numbers mean something else
    frozen: dict[int, list[str]] = {} if fresh else {int(c): list(p) for c, p in memory.get("frozen", {}).items()}
    active: set[int] = set() if fresh else set(memory.get("active", ()))
    history: list[dict[int, float]] = list(memory.get("history", ())) if not fresh else []

    prompt_vec = semantic.prompt_vector(prompt, meta["idf"])
    goal = semantic.goal(prompt_vec, history)
    # The goal's strongest dimensions carry nearly all of its weight; the prompt's own are always matched.
    dims = set(semantic.strongest(goal, semantic.GOAL_TERMS)) | set(prompt_vec)
    to_goal, to_prompt = semantic.similarities(goal, prompt_vec, ws.store.postings(dims))
    closest = heapq.nlargest(RECALL_LIMIT, to_goal.items(), key=lambda kv: (kv[1], -kv[0]))
    near = {i for i, c in closest if c >= sem.recall_threshold}
    near |= {i for i, c in to_prompt.items() if c >= sem.prompt_hot_threshold}
    info = ws.store.sem_docs(near)

    scored = ws.store.sem_by_path(scores)
    signals: list[Signal] = []
    relative = semantic.affinities(semantic.centroid_cosines(goal, meta["centroids"])) if goal else None
    if relative is not None:
        for c, cos in enumerate(relative):
            if c in frozen:
                if cos > sem.thaw_above:
                    signals += [Signal(p, FLOOR, cfg.warm.threshold, f"thaw:{c}") for p in frozen.pop(c)]
                    active.add(c)
            elif cos >= sem.freeze_below:
                active.add(c)
            elif c in active:  # the goal moved away from this topic: its docs go COLD, remembered as frozen
                active.discard(c)
                members = sorted(p for p, fs in scores.items()
                                 if p in scored and scored[p][1] == c and fs.score > 0 and p not in hits)
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
    for i, cos in sorted(to_prompt.items()):
        if i in info and cos >= sem.prompt_hot_threshold:
            path, c = info[i]
            if c in frozen and path in frozen[c]:
                frozen[c].remove(path)  # named this closely, it comes back on its own
            signals.append(Signal(path, FLOOR, 1.0, f"semantic:{cos:.2f}"))

    if prompt_vec:
        history = (history + [prompt_vec])[-sem.history:]
    new_memory = {"model": meta["version"], "history": history, "frozen": frozen, "active": sorted(active),
                  "goal": goal, "mass_goal": memory.get("mass_goal", {}) if not fresh else {},
                  "mass": memory.get("mass", {}) if not fresh else {}}
    goal_cosine = {info[i][0]: cos for i, cos in to_goal.items() if i in info}
    goal_cosine.update({p: to_goal.get(i, 0.0) for p, (i, _) in scored.items()})
    return SemanticTurn(tuple(signals), new_memory, semantic.intent(prompt) if sem.intent else None, goal_cosine,
                        meta["version"] != index_version)


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
