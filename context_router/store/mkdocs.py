"""What a project's `mkdocs.yml` says about its docs: the folder (`docs_dir`) and the pages' titles (`nav`).

mkdocs titles a page by its nav entry, so many pages of an mkdocs site have no `# Title` line of their own;
the nav is where their titles are. Only the file's `docs_dir` and `nav` are read, never run: the tags that
mkdocs plugins use (`!!python/name:...`, `!ENV`) are read as nothing.
"""

from __future__ import annotations

import os
import stat

from ..records import doc_stem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

NAMES = ("mkdocs.yml", "mkdocs.yaml")
MAX_BYTES = 1_000_000  # a real mkdocs.yml is a few KB; a bigger one is not read
MAX_UP = 4  # folders above the docs to look in (stopping at the repository root)
MAX_NAV_ITEMS = 100_000  # an alias-built nav is a graph; its walk stops here


def find(docs_root: str) -> tuple[str, int, int] | None:
    """The mkdocs.yml in a folder above the docs (up to the repository root): (path, mtime_ns, size)."""
    folder = os.path.dirname(os.path.realpath(docs_root))
    for _ in range(MAX_UP):
        for name in NAMES:
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                return path, st.st_mtime_ns, st.st_size
        if os.path.isdir(os.path.join(folder, ".git")) or os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    return None


def in_folder(folder: str) -> str | None:
    """The mkdocs.yml of this very folder, if it has one."""
    for name in NAMES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def read(path: str) -> dict[str, Any]:
    """The file's top-level mapping, or {} when it cannot be read as one (mkdocs would say why, not ctx)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            return {}
        data = os.read(fd, MAX_BYTES + 1)
    except OSError:
        return {}
    finally:
        os.close(fd)
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[misc, valid-type]
        """A safe loader that reads any tag it does not know as nothing."""

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)
    try:
        loaded = yaml.load(data.decode("utf-8", errors="replace"), Loader=Loader)  # noqa: S506 (safe, see above)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def docs_dir(path: str, data: dict[str, Any]) -> str:
    """The docs folder the file names (mkdocs' default: `docs` beside it)."""
    value = data.get("docs_dir")
    name = value if isinstance(value, str) and value.strip() else "docs"
    return os.path.normpath(os.path.join(os.path.dirname(path), name))


def titler(docs_root: str) -> Callable[[str], str]:
    """doc path -> the title mkdocs gives that page when it has none of its own ('' where no mkdocs.yml
    describes the docs): its nav entry, else its file name. The nav is read on the first call."""
    site: list[dict[str, str] | None] = []

    def title(rel: str) -> str:
        if not site:
            site.append(nav_titles(docs_root))
        nav = site[0]
        if nav is None:
            return ""
        return nav.get(rel) or file_title(rel)

    return title


def file_title(rel: str) -> str:
    """mkdocs' title for a page with none: its file name (its folder's, for an index page) in words."""
    parts = rel.split("/")
    name = doc_stem(parts[-1])
    if name in ("index", "README") and len(parts) > 1:
        name = parts[-2]
    words = name.replace("-", " ").replace("_", " ").strip()
    return words.capitalize() if words.lower() == words else words


def nav_titles(docs_root: str, found: tuple[str, int, int] | None = None) -> dict[str, str] | None:
    """Doc path (relative to docs_root) -> its title in the nav of the mkdocs.yml above the docs, when that
    file's docs_dir holds docs_root; None when no mkdocs.yml describes these docs."""
    found = found if found is not None else find(docs_root)
    if found is None:
        return None
    data = read(found[0])
    rel = os.path.relpath(os.path.realpath(docs_root), os.path.realpath(docs_dir(found[0], data)))
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None  # this file describes other docs
    prefix = "" if rel == os.curdir else rel.replace(os.sep, "/") + "/"
    titles: dict[str, str] = {}
    stack: list[Any] = [data.get("nav")]
    walked = 0
    while stack and walked < MAX_NAV_ITEMS:
        item = stack.pop()
        walked += 1
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            for title, value in item.items():
                if isinstance(value, list):
                    stack.append(value)
                elif isinstance(title, str) and title.strip() and isinstance(value, str):
                    page = _page(value, prefix)
                    if page is not None:
                        titles.setdefault(page, " ".join(title.split()))
    return titles


def _page(value: str, prefix: str) -> str | None:
    """A nav entry's page as a doc path under the docs root, or None (a link, another folder's page)."""
    value = value.strip()
    if "://" in value or value.startswith(("/", "#", "mailto:")) or not value.endswith(".md"):
        return None
    page = os.path.normpath(value).replace(os.sep, "/")
    if not page.startswith(prefix):
        return None
    return page[len(prefix):]
