"""The semantic layer's arithmetic: hashed TF-IDF vectors, the goal vector, clusters, mass and intent.

Two speeds. Building the model (IDF, doc vectors, k-means clusters, the postings index) uses numpy and runs
only when the docs index changed. A turn imports none of it: vectors are sparse dicts, and a doc's cosine with
the goal vector comes from the postings of the goal's few non-zero dimensions, in plain Python, so the hook
path never pays numpy's ~100 ms import (the resident server, which has numpy loaded, sums them with it).
"""

from __future__ import annotations

import heapq
import math
import sys
from array import array
from collections import Counter
from zlib import crc32

from ..records import record
from .words import FILLER, STOPWORDS, searched, tokens_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from typing import Any

    Vector = dict[int, float]  # sparse, dimension -> weight

DOC_TERMS = 64  # non-zero dimensions kept per doc vector: the postings a turn reads stay small
MAX_DF = 0.5  # terms in more than half of the docs carry no weight ...
MIN_DOCS_FOR_MAX_DF = 20  # ... once there are enough docs to tell
GOAL_PROMPT_WEIGHT = 0.3
KMEANS_ITERATIONS = 30
KMEANS_SEED = 7



def terms(text: str) -> list[str]:
    """Lower-case word tokens for vectors: identifiers split at "_" (SECRET_KEY -> secret, key), stopwords out,
    Chinese and Japanese as their pairs of characters (words.bigrams)."""
    tokens = tokens_of(text.lower())
    if not text.isascii():
        tokens = [t for token in tokens for t in searched(token)]
    if "_" not in text:
        return [t for t in tokens if len(t) > 1 and t not in STOPWORDS]
    out: list[str] = []
    for token in tokens:
        for part in token.split("_"):
            if len(part) > 1 and part not in STOPWORDS:
                out.append(part)
    return out


def dim_of(term: str, dims: int) -> int:
    return crc32(term.encode("utf-8")) % dims


def hashed_counts(text: str, dims: int, without: frozenset[str] = frozenset()) -> dict[int, int]:
    counts: dict[int, int] = {}
    for term, n in Counter(t for t in terms(text) if t not in without).items():  # each distinct term hashed once
        d = dim_of(term, dims)
        counts[d] = counts.get(d, 0) + n
    return counts


def pack_counts(counts: Mapping[int, int]) -> tuple[bytes, bytes]:
    """(dims, counts) as arrays numpy reads back without a Python loop per entry: dims uint16, counts uint8
    when every count fits (most docs: half the bytes in the state), else uint16 (see count_type)."""
    keys = sorted(counts)
    values = [min(counts[k], 65535) for k in keys]
    kind = "B" if all(v < 256 for v in values) else "H"
    return array("H", keys).tobytes(), array(kind, values).tobytes()


def count_type(dims_raw: bytes, counts_raw: bytes) -> str:
    """The array type of packed counts: one byte per dim, or two."""
    return "B" if len(counts_raw) * 2 == len(dims_raw) else "H"


def entropy(text: str) -> float:
    """Character entropy normalised by log2 of the length: about 0.5-0.6 for prose, lower for repetition."""
    n = len(text)
    if n < 2:
        return 0.0
    h = -sum(c / n * math.log2(c / n) for c in Counter(text).values())
    return h / math.log2(n)


def normalise(vec: Mapping[int, float]) -> Vector:
    norm = math.sqrt(sum(w * w for w in vec.values()))
    return {d: w / norm for d, w in vec.items()} if norm > 0 else {}


def weigh(counts: Mapping[int, int], idf: Sequence[float]) -> Vector:
    """Sublinear TF times IDF, L2-normalised."""
    return normalise({d: (1.0 + math.log(c)) * idf[d] for d, c in counts.items() if c > 0})


def prompt_vector(prompt: str, idf: Sequence[float]) -> Vector:
    """The prompt's vector, without the words that say nothing of a topic (words.FILLER): a thank-you ("thanks,
    that worked!") has none, and lifted a doc to WARM on a hash of "thanks" (tried as a new user would)."""
    return weigh(hashed_counts(prompt, len(idf), FILLER), idf)


