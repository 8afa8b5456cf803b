"""Generate a corpus of N structured docs (about 4 KB each) with a config.yaml, for the benchmark and tests.

    python bench/generate.py 1000 bench/corpora/1000
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "zo", "qu", "xe", "ba", "du", "fi", "go", "hy"]
KINDS = ["systems", "modules", "integrations"]
FILLER = ("The service keeps its state on local disk and replays the journal after a restart. Operators check "
          "the health endpoint first, then the logs, then the metrics dashboard before paging anyone. ")


def name(i: int) -> str:
    """A unique pronounceable name per doc: distinct keywords with no accidental overlap."""
    out = ""
    n = i + 7 * 16
    while n:
        n, r = divmod(n, 16)
        out += SYLLABLES[r]
    return out


SHARED_KEYWORDS = 50  # keywords each shared by about 4% of the docs (every doc has two of them)


def shared_keyword(j: int) -> str:
    """One of the shared keywords: pronounceable, and never a doc's name (no syllable ends in "ix")."""
    return f"{SYLLABLES[j % 16]}{SYLLABLES[(j // 16 + 5) % 16]}ix"


def shared_of(i: int) -> tuple[str, str]:
    return shared_keyword(i % SHARED_KEYWORDS), shared_keyword((i // SHARED_KEYWORDS * 7 + i + 1) % SHARED_KEYWORDS)


SECTIONS = 4  # a doc's sections: its opening, Topology, Quick Health and its notes


def doc_text(i: int, n: int, rng: random.Random, sections: int = SECTIONS) -> str:
    """A doc of about 4 KB; with more than SECTIONS sections its notes are cut into `## Notes K` sections."""
    me = name(i)
    peers = [name(rng.randrange(n)) for _ in range(3)]
    lines = [
        f"# {me.capitalize()}",
        "",
        f"> **Role**: {me} handles part of the pipeline next to {peers[0]}",
        f"> **Host**: {me}.lab.lan (10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256})",
        f"> **Hardware**: {rng.choice(['8', '16', '32', '64'])} cores, {rng.choice(['16', '64', '128'])} GB",
        f"> **Critical Path**: {rng.choice(['yes', 'no'])}",
        "",
        "## Topology",
        "",
        "| Service | Port | Peer |",
        "|---|---|---|",
    ]
    lines += [f"| svc-{k} | {8000 + k} | {p} |" for k, p in enumerate(peers)]
    lines += ["", "## Quick Health", "", "```bash", f"curl -s {me}:8000/healthz", "```", "",
              "<!-- WARM CONTEXT ENDS ABOVE THIS LINE -->", ""]
    body = "\n".join(lines) + "\n"
    notes = ""
    while len(body) + len("## Notes\n\n") + len(notes) < 4000:
        notes += FILLER
    if sections <= SECTIONS:
        return body + "## Notes\n\n" + notes + "\n"
    parts = sections - SECTIONS + 1
    sentences = notes.split(". ")
    size = -(-len(sentences) // parts)
    return body + "".join(f"## Notes {k + 1}\n\n" + ". ".join(sentences[k * size:(k + 1) * size]).strip() + "\n\n"
                          for k in range(parts))


def path_of(i: int) -> str:
    kind = KINDS[i % len(KINDS)]
    return f"{kind}/g{i // 500:03d}/{name(i)}.md"


def generate(n: int, out: Path, seed: int = 7, sections: int = SECTIONS) -> Path:
    rng = random.Random(seed)
    docs = out / "docs"
    for i in range(n):
        target = docs / path_of(i)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(doc_text(i, n, rng, sections), encoding="utf-8")
    lines = ["docs: docs", "rate_limit: {turns_per_minute: 0}", "pinned: [" + path_of(0) + "]", "keywords:"]
    lines += [f"  {path_of(i)}: [{name(i)} service, {name(i)}-ctl, {', '.join(shared_of(i))}]" for i in range(n)]
    lines.append("related:")
    lines += [f"  {path_of(i)}: [{path_of((i + 1) % n)}, {path_of((i * 7 + 3) % n)}]" for i in range(0, n, 3)]
    (out / "config.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out / "config.yaml"


def prompt_for(n: int, turn: int) -> str:
    """A realistic prompt naming two docs of an n-doc corpus."""
    a, b = (turn * 37) % n, (turn * 101 + 5) % n
    return f"The {name(a)} service is slow again; is {name(b)} involved? Check the logs and the metrics."


def session_prompt(n: int, turn: int) -> str:
    """A prompt of a varied session: it names one doc and two of the shared keywords, a different doc and pair
    every turn."""
    a = (turn * 7919 + 13) % n
    k1, k2 = shared_keyword(turn * 3 % SHARED_KEYWORDS), shared_keyword((turn * 11 + 7) % SHARED_KEYWORDS)
    return f"Is the {name(a)} service affected by the {k1} change or by {k2}? Check its logs first."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("n", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--sections", type=int, default=SECTIONS, help="sections a doc (its notes cut up)")
    args = parser.parse_args()
    print(generate(args.n, args.out, sections=args.sections))


if __name__ == "__main__":
    main()
