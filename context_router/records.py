"""Frozen records for the stages of a turn, without importing dataclasses.

`dataclasses` pulls in `inspect` (and with it `ast`, `dis`, `re`, `enum`...): about 15 ms, more than the
whole hook turn may spend. `@record` builds the same frozen value class from the class annotations, with no
code generation; type checkers see it as a frozen dataclass (PEP 681).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
else:
    def dataclass_transform(**_: object) -> object:
        return lambda fn: fn

_MISSING = object()


def _init(fields: tuple[str, ...], defaults: dict[str, object]) -> Callable[..., None]:
    def __init__(self: object, *args: object, **kwargs: object) -> None:
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} arguments, got {len(args)}")
        for name, value in zip(fields, args, strict=False):
            object.__setattr__(self, name, value)
        for name in fields[len(args):]:
            value = kwargs.pop(name, defaults.get(name, _MISSING))
            if value is _MISSING:
                raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
            object.__setattr__(self, name, value)
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got unexpected arguments {sorted(kwargs)}")

    return __init__


@dataclass_transform(frozen_default=True)
def record(cls: type[T]) -> type[T]:
    """Make `cls` a frozen value class over its annotated fields (in order, defaults from class attributes)."""
    fields: tuple[str, ...] = ()
    for klass in reversed(cls.__mro__):
        for name in klass.__dict__.get("__annotations__", {}):
            if name not in fields:
                fields += (name,)
    defaults = {name: cls.__dict__[name] for name in fields if name in cls.__dict__}

    def astuple(self: Any) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in fields)

    def __setattr__(self: object, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __eq__(self: Any, other: object) -> bool:
        return type(other) is type(self) and astuple(self) == astuple(other)

    def __hash__(self: Any) -> int:
        return hash(astuple(self))

    def __repr__(self: Any) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in fields)})"

    for name, fn in (("__init__", _init(fields, defaults)), ("__setattr__", __setattr__), ("__eq__", __eq__),
                     ("__hash__", __hash__), ("__repr__", __repr__)):
        setattr(cls, name, fn)
    cls.__record_fields__ = fields  # type: ignore[attr-defined]
    return cls


def replace(obj: T, **changes: Any) -> T:
    """A copy of a record with some fields changed."""
    values = {name: getattr(obj, name) for name in obj.__record_fields__}  # type: ignore[attr-defined]
    values.update(changes)
    return type(obj)(**values)


@record
class FileScore:
    """A doc's attention in a session: shared by the attention stage and the state that keeps it."""

    score: float
    last_hit_turn: int = 0
    hits: int = 0  # keyword hits in the most recent hit turn


def decayed(score: float, rate: float, turns: int) -> float:
    """A score `turns` turns after it was set: multiplied by its rate once a turn (by repeated multiplication,
    so a score read after k turns is the very float k turns of decay made)."""
    for _ in range(turns):
        score *= rate
    return score


DOC_SUFFIXES = (".md", ".mdx", ".markdown", ".qmd", ".Rmd", ".rmd", ".rst")  # markdown, MDX (Docusaurus,
# Nextra, Starlight: markdown with JSX and imports), markdown by its long name (Jekyll's `_posts/`, a
# `README.markdown`), Quarto's and R Markdown's (a Quarto site's pages, an R package's vignettes: markdown with
# code cells), and reStructuredText (a Sphinx site's pages: read as markdown, store/rst.py)


READS = f"ctx reads markdown and reStructuredText files ({', '.join(DOC_SUFFIXES)})"  # told to a folder with no docs


def is_doc_file(name: str) -> bool:
    """Whether a file name is a doc's: a markdown, MDX or reStructuredText file."""
    return name.endswith(DOC_SUFFIXES)


def doc_stem(name: str) -> str:
    """A doc file's or folder's name as it names the doc: without its suffix (`intro.mdx` -> `intro`), without
    the order number a site sorts its pages by (Nuxt Content's `1.getting-started/01.intro.md` ->
    `getting-started`, `intro`) and without the id a Notion export gives every page (`Deploy Process
    9f8e7d6c5b4a39281706f5e4d3c2b1a0.md` -> `Deploy Process`: tried as a new user would, each page's derived
    keywords held its name with the id, a phrase no prompt says)."""
    for suffix in DOC_SUFFIXES:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
            break
    head, _, tail = name.rpartition(" ")
    if head and len(tail) == 32 and all(ch in "0123456789abcdef" for ch in tail):
        name = head
    return unordered(name)


def unordered(name: str) -> str:
    """A name without a leading order number (`01.intro`, `20-core-concepts`, `01_setup` -> `intro`,
    `core-concepts`, `setup`), as Docusaurus and Nuxt Content read it; a number that is the name (`404`), part
    of it (`2fa`), a version (`1.0-notes`) or a date (`2023-01-05-launch`) stays."""
    digits = len(name) - len(name.lstrip("0123456789"))
    if 0 < digits and name[digits:digits + 1] in ("-", ".", "_") and name[digits + 1:digits + 2].isalpha():
        return name[digits + 1:]
    return name


def doc_path(path: str) -> str:
    """A doc path as the index keys it: relative, forward slashes, no leading "./"."""
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


@record
class DocText:
    """What the text index and the semantic model keep of a doc's text (turn/text.py reads it)."""

    terms: tuple[bytes, bytes]  # hashed term counts (semantic.pack_counts)
    entropy: float  # normalised character entropy of the body
    fields: tuple[str, str, str, str]  # the text index's fields: path, title, headings, body
    sections: tuple[tuple[int, tuple[str, str]], ...]  # (part number, (heading path, text)) of each part
    hub: bool  # a page that mostly links to other pages