def goal(prompt_vec: Vector, history: Sequence[Vector]) -> Vector:
    """G = normalise(0.3 v(prompt) + 0.7 mean(v over the previous prompts)); just v(prompt) with no history."""
    if not history:
        return dict(prompt_vec)
    mean: dict[int, float] = {}
    for vec in history:
        for d, w in vec.items():
            mean[d] = mean.get(d, 0.0) + w / len(history)
    combined = {d: (1 - GOAL_PROMPT_WEIGHT) * w for d, w in mean.items()}
    for d, w in prompt_vec.items():
        combined[d] = combined.get(d, 0.0) + GOAL_PROMPT_WEIGHT * w
    return normalise(combined)


def distance(a: Mapping[int, float], b: Mapping[int, float]) -> float:
    """Euclidean distance between two sparse vectors."""
    keys = set(a) | set(b)
    return math.sqrt(sum((a.get(d, 0.0) - b.get(d, 0.0)) ** 2 for d in keys))


def mass(h: float, cosine: float) -> float:
    """mass = max(0.01, H)^0.5 * r^0.5 with r = (cos + 1) / 2: dense, on-goal docs weigh most."""
    return math.sqrt(max(0.01, h)) * math.sqrt(max(0.0, (cosine + 1.0) / 2.0))


GOAL_TERMS = 32  # the goal's strongest dimensions that are matched against the postings
# A turn reads each dimension's strongest docs only (postings are kept in descending weight): a doc that
# weighs little in a dimension adds little to its cosine, and the turn's cost stops growing with the repo
# (at 512 dims a posting list passes this size at about 8,000 docs).
POSTINGS_READ = 1500


class Cosines:
    """Doc id -> cosine, for the docs some read posting holds (the rest are 0 and not "in" it)."""

    def __init__(self, values: dict[int, float]) -> None:
        self._values = values

    def __contains__(self, doc: int) -> bool:
        return doc in self._values

    def get(self, doc: int, default: float = 0.0) -> float:
        return self._values.get(doc, default)

    def at_least(self, threshold: float, limit: int | None = None) -> list[tuple[int, float]]:
        """(doc, cos) of the docs at `threshold` or above: the `limit` closest, closest first (ties: lowest id);
        with no limit all of them, by id."""
        hits = [(i, c) for i, c in self._values.items() if c >= threshold]
        if limit is None:
            return sorted(hits)
        return heapq.nlargest(limit, hits, key=lambda kv: (kv[1], -kv[0]))


class DenseCosines(Cosines):
    """The same, held in numpy arrays indexed by doc id (see similarities)."""

    def __init__(self, values: Any, present: Any, np: Any) -> None:
        self._dense, self._present, self._np = values, present, np

    def __contains__(self, doc: int) -> bool:
        return 0 <= doc < len(self._present) and bool(self._present[doc])

    def get(self, doc: int, default: float = 0.0) -> float:
        return float(self._dense[doc]) if doc in self else default

    def at_least(self, threshold: float, limit: int | None = None) -> list[tuple[int, float]]:
        np = self._np
        ids = np.flatnonzero(self._present & (self._dense >= threshold))
        if limit is not None:
            ids = ids[np.lexsort((ids, -self._dense[ids]))][:limit]
        return [(int(i), float(self._dense[i])) for i in ids]


def similarities(goal_vec: Vector, prompt_vec: Vector, postings: Iterable[tuple[int, bytes, bytes]]
                 ) -> tuple[Cosines, Cosines]:
    """(cos with G, cos with the prompt) of each doc from the postings of G's dimensions.

    This is the layer's cost on a turn (up to POSTINGS_READ postings for each of G's ~40 dimensions). In a
    process that has numpy loaded already (the resident server) the sums are numpy's, else plain Python: a
    hook process never pays numpy's ~100 ms import. Both add the same float64 products in the same order, so
    they give the same floats (tested); at 100,000 docs numpy's take ~2 ms of a warm turn, the loop ~6-8 ms.
    """
    np = sys.modules.get("numpy")
    postings = list(postings)
    if np is not None:
        return _summed(goal_vec, postings, np), _summed(prompt_vec, postings, np)
    to_goal: dict[int, float] = {}
    to_prompt: dict[int, float] = {}
    get_goal = to_goal.get
    for d, ids_raw, weights_raw in postings:
        ids = array("i")
        ids.frombytes(ids_raw)
        weights = array("f")
        weights.frombytes(weights_raw)
        g = goal_vec.get(d, 0.0)
        if g:
            for doc, w in zip(ids, weights, strict=True):
                to_goal[doc] = get_goal(doc, 0.0) + g * w
        p = prompt_vec.get(d, 0.0)
        if p:
            get_prompt = to_prompt.get
            for doc, w in zip(ids, weights, strict=True):
                to_prompt[doc] = get_prompt(doc, 0.0) + p * w
    return Cosines(to_goal), Cosines(to_prompt)


