"""The semantic layer's arithmetic: hashed TF-IDF vectors, the goal vector, clusters, mass and intent.

Two speeds. Building the model (IDF, doc vectors, k-means clusters, the postings index) uses numpy and runs
only when the docs index changed. A turn uses none of it: vectors are sparse dicts, and a doc's cosine with
the goal vector comes from the postings of the goal's few non-zero dimensions, in plain Python, so the hook
path never pays numpy's ~100 ms import.
"""

from __future__ import annotations

import math
from array import array
from zlib import crc32

from ..records import record
from .words import STOPWORDS, tokens_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    Vector = dict[int, float]  # sparse, dimension -> weight

DOC_TERMS = 64  # non-zero dimensions kept per doc vector: the postings a turn reads stay small
MAX_DF = 0.5  # terms in more than half of the docs carry no weight ...
MIN_DOCS_FOR_MAX_DF = 20  # ... once there are enough docs to tell
GOAL_PROMPT_WEIGHT = 0.3
KMEANS_ITERATIONS = 30
KMEANS_SEED = 7



def terms(text: str) -> list[str]:
    """Lower-case word tokens for vectors: identifiers split at "_" (SECRET_KEY -> secret, key), stopwords out."""
    out: list[str] = []
    for token in tokens_of(text.lower()):
        for part in token.split("_"):
            if len(part) > 1 and part not in STOPWORDS:
                out.append(part)
    return out


def dim_of(term: str, dims: int) -> int:
    return crc32(term.encode("utf-8")) % dims


def hashed_counts(text: str, dims: int) -> dict[int, int]:
    counts: dict[int, int] = {}
    for term in terms(text):
        d = dim_of(term, dims)
        counts[d] = counts.get(d, 0) + 1
    return counts


def pack_counts(counts: Mapping[int, int]) -> tuple[bytes, bytes]:
    """(dims, counts) as uint16 arrays: numpy reads them back without a Python loop per entry."""
    keys = sorted(counts)
    return array("H", keys).tobytes(), array("H", [min(counts[k], 65535) for k in keys]).tobytes()


def entropy(text: str) -> float:
    """Character entropy normalised by log2 of the length: about 0.5-0.6 for prose, lower for repetition."""
    n = len(text)
    if n < 2:
        return 0.0
    freq: dict[str, int] = {}
    for ch in text:
        freq[ch] = freq.get(ch, 0) + 1
    h = -sum(c / n * math.log2(c / n) for c in freq.values())
    return h / math.log2(n)


def normalise(vec: Mapping[int, float]) -> Vector:
    norm = math.sqrt(sum(w * w for w in vec.values()))
    return {d: w / norm for d, w in vec.items()} if norm > 0 else {}


def weigh(counts: Mapping[int, int], idf: Sequence[float]) -> Vector:
    """Sublinear TF times IDF, L2-normalised."""
    return normalise({d: (1.0 + math.log(c)) * idf[d] for d, c in counts.items() if c > 0})


def prompt_vector(prompt: str, idf: Sequence[float]) -> Vector:
    return weigh(hashed_counts(prompt, len(idf)), idf)


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


def similarities(goal_vec: Vector, prompt_vec: Vector,
                 postings: Iterable[tuple[int, bytes, bytes]]) -> tuple[dict[int, float], dict[int, float]]:
    """(doc id -> cos with G, doc id -> cos with the prompt) from the postings of G's dimensions.

    This loop is the layer's cost on a turn (about 2,000 postings per dimension at 10,000 docs), so it does
    one dict update per posting; the prompt's few dimensions get a second, short pass.
    """
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
    return to_goal, to_prompt


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


def build(docs: Mapping[str, tuple[bytes, bytes]], dims: int, k: int) -> Model:
    """IDF over the corpus, doc vectors (top DOC_TERMS dims) as postings per dimension, k-means clusters."""
    import numpy as np

    paths = sorted(docs)
    n = len(paths)
    matrix = np.zeros((n, dims), dtype=np.float32)
    for row, path in enumerate(paths):
        d_raw, c_raw = docs[path]
        cols = np.frombuffer(d_raw, dtype=np.uint16).astype(np.int64)
        matrix[row, cols] = np.frombuffer(c_raw, dtype=np.uint16)
    present = matrix > 0
    df = present.sum(axis=0)
    idf = (np.log((1.0 + n) / (1.0 + df)) + 1.0).astype(np.float32)
    if n >= MIN_DOCS_FOR_MAX_DF:
        # A term in most docs says nothing about any of them, and its postings would be the longest a turn
        # reads: leave it out of the vectors (scikit-learn's max_df).
        idf[df > MAX_DF * n] = 0.0
    weights = np.where(present, 1.0 + np.log(np.maximum(matrix, 1.0)), 0.0) * idf
    if dims > DOC_TERMS and n:
        # Keep each doc's strongest dimensions only, so a turn's postings stay short.
        cut = np.partition(weights, dims - DOC_TERMS, axis=1)[:, dims - DOC_TERMS][:, None]
        weights = np.where(weights >= cut, weights, 0.0)
    norms = np.linalg.norm(weights, axis=1, keepdims=True)
    unit = np.divide(weights, norms, out=np.zeros_like(weights), where=norms > 0).astype(np.float32)
    labels, centroids = kmeans(unit, min(k, n)) if n else (np.zeros(0, dtype=np.int64), np.zeros((0, dims)))
    postings = {}
    for d in range(dims):
        ids = np.nonzero(unit[:, d])[0].astype(np.int32)
        if len(ids):
            postings[d] = (ids.tobytes(), unit[ids, d].astype(np.float32).tobytes())
    return Model(idf=[float(x) for x in idf], centroids=[[float(x) for x in c] for c in centroids],
                 clusters={p: int(labels[i]) for i, p in enumerate(paths)}, postings=postings,
                 paths=paths)


def kmeans(unit: Any, k: int) -> tuple[Any, Any]:
    """Spherical k-means (cosine) with k-means++ seeding from a fixed seed: the same docs, the same clusters."""
    import numpy as np

    x = np.asarray(unit, dtype=np.float32)
    rng = np.random.default_rng(KMEANS_SEED)
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
    return labels, c


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
