"""The drifting-needle corpus: 50 docs about a coding project (one holds SECRET_KEY = 12345) and 50 about
cooking, each with an opaque keyword nobody will say, plus the conversation that drifts between them."""

from __future__ import annotations

import random
from pathlib import Path

PROJECT = {
    "api": "endpoint request response handler route status payload json client timeout retry",
    "database": "database schema migration table index query transaction postgres column replica",
    "deploy": "deploy release pipeline container image kubernetes rollout staging production cluster",
    "testing": "test suite fixture coverage assertion mock regression flaky ci runner",
    "frontend": "component render state props browser bundle stylesheet layout webpack hydration",
}
COOKING = {
    "baking": "flour butter sugar dough oven bake yeast knead loaf crust",
    "soup": "broth simmer stock onion celery carrot ladle pot soup bowl",
    "grill": "grill charcoal smoke marinade steak skewer char sear flame tongs",
    "pasta": "pasta noodle semolina boil sauce basil parmesan garlic olive tomato",
    "dessert": "chocolate cream whisk custard caramel vanilla meringue tart cake frosting",
}
SECRET_DOC = "project/api-03.md"
SECRET_TEXT = ("The service reads its secret key from the environment. For the staging API the secret key is "
               "fixed:\n\n```\nSECRET_KEY = 12345\n```\n\nRotate the secret key after every incident.\n")


def _paragraph(rng: random.Random, words: list[str], n: int) -> str:
    return " ".join(rng.choice(words) for _ in range(n)).capitalize() + "."


def _doc(rng: random.Random, topic: str, sub: str, vocab: dict[str, str], i: int) -> str:
    own = vocab[sub].split()
    mixed = own * 4 + [w for s in vocab.values() for w in s.split()]
    title = f"{sub.capitalize()} note {i}"
    body = [f"# {title}", "", f"> **Role**: {topic} notes on {sub}", f"> **Host**: {topic}-{sub}",
            "> **Hardware**: none", "> **Critical Path**: no", "", "## Notes", ""]
    body += [_paragraph(rng, mixed, 18) for _ in range(6)]
    return "\n\n".join(body[:9]) + "\n\n" + "\n\n".join(body[9:]) + "\n"


def generate(root: Path, semantic: bool = True) -> Path:
    rng = random.Random(11)
    keywords = {}
    for topic, vocab in (("project", PROJECT), ("cooking", COOKING)):
        for j in range(50):
            sub = list(vocab)[j % len(vocab)]
            rel = f"{topic}/{sub}-{j // len(vocab):02}.md"
            text = _doc(rng, topic, sub, vocab, j)
            if rel == SECRET_DOC:
                text += "\n## Secrets\n\n" + SECRET_TEXT
            (root / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "docs" / rel).write_text(text, encoding="utf-8")
            keywords[rel] = [f"zq{topic[0]}{j:02}x"]  # opaque: no prompt ever says it
    lines = ["docs: docs", "auto_keywords: false", "rate_limit: {turns_per_minute: 0}",
             f"semantic: {{enabled: {'true' if semantic else 'false'}}}", "keywords:"]
    lines += [f"  {p}: [{k[0]}]" for p, k in keywords.items()]
    (root / "config.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / "config.yaml"


def prompts(topic: str, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    vocab = PROJECT if topic == "project" else COOKING
    words = [w for s in vocab.values() for w in s.split()]
    out = []
    for _ in range(n):
        picked = rng.sample(words, 5)
        out.append(f"How should we handle the {picked[0]} and {picked[1]} with {picked[2]}, "
                   f"given the {picked[3]} {picked[4]}?")
    return out


SECRET_QUESTION = "What is the secret key?"