def _summed(vec: Vector, postings: list[tuple[int, bytes, bytes]], np: Any) -> DenseCosines:
    """vec's cosines with numpy: every posting's float64 product, summed per doc in the order read."""
    ids, products = [], []
    for d, ids_raw, weights_raw in postings:
        g = vec.get(d, 0.0)
        if g:
            ids.append(np.frombuffer(ids_raw, dtype=np.intc))
            products.append(np.frombuffer(weights_raw, dtype=np.float32).astype(np.float64) * g)
    if not ids:
        return DenseCosines(np.zeros(0), np.zeros(0, dtype=bool), np)
    every = np.concatenate(ids)
    return DenseCosines(np.bincount(every, weights=np.concatenate(products)), np.bincount(every) > 0, np)


def strongest(vec: Mapping[int, float], n: int) -> list[int]:
    """The n dimensions with the largest weights."""
    return sorted(vec, key=lambda d: -abs(vec[d]))[:n]


# -- intent ---------------------------------------------------------------------------------------------------

FACTUAL = "FACTUAL"
NARRATIVE = "NARRATIVE"
HYBRID = "HYBRID"
FACTUAL_CUES = ("what is", "what's", "what are", "define", "definition of", "exact", "exactly", "code for",
                "who is", "api key", "which port", "how many", "value of", "where is")
NARRATIVE_CUES = ("summarize", "summarise", "summary", "recap", "catch me up", "overview", "story",
                  "walk me through", "explain how", "history of", "big picture")


def _phrase(text: str) -> str:
    return " " + " ".join(tokens_of(text.lower().replace("'", ""))) + " "


_FACTUAL = tuple(_phrase(c) for c in FACTUAL_CUES)
_NARRATIVE = tuple(_phrase(c) for c in NARRATIVE_CUES)


def intent(prompt: str) -> str:
    text = _phrase(prompt)
    factual = any(cue in text for cue in _FACTUAL)
    narrative = any(cue in text for cue in _NARRATIVE)
    if factual == narrative:
        return HYBRID
    return FACTUAL if factual else NARRATIVE


