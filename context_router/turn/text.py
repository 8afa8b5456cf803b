"""What the text index and the semantic model keep of a doc: its term counts, entropy, fields, section parts
and whether it is a hub page. Pure: the store calls it through the function the workspace hands it."""

from __future__ import annotations

from ..records import DocText
from .lexical import fields, readable, section_fields
from .sections import is_hub
from .semantic import entropy, hashed_counts, pack_counts


def analyse(rel: str, title: str, body: str, dims: int) -> DocText:
    # The doc's vector, like its text in the index, holds what a reader reads: its links' text, not their targets.
    return DocText(pack_counts(hashed_counts(readable(body), dims)), entropy(body), fields(rel, title, body),
                   section_fields(title, body), is_hub(rel, body))
