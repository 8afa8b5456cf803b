"""The bench's generated corpora: the sections a doc has are what the bench says it measures."""

from __future__ import annotations

import sys
from pathlib import Path

from context_router.turn import sections

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import generate  # noqa: E402


def test_a_generated_doc_has_the_sections_asked_for_and_about_the_same_size(tmp_path: Path):
    """`bench/run.py --sections 10` times 10,000 docs of 100,000 sections (the default: 40,000)."""
    for count in (generate.SECTIONS, 10):
        generate.generate(6, tmp_path / str(count), sections=count)
        docs = sorted((tmp_path / str(count) / "docs").rglob("*.md"))
        assert len(docs) == 6
        for doc in docs:
            text = doc.read_text(encoding="utf-8")
            assert len(sections.titles(text)) + 1 == count  # the titled sections and the opening
            assert 3900 <= len(text) <= 4400