def intent_caps(kind: str, hot_max: int, warm_max: int) -> tuple[int, int]:
    """(HOT cap, WARM cap). FACTUAL: fewer docs, in full; NARRATIVE: fewer in full, more headers; HYBRID:
    the config's caps."""
    if kind == FACTUAL:
        return hot_max, max(1, warm_max // 2)
    if kind == NARRATIVE:
        return min(hot_max, 2), max(warm_max, 12)
    return hot_max, warm_max


# -- the model: built with numpy when the docs index changes ---------------------------------------------------


@record
class Model:
    idf: list[float]
    centroids: list[list[float]]  # k unit vectors, dense
    clusters: dict[str, int]  # path -> cluster
    postings: dict[int, tuple[bytes, bytes]]  # dim -> (doc ids int32, weights float32), ids index `paths`
    paths: list[str]
    doc_dims: list[bytes]  # each doc's dims (uint16), by id: what an incremental update takes out again


KMEANS_SAMPLE = 10_000  # k-means runs on at most this many docs, sampled; the others join the nearest
BUILD_CHUNK = 4096  # docs made dense at a time: the build's memory stays flat as the repo grows


def build(rows: Callable[[], Iterable[tuple[str, bytes, bytes]]], dims: int, k: int) -> Model:
    """IDF over the corpus, doc vectors (top DOC_TERMS dims) as postings per dimension, k-means clusters.

    rows() streams (path, dims, counts) ordered by path; it is read twice (document frequencies, then the
    vectors), a chunk at a time, so a 100,000-doc build holds the sparse vectors and one dense chunk only."""
    import numpy as np

    paths: list[str] = []
    df = np.zeros(dims, dtype=np.int64)
    for chunk in _chunks(rows()):
        paths += [p for p, _, _ in chunk]
        df += np.bincount(np.concatenate([np.frombuffer(d, dtype=np.uint16) for _, d, _ in chunk]),
                          minlength=dims)[:dims]
    n = len(paths)
    idf = (np.log((1.0 + n) / (1.0 + df)) + 1.0).astype(np.float32)
    if n >= MIN_DOCS_FOR_MAX_DF:
        # A term in most docs says nothing about any of them, and its postings would be the longest a turn
        # reads: leave it out of the vectors (scikit-learn's max_df).
        idf[df > MAX_DF * n] = 0.0
    doc_ids, cols, vals = [], [], []  # doc-major sparse vectors, one array of each per chunk
    by_dim: list[list[Any]] = [[] for _ in range(dims)]  # dim -> per-chunk (ids, weights) runs
    offset = 0
    for chunk in _chunks(rows()):
        unit = _unit_rows(np, chunk, idf, dims)
        r, c = np.nonzero(unit)
        ids, cs, vs = (r + offset).astype(np.int32), c.astype(np.uint16), unit[r, c]
        doc_ids.append(ids)
        cols.append(cs)
        vals.append(vs)
        # This chunk's postings, grouped by dim: sorting a chunk at a time keeps the build's memory flat.
        order = np.argsort(cs, kind="stable")
        counts = np.bincount(cs, minlength=dims).tolist()
        at = 0
        for dim, count in enumerate(counts):
            if count:
                take = order[at:at + count]
                by_dim[dim].append((ids[take], vs[take]))
                at += count
        offset += len(chunk)
    ids_all = np.concatenate(doc_ids) if doc_ids else np.zeros(0, dtype=np.int32)
    cols_all = np.concatenate(cols) if cols else np.zeros(0, dtype=np.uint16)
    vals_all = np.concatenate(vals) if vals else np.zeros(0, dtype=np.float32)
    del doc_ids, cols, vals
    labels, centroids = _clusters(np, ids_all, cols_all, vals_all, n, dims, min(k, n))
    # Doc ids come out of np.nonzero in row order: each doc's dims are one contiguous run.
    bounds = np.searchsorted(ids_all, np.arange(n + 1))
    doc_dims = [cols_all[bounds[i]:bounds[i + 1]].tobytes() for i in range(n)]
    del ids_all, cols_all, vals_all
    postings = {}
    for d, runs in enumerate(by_dim):
        if runs:
            ids, weights = np.concatenate([i for i, _ in runs]), np.concatenate([w for _, w in runs])
            order = np.argsort(-weights, kind="stable")  # strongest first, ties by doc id
            postings[d] = (ids[order].tobytes(), weights[order].astype(np.float32).tobytes())
    del by_dim
    return Model(idf=[float(x) for x in idf], centroids=[[float(x) for x in c] for c in centroids],
                 clusters={p: int(labels[i]) for i, p in enumerate(paths)}, postings=postings,
                 paths=paths, doc_dims=doc_dims)


def _chunks(rows: Iterable[tuple[str, bytes, bytes]]) -> Iterator[list[tuple[str, bytes, bytes]]]:
    chunk: list[tuple[str, bytes, bytes]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == BUILD_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _unit_rows(np: Any, chunk: Sequence[tuple[str, bytes, bytes]], idf: Any, dims: int) -> Any:
    """The docs' unit vectors, dense: sublinear TF times IDF, each doc's DOC_TERMS strongest dims."""
    matrix = np.zeros((len(chunk), dims), dtype=np.float32)
    for row, (_, d_raw, c_raw) in enumerate(chunk):
        kind = np.uint8 if count_type(d_raw, c_raw) == "B" else np.uint16
        matrix[row, np.frombuffer(d_raw, dtype=np.uint16)] = np.frombuffer(c_raw, dtype=kind)
    weights = np.where(matrix > 0, 1.0 + np.log(np.maximum(matrix, 1.0)), 0.0).astype(np.float32) * idf
    if dims > DOC_TERMS:
        # Keep each doc's strongest dimensions only, so a turn's postings stay short.
        cut = np.partition(weights, dims - DOC_TERMS, axis=1)[:, dims - DOC_TERMS][:, None]
        weights = np.where(weights >= cut, weights, 0.0)
    norms = np.linalg.norm(weights, axis=1, keepdims=True)
    return np.divide(weights, norms, out=np.zeros_like(weights), where=norms > 0).astype(np.float32)


def _dense(np: Any, ids: Any, cols: Any, vals: Any, rows: Any, dims: int) -> Any:
    """The dense vectors of doc ids `rows` (sorted) from the sparse triples (sorted by doc id)."""
    out = np.zeros((len(rows), dims), dtype=np.float32)
    lo, hi = np.searchsorted(ids, rows), np.searchsorted(ids, rows, side="right")
    for i, (a, b) in enumerate(zip(lo, hi, strict=True)):
        out[i, cols[a:b]] = vals[a:b]
    return out


def _clusters(np: Any, ids: Any, cols: Any, vals: Any, n: int, dims: int, k: int) -> tuple[Any, Any]:
    """k-means on (an even sample of) the docs, then every doc's nearest centroid, a chunk at a time."""
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dims), dtype=np.float32)
    # A seeded random sample: the same docs give the same clusters, and no stride lines up with a pattern in
    # the paths.
    sample = np.arange(n) if n <= KMEANS_SAMPLE else \
        np.sort(np.random.default_rng(KMEANS_SEED).choice(n, KMEANS_SAMPLE, replace=False))
    labels, centroids = kmeans(_dense(np, ids, cols, vals, sample, dims), k)
    if n <= KMEANS_SAMPLE:
        return labels, centroids
    out = np.zeros(n, dtype=np.int64)
    for lo in range(0, n, BUILD_CHUNK):
        rows = np.arange(lo, min(n, lo + BUILD_CHUNK))
        out[rows] = np.argmax(_dense(np, ids, cols, vals, rows, dims) @ centroids.T, axis=1)
    return out, centroids


