"""A plain section retriever, the baseline every replay figure is read against.

What a user would write instead of ctx: split every doc at its `##` and `###` headings, rank the sections with
BM25 (k1 1.2, b 0.75) against the last three prompts, and print the best sections until the budget is full.
No stemming, no field weights, no memory beyond the query, no keywords.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Sequence

WORD = re.compile(r"\w+")
STOP = frozenset("""a an and are as at be but by can do does for from how i if in into is it its me my no not of on
or so that the their then there these this to was we what when where which who why will with you your""".split())
K1, B = 1.2, 0.75
HISTORY = 3  # the query is the last three prompts


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOP]


def split(body: str) -> list[tuple[str, str]]:
    """(heading, text) of the opening part and of each `##`/`###` section, outside code fences."""
    out: list[tuple[str, str]] = []
    heading, lines, fenced = "", [], False
    for line in body.splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and re.match(r"#{2,3} ", line):
            out.append((heading, "\n".join(lines)))
            heading, lines = line.lstrip("#").strip(), [line]
        else:
            lines.append(line)
    out.append((heading, "\n".join(lines)))
    return [(h, t.strip("\n")) for h, t in out if t.strip()]


class SectionRetriever:
    def __init__(self, docs_root: str):
        self.sections: list[tuple[str, str, str]] = []  # (path, heading, text)
        for folder, dirs, files in os.walk(docs_root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.endswith(".md"):
                    full = os.path.join(folder, name)
                    rel = os.path.relpath(full, docs_root).replace(os.sep, "/")
                    with open(full, encoding="utf-8", errors="replace") as fh:
                        for heading, text in split(fh.read()):
                            self.sections.append((rel, heading, text))
        self.tf = [Counter(words(text)) for _, _, text in self.sections]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / max(1, len(self.len))
        df: Counter[str] = Counter()
        for c in self.tf:
            df.update(c.keys())
        n = len(self.tf)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}

    def turn(self, prompts: Sequence[str], budget: int) -> list[tuple[str, str]]:
        """(path, block) of the best sections for the last prompts, in rank order, inside `budget` chars."""
        query = Counter(w for p in prompts[-HISTORY:] for w in words(p))
        scored = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            for w in query:
                f = tf.get(w)
                if f:
                    s += self.idf[w] * f * (K1 + 1) / (f + K1 * (1 - B + B * self.len[i] / self.avg))
            if s > 0:
                scored.append((-s, i))
        out: list[tuple[str, str]] = []
        used = 0
        for _, i in sorted(scored):
            path, heading, text = self.sections[i]
            block = f"--- {path}{' > ' + heading if heading else ''} ---\n{text}\n\n"
            if used + len(block) <= budget:
                out.append((path, block))
                used += len(block)
        return out


def replay(docs_root: str, conversations: list[dict], budget: int) -> list[dict]:
    """Per labelled turn: answer (an answer line in this turn's output), answer in context (in this or an
    earlier turn's), the chars from gold docs and in all."""
    retriever = SectionRetriever(docs_root)
    out = []
    for conv in conversations:
        prompts: list[str] = []
        sent: list[str] = []
        for turn in conv["turns"]:
            prompts.append(turn["prompt"])
            blocks = retriever.turn(prompts, budget)
            text = "".join(b for _, b in blocks)
            sent.append(text)
            answers = [a.strip() for a in turn.get("answers", [])]
            gold = set(turn["gold"])
            out.append({
                "kind": turn.get("kind", "-"),
                "answer": any(a in text for a in answers) if answers else None,
                "answer_in_context": any(a in t for t in sent for a in answers) if answers else None,
                "gold_chars": sum(len(b) for p, b in blocks if p in gold),
                "shown_chars": len(text),
                "chars": len(text),
            })
    return out