KMEANS_RUNS = 4  # k-means++ from this many seeds, the tightest result kept: one unlucky seeding splits a topic


def kmeans(unit: Any, k: int) -> tuple[Any, Any]:
    """Spherical k-means (cosine) with k-means++ seeding from fixed seeds: the same docs, the same clusters."""
    import numpy as np

    x = np.asarray(unit, dtype=np.float32)
    best: tuple[float, Any, Any] | None = None
    for run in range(KMEANS_RUNS):
        labels, c = _kmeans_once(np, x, k, np.random.default_rng(KMEANS_SEED + run))
        fit = float(np.sum(np.max(x @ c.T, axis=1))) if len(x) else 0.0  # summed cosine to the nearest centre
        if best is None or fit > best[0] + 1e-6:
            best = (fit, labels, c)
    assert best is not None
    return best[1], best[2]


def _kmeans_once(np: Any, x: Any, k: int, rng: Any) -> tuple[Any, Any]:
    n = len(x)
    centres = [x[rng.integers(n)]]
    for _ in range(1, k):
        dist = np.clip(1.0 - np.max(x @ np.array(centres).T, axis=1), 0.0, None)
        total = dist.sum()
        centres.append(x[rng.choice(n, p=dist / total)] if total > 0 else x[rng.integers(n)])
    c = np.array(centres, dtype=np.float32)
    labels = np.zeros(n, dtype=np.int64)
    for _ in range(KMEANS_ITERATIONS):
        labels = np.argmax(x @ c.T, axis=1)
        # Each centroid is the sum of its members: a masked sum per cluster is several times faster than
        # np.add.at's unbuffered scatter, and k is small.
        new = np.stack([x[labels == j].sum(axis=0) for j in range(len(c))]).astype(np.float32)
        norms = np.linalg.norm(new, axis=1, keepdims=True)
        empty = norms[:, 0] == 0
        new[~empty] /= norms[~empty]
        new[empty] = c[empty]
        if np.allclose(new, c):
            break
        c = new
    labels = np.argmax(x @ c.T, axis=1)  # the labels of the final centres
    return labels, c


# -- the model, updated in place: a few changed docs, in plain Python, inside a turn ---------------------------


def doc_vector(dims_raw: bytes, counts_raw: bytes, idf: Sequence[float]) -> Vector:
    """A doc's unit vector as `build` makes it, against a given IDF (the model's, unchanged)."""
    dims, counts = array("H"), array(count_type(dims_raw, counts_raw))
    dims.frombytes(dims_raw)
    counts.frombytes(counts_raw)
    weights = {d: (1.0 + math.log(c)) * idf[d] for d, c in zip(dims, counts, strict=True) if c > 0 and idf[d] > 0}
    if len(weights) > DOC_TERMS:
        cut = sorted(weights.values(), reverse=True)[DOC_TERMS - 1]
        weights = {d: w for d, w in weights.items() if w >= cut}
    return normalise(weights)


def nearest(vec: Mapping[int, float], centroids: Sequence[Sequence[float]]) -> int:
    """The cluster whose centroid is closest (the first of equals, as numpy's argmax)."""
    cosines = centroid_cosines(vec, centroids)
    return max(range(len(cosines)), key=lambda j: (cosines[j], -j)) if cosines else 0


def pack_dims(vec: Mapping[int, float]) -> bytes:
    return array("H", sorted(vec)).tobytes()


def unpack_dims(raw: bytes) -> list[int]:
    dims = array("H")
    dims.frombytes(raw)
    return list(dims)


def _insertion_point(weights: Sequence[float], w: float) -> int:
    """Where `w` goes in weights sorted in descending order: after its equals."""
    lo, hi = 0, len(weights)
    while lo < hi:
        mid = (lo + hi) // 2
        if weights[mid] >= w:
            lo = mid + 1
        else:
            hi = mid
    return lo


def edit_postings(rows: Iterable[tuple[int, bytes, bytes]], drop: Mapping[int, Iterable[int]],
                  add: Mapping[int, Sequence[tuple[int, float]]]) -> dict[int, tuple[bytes, bytes]]:
    """The postings of the dims in `drop` and `add` after taking out drop[dim]'s doc ids and putting in
    add[dim]'s (id, weight), in descending weight. rows: the stored postings of those dims (a dim with none
    yet starts empty)."""
    stored = {d: (i, w) for d, i, w in rows}
    out = {}
    for dim in {*drop, *add}:
        ids, weights = array("i"), array("f")
        if dim in stored:
            ids.frombytes(stored[dim][0])
            weights.frombytes(stored[dim][1])
        for doc in drop.get(dim, ()):
            try:
                at = ids.index(doc)  # a scan in C: fast enough for the few docs an update touches
            except ValueError:
                continue
            del ids[at]
            del weights[at]
        for doc, w in add.get(dim, ()):
            at = _insertion_point(weights, w)  # kept in descending weight
            ids.insert(at, doc)
            weights.insert(at, w)
        out[dim] = (ids.tobytes(), weights.tobytes())
    return out


def centroid_cosines(goal_vec: Mapping[int, float], centroids: Sequence[Sequence[float]]) -> list[float]:
    return [sum(w * c[d] for d, w in goal_vec.items()) for c in centroids]


MIN_TOPIC_COSINE = 0.05  # below this the goal is about none of the clusters: no topic moves at all


def affinities(cosines: Sequence[float]) -> list[float] | None:
    """Each cluster's centroid cosine relative to the best cluster's (1.0 = the topic the goal is on).

    Raw cosines between a goal built from short prompts and a centroid spread over a whole topic are small
    (0.15-0.35 on topic, under 0.05 off it, measured on the drifting-needle corpus) and shift with the
    vector size and the prompts' length; relative to the best cluster they separate on and off topic on a
    fixed scale, where "moved away" (below 0.3) and "came back" (above 0.6) keep their meaning.
    """
    best = max(cosines, default=0.0)
    if best < MIN_TOPIC_COSINE:
        return None
    return [c / best for c in cosines]
