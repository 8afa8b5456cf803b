"""Scan the docs folder into Doc records.

A scan lists every `*.md` under the root with its (mtime_ns, size); only files whose pair changed since the
cached index are read again. Nothing outside the root is ever opened: symlinks that resolve outside it are
skipped, and so are FIFOs, sockets, devices and binary files.
"""

from __future__ import annotations

import os
import stat
import time

from ..errors import DocsError
from ..fences import closing_fence, is_fence
from ..markup import leaves_out
from ..records import doc_path, is_doc_file, record
from . import includes, rst

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping
    from typing import Any

    from ..records import DocText

WARM_MARKER = "<!-- WARM CONTEXT ENDS ABOVE THIS LINE -->"
IGNORE_FILES = (".gitignore", ".ctxignore")
# Folders of installed dependencies: their READMEs and changelogs are other projects' docs, never these, and a
# project without a .gitignore (or docs at its root) still has them.
DEPENDENCY_FOLDERS = frozenset({"node_modules", "site-packages", "bower_components", "__pycache__"})
MAX_IGNORE_BYTES = 1_000_000
MAX_IGNORE_LINES = 10_000
MAX_PATTERN_CHARS = 512
MAX_PATTERN_GLOBSTARS = 32  # each `**` is a level of recursion in the matcher (globs.py)
SNIFF_BYTES = 8192

if TYPE_CHECKING:
    Stat = tuple[int, int]  # (mtime_ns, size)
    Analyse = Callable[[str, str, str], DocText]  # (path, title, body) -> what the evidence stages keep


@record
class Doc:
    path: str  # relative to the docs root, with forward slashes
    mtime_ns: int
    size: int
    title: str
    header: str
    truncated: bool  # the header is not the whole body
    keywords: tuple[str, ...] = ()  # from front matter
    related: tuple[str, ...] = ()
    pinned: str | None = None
    decay: float | None = None
    claims: tuple[str, ...] = ()  # globs of the files the doc is about: front matter `paths` / `globs`
    oversize: bool = False  # over max_doc_bytes: indexed and shown by its header only
    hub: bool = False  # a page that mostly links to other pages
    terms: tuple[bytes, bytes] | None = None  # hashed term counts for the semantic layer (semantic.pack_counts)
    entropy: float = 0.0  # normalised character entropy of the body (semantic.entropy)
    text: tuple[str, str, str, str] | None = None  # the text index's fields (lexical.fields); not stored here
    sections: tuple[tuple[int, tuple[str, str]], ...] = ()  # (number, (heading path, text)) of the sections that
    # have words (lexical.section_fields); not stored here
    warnings: tuple[str, ...] = ()


@record
class Scan:
    files: dict[str, Stat]
    warnings: tuple[str, ...]
    ignore: IgnoreAnswers | None = None  # the ignore answers to remember, when they changed
    folders: dict[str, tuple[int, tuple[str, ...], bool]] | None = None  # rel folder -> (mtime_ns, subfolders,
    # holds links): what a quick scan may trust while the folder's mtime stands
    listed: tuple[str, ...] | None = None  # a quick scan: the folders it listed ("" the top, "a/b/" others);
    # `files` holds their docs and the sampled ones only. None: a full scan, `files` holds every doc


@record
class Quick:
    """What a quick scan trusts: an earlier scan's folders. A folder whose mtime has not moved holds the same
    names (adds, removes and renames move it), so it is not listed again and its docs keep their indexed
    (mtime, size); `sample` docs are statted afresh to catch edits in place."""

    folders: dict[str, tuple[int, tuple[str, ...], bool]]
    sample: tuple[str, ...]


@record
class IgnoreAnswers:
    """What the ignore files said about each path seen so far, valid while the files are unchanged."""

    fingerprint: tuple[tuple[str, int, int], ...]  # (name, mtime_ns, size) of each ignore file
    answers: dict[str, bool]  # relative path ("dir/" for a folder) -> ignored


def user_doc_path(root: str, path: str, cwd: str | None = None) -> str:
    """A doc path as a user types it: relative to the docs folder, or the path the shell completes from the
    working folder (`docs/modules/vision.md`), which names the same doc when it lies inside the docs folder."""
    rel = doc_path(path)
    if not os.path.isabs(rel) and os.path.isfile(os.path.join(root, rel)):  # (join would take an absolute one)
        return rel
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(cwd or os.getcwd(), path))
    if real.startswith(real_root + os.sep) and os.path.isfile(real):
        return os.path.relpath(real, real_root).replace(os.sep, "/")
    return rel


# Claude Code loads these itself from a project's root or its `.claude/` folder: routing them again would
# print the same instructions twice.
HOST_LOADED = ("CLAUDE.md", "CLAUDE.local.md")


def claude_code_project(root: str) -> bool:
    """Whether the docs folder is a Claude Code project's `.claude/` folder, or a project root that has one."""
    return os.path.basename(os.path.realpath(root)) == ".claude" or os.path.isdir(os.path.join(root, ".claude"))


def check_root(root: str) -> None:
    if not os.path.exists(root):
        raise DocsError(f"docs folder not found: {root}")
    if not os.path.isdir(root):
        raise DocsError(f"docs path is not a folder: {root}")


def _ignore_fingerprint(root: str) -> tuple[tuple[str, int, int], ...]:
    out = []
    for name in IGNORE_FILES:
        try:
            st = os.stat(os.path.join(root, name))
        except OSError:
            continue
        out.append((name, st.st_mtime_ns, st.st_size))
    return tuple(out)


class _Ignore:
    """gitignore matching (globs.py) that remembers its answers: a turn compiles the ignore files only for
    paths it has not seen since they last changed."""

    def __init__(self, root: str, known: IgnoreAnswers | None):
        self.root = root
        self.fingerprint = _ignore_fingerprint(root)
        fresh = (tuple(map(tuple, known.fingerprint)) if known is not None else ()) == self.fingerprint
        self.answers: dict[str, bool] = dict(known.answers) if fresh and known is not None else {}
        self.changed = not fresh
        self.match: Callable[[str], bool] | None = None
        self.warnings: list[str] = []

    def __call__(self, relpath: str) -> bool:
        answer = self.answers.get(relpath)
        if answer is None:
            if self.match is None:
                self.match = self._compile()
            answer = self.answers[relpath] = bool(self.match(relpath))
            self.changed = True
        return answer

    def _compile(self) -> Callable[[str], bool]:
        lines: list[str] = []
        for name in IGNORE_FILES:
            if not os.path.lexists(os.path.join(self.root, name)):
                continue
            # Read like a doc (a regular file inside the root, never blocking) and bounded: an ignore file
            # that is a FIFO, a link to /dev/zero or enormous must not hold the turn.
            data = read_bytes(self.root, name, limit=MAX_IGNORE_BYTES + 1)
            if data is None or len(data) > MAX_IGNORE_BYTES:
                self.warnings.append(f"ignored {name}: not a regular file inside the docs folder, or over "
                                     f"{MAX_IGNORE_BYTES:,} bytes")
                continue
            for line in data.decode("utf-8", errors="replace").splitlines()[:MAX_IGNORE_LINES]:
                # The matcher's time grows with a pattern's length times the path's, and its depth with the
                # `**`: a pattern beyond either bound is left out (and said).
                if len(line) > MAX_PATTERN_CHARS or line.count("**") > MAX_PATTERN_GLOBSTARS:
                    self.warnings.append(f"ignored a pattern in {name}: too long or too many '**' to match safely")
                    continue
                lines.append(line)
        from .globs import Spec

        return Spec(lines).match_file


class ScanTimeout(Exception):
    """The walk ran past its deadline: the folder is too big to list inside a turn."""


def scan(root: str, known_ignores: IgnoreAnswers | None = None, quick: Quick | None = None,
         deadline: float | None = None) -> Scan:
    """Every indexable markdown file under root: relative path -> (mtime_ns, size); for a quick scan, those of
    the folders it listed again and the sampled ones (Scan.listed).

    known_ignores: the answers of an earlier scan (Scan.ignore), to skip matching while nothing changed.
    quick: trust the folders that have not changed since that scan (see Quick); ignored when the ignore
    files changed. deadline (time.monotonic()): raise ScanTimeout once the walk runs past it.
    """
    check_root(root)
    real_root = os.path.realpath(root)
    matcher = _Ignore(root, known_ignores)
    ignored = matcher if matcher.fingerprint else None
    if quick is not None and matcher.changed:
        quick = None  # other ignore rules: every folder is listed again
    files: dict[str, Stat] = {}
    warnings: list[str] = []
    seen_dirs = {real_root}
    folders: dict[str, tuple[int, tuple[str, ...], bool]] = {}
    listed: list[str] = []
    now_ns = time.time_ns()

    def inside(real: str) -> bool:
        return real == real_root or real.startswith(real_root + os.sep)

    def reached(real: str, is_dir: bool) -> bool:
        """Whether the walk lists this path inside the root under its own name (not hidden, not ignored)."""
        rel = os.path.relpath(real, real_root)
        if rel == ".":
            return True
        if any(part.startswith(".") or part in DEPENDENCY_FOLDERS for part in rel.split(os.sep)):
            return False
        return ignored is None or not ignored(rel.replace(os.sep, "/") + ("/" if is_dir else ""))

    def follow(entry: os.DirEntry[str], relpath: str) -> bool:
        """Take what a link inside the root points to; whether it may change unreported (a link out of the
        root is never followed, so where it points changes nothing a turn reads: `docs/README.md ->
        ../README.md` leaves an observed folder provably unchanged)."""
        real = os.path.realpath(entry.path)
        if not inside(real):
            return False  # never follow a link out of the root
        try:
            st = os.stat(real)
        except OSError:
            return True  # dangling: its target may appear
        if reached(real, stat.S_ISDIR(st.st_mode)):
            return True  # an alias of a doc or folder listed under its own name: one doc, not two (pages.en -> pages)
        if stat.S_ISDIR(st.st_mode) and real not in seen_dirs and (ignored is None or not ignored(relpath + "/")):
            seen_dirs.add(real)
            walk(entry.path, relpath + "/")
        elif stat.S_ISREG(st.st_mode) and is_doc_file(relpath) and (ignored is None or not ignored(relpath)):
            files[relpath] = (st.st_mtime_ns, st.st_size)
        return True

    def walk(directory: str, rel: str) -> None:
        # Kinds come from the directory listing (d_type), so only markdown files cost a stat call: this loop
        # runs on every turn that is not served by `ctx watch`.
        if rel.count("/") >= MAX_DEPTH:
            warnings.append(f"skipped {rel}: folders nested deeper than {MAX_DEPTH}")
            return
        if deadline is not None and time.monotonic() > deadline:
            raise ScanTimeout(rel)
        try:
            mtime = os.stat(directory).st_mtime_ns
        except OSError as exc:
            warnings.append(f"cannot read folder {rel or '.'}: {exc.strerror}")
            return
        known = quick.folders.get(rel) if quick is not None else None
        # A folder changed within the last seconds may change again within its mtime's granularity ("racy
        # git"): only an older mtime is proof that the listing is the same.
        if known is not None and known[0] == mtime and not known[2] and now_ns - mtime > RACY_NS:
            folders[rel] = known
            for sub in known[1]:
                walk(os.path.join(directory, sub), rel + sub + "/")
            return
        subfolders: list[str] = []
        links = False
        listed.append(rel)
        try:
            it = os.scandir(directory)
        except OSError as exc:
            warnings.append(f"cannot read folder {rel or '.'}: {exc.strerror}")
            return
        with it:
            for entry in it:
                name = entry.name
                if name[0] == ".":
                    continue
                if not name.isascii() and not _is_utf8(name):
                    warnings.append(f"skipped a name in {rel or '.'} that is not UTF-8: {name!r}")
                    continue
                if entry.is_file(follow_symlinks=False):  # a regular file, not a link: the common case first
                    if not is_doc_file(name):
                        continue
                    relpath = rel + name
                    if ignored is not None and ignored(relpath):
                        continue
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    files[relpath] = (st.st_mtime_ns, st.st_size)
                elif entry.is_dir(follow_symlinks=False):
                    relpath = rel + name + "/"
                    if name not in DEPENDENCY_FOLDERS and (ignored is None or not ignored(relpath)):
                        subfolders.append(name)
                        walk(entry.path, relpath)
                elif entry.is_symlink():  # where a link points can change without the folder's mtime moving
                    links = follow(entry, rel + name) or links
        folders[rel] = (mtime, tuple(subfolders), links)

    walk(root, "")
    if quick is not None:
        fresh = set(listed)
        for path in quick.sample:
            if path[:path.rfind("/") + 1] not in fresh and path[:path.rfind("/") + 1] in folders:
                try:
                    st = os.stat(os.path.join(root, path), follow_symlinks=False)
                except OSError:
                    continue  # gone: its folder's mtime moved, or the next full scan will see it
                files[path] = (st.st_mtime_ns, st.st_size)
    warnings += matcher.warnings
    if claude_code_project(root):
        for name in HOST_LOADED:
            files.pop(name, None)
    remember = IgnoreAnswers(matcher.fingerprint, matcher.answers) if matcher.changed else None
    return Scan(files, tuple(warnings), remember, folders, tuple(listed) if quick is not None else None)


RACY_NS = 2_000_000_000  # a folder's listing is trusted only once its mtime is this old
MAX_DEPTH = 64  # folders deeper than this are not walked: no docs tree is, and recursion has a limit


def _is_utf8(name: str) -> bool:
    """Whether a file name decoded from the file system is real text (not bytes smuggled as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_bytes(root: str, rel: str, limit: int | None = None) -> bytes | None:
    """The file's bytes, or None when it is not a regular file that provably lies inside the root.

    Resolved first, so a symlink pointing outside the root is refused; opened with O_NOFOLLOW and
    non-blocking, so a symlink or FIFO swapped in after the check is refused and cannot hang the turn; the
    opened file's own path is checked again (where the system tells it), so a folder swapped for a link
    between the check and the open is refused too. A file with more than one hard link is refused: its other
    names may lie outside the root, and no path check can tell.
    """
    full = os.path.join(root, rel)
    real_root = os.path.realpath(root)
    real = os.path.realpath(full)
    if not real.startswith(real_root + os.sep):
        return None
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            return None
        opened = _opened_path(fd)
        if opened is not None and not opened.startswith(real_root + os.sep):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit) if limit is not None else fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def _opened_path(fd: int) -> str | None:
    """The real path of an open file, where the system can tell (Linux's /proc, macOS's F_GETPATH)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
    try:
        import fcntl

        raw = fcntl.fcntl(fd, fcntl.F_GETPATH, b"\0" * 1024)  # type: ignore[attr-defined]  # macOS only
        return os.fsdecode(raw.split(b"\0", 1)[0])
    except (AttributeError, OSError, ValueError):
        return None


def read_text(root: str, rel: str, limit: int | None = None) -> str | None:
    """The file's text, or None when it is not a readable regular text file inside the root (read_bytes)."""
    data = read_bytes(root, rel, limit)
    if data is None:
        return None
    if b"\0" in data[:SNIFF_BYTES]:
        return None
    return data.decode("utf-8", errors="replace")


def read_doc(root: str, rel: str, limit: int | None = None) -> str | None:
    """A doc's text as its site builds it: read_text, with the files its include lines name in their place
    (store/includes.py)."""
    return read_doc_alone(root, rel, limit)[0]


def read_doc_alone(root: str, rel: str, limit: int | None = None) -> tuple[str | None, bool]:
    """read_doc, and whether the text stands alone: it names no other file, so its own file says whether it
    changed (Recent may keep what was made of it)."""
    text = read_text(root, rel, limit)
    if text is None:
        return None, False
    if not includes.has_includes(text):
        return text, True
    return includes.expand(text, root, rel, read_bytes), False


now_ns = time.time_ns  # the clock identity() reads (a test sets it)


def identity(root: str, rel: str) -> tuple[int, ...] | None:
    """The file at `rel` as the system knows it now (device, inode, size, modified and changed times): the
    same identity, the same bytes, as the index itself assumes of a doc's size and mtime. None: not a
    regular file with one name, or one changed so lately (RACY_NS) that a second write within the clock's
    tick would keep its times."""
    try:
        st = os.stat(os.path.join(root, rel))
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        return None
    if now_ns() - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class Recent:
    """What a long-lived process (the hook server, `ctx mcp`) made of the docs it read last, kept
    by the file's identity when read: the docs a conversation is on come back turn after turn, and a turn read
    each of them again (at 1,000 docs, reading, cleaning and heading the ~11 docs a turn weighs was half of a
    served turn's own work). At most `max_chars` of texts are kept, the least recently used going first."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.chars = 0
        self._items: dict[Any, tuple[tuple[int, ...], Any, int]] = {}

    def get(self, key: Any, ident: tuple[int, ...] | None) -> Any:
        """What was kept for `key` while its file had this identity, else None."""
        item = self._items.get(key)
        if item is None or ident is None or item[0] != ident:
            return None
        self._items[key] = self._items.pop(key)  # the most recently used go last
        return item[1]

    def put(self, key: Any, ident: tuple[int, ...] | None, value: Any, chars: int) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.chars -= old[2]
        if ident is None or chars > self.max_chars:
            return
        while self._items and self.chars + chars > self.max_chars:
            self.chars -= self._items.pop(next(iter(self._items)))[2]
        self._items[key] = (ident, value, chars)
        self.chars += chars


def _front_matter_block(text: str) -> tuple[str | None, str]:
    """(the front matter block or None, the body). A front matter block is a leading block between `---`
    lines (YAML), or between `+++` lines (TOML, as Hugo and Zola write it)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if text[:1] in ("\n", "\r") and text.lstrip()[:3] == "+++":
        text = text.lstrip()  # Zola reads TOML front matter after blank lines too
    fence = text[:3]
    if fence not in ("---", "+++") or text[3:4] not in ("\n", "\r"):
        return None, text
    ends = ("---", "...") if fence == "---" else ("+++",)
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ends:
            if fence == "---" and not _opens_mapping(lines[1:i]):
                return None, text  # a rule above a README's banner (`---`, `<p align="center">`, `---`) is text
            return "".join(lines[1:i]), "".join(lines[i + 1:])
    return None, text


def _opens_mapping(lines: list[str]) -> bool:
    """Whether a block between `---` lines reads as YAML front matter: its first line that is not blank or a
    comment is a `key:` (or a flow mapping), as every site generator's front matter is; else it is the text
    between two rules."""
    for line in lines:
        bare = line.strip()
        if not bare or bare.startswith("#"):
            continue
        if bare.startswith("{"):
            return True
        colon = bare.find(":")
        key = bare[:colon].strip().strip("'\"")
        return colon > 0 and bool(key) and all(c.isalnum() or c in "_-. $@" for c in key)
    return True  # an empty block: no front matter, nothing lost


MAX_FRONT_MATTER_DEPTH = 100


def _nesting(block: str) -> int:
    """An upper bound on how deep a YAML block nests, read without YAML: the flow brackets open at once, or the
    indentation levels plus the `- ` items that open on one line, whichever is more."""
    flow = flow_max = 0
    for ch in block:
        if ch in "[{":
            flow += 1
            flow_max = max(flow_max, flow)
        elif ch in "]}" and flow:
            flow -= 1
    indents: list[int] = []
    block_max = 0
    for line in block.splitlines():
        rest = line.lstrip(" ")
        if not rest or rest.startswith("#"):
            continue
        indent = len(line) - len(rest)
        while indents and indents[-1] >= indent:
            indents.pop()
        indents.append(indent)
        dashes = 0
        while rest.startswith("- ") or rest == "-":
            dashes += 1
            rest = rest[2:].lstrip(" ")
        block_max = max(block_max, len(indents) + dashes)
    return max(flow_max, block_max)


def split_front_matter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(front matter, body, warning). A doc whose front matter cannot be read is indexed all the same, without
    it: the warning says so, so a user does not go looking for a doc that went missing."""
    meta, body, warning = _read_front_matter(text)
    return meta, body, f"{warning} (the doc is indexed without it)" if warning else None


def _read_front_matter(text: str) -> tuple[dict[str, Any], str, str | None]:
    block, body = _front_matter_block(text)
    if block is None:
        return {}, body, None
    if text.lstrip("\ufeff \t\r\n").startswith("+++"):
        return _toml_front_matter(block, body)
    if _nesting(block) > MAX_FRONT_MATTER_DEPTH:
        # PyYAML's pure-Python parser spends about a second failing on a few thousand levels: four such docs
        # took a whole turn's indexing time. No front matter of ours nests a tenth as deep.
        return {}, body, f"invalid front matter: nested over {MAX_FRONT_MATTER_DEPTH} levels deep"
    import yaml  # only for docs that changed and carry front matter

    try:
        # libyaml's safe loader where PyYAML has it (as for config.yaml): ten times faster than the pure-Python one.
        data = yaml.load(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        plain = _plain_keys(block)
        if plain:
            return plain, body, None
        return {}, body, f"invalid front matter: {str(exc).splitlines()[0]}"
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        # PyYAML raises these past YAMLError (an impossible date, a huge int, deep nesting): one poison doc
        # is indexed without its front matter and never takes the others down.
        return {}, body, f"invalid front matter: {type(exc).__name__}: {str(exc)[:120]}"
    if data is None:
        return {}, body, None
    if not isinstance(data, dict):
        return {}, body, "front matter is not a mapping"
    return data, body, None


def _plain_keys(block: str) -> dict[str, Any] | None:
    """Front matter that YAML rejects read as Claude Code reads an agent's or a command's: each `key: value` line
    at the margin a key, its value as YAML reads it or else as its plain text (`description: ... Context: the
    user asks ...`, an unquoted colon YAML takes for a mapping), the lines under it part of its value. None
    when a value is broken YAML of its own (an unclosed `[`, a bad escape in quotes): the warning stands."""
    import yaml

    out: dict[str, Any] = {}
    key = None
    for line in block.splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        name, colon, value = line.partition(":")
        if line[:1].isspace() or not colon or not name or not all(c.isalnum() or c in "_-" for c in name):
            if key is None or text.startswith("- "):
                return None
            out[key] = f"{out[key]} {text}".strip() if isinstance(out[key], str) else out[key]
            continue
        key, value = name, value.strip()
        try:
            read = yaml.load(value, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if value else ""
            out[key] = value if isinstance(read, dict) else read  # `title: a: b` is the text "a: b"
        except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError):
            # `@` and a backtick are reserved in YAML and mean nothing to it: a value that starts with one is its
            # text (`title: @sveltejs/kit/hooks`, as the site reads it); the other marks are YAML's own syntax.
            if value[:1] in "[{|>&*!\"'%":
                return None
            out[key] = value
    return out or None


def toml() -> Any:
    """The TOML reader: the standard library's tomllib, or on Python 3.10 its backport tomli (a dependency
    there); None only in an install without it."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            return None
    return tomllib


def _toml_front_matter(block: str, body: str) -> tuple[dict[str, Any], str, str | None]:
    tomllib = toml()
    if tomllib is None:
        return {}, body, "TOML front matter not read: this Python has no TOML reader; pip install tomli"
    try:
        return tomllib.loads(block), body, None
    except tomllib.TOMLDecodeError as exc:
        return {}, body, f"invalid front matter: {str(exc).splitlines()[0]}"
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        return {}, body, f"invalid front matter: {type(exc).__name__}: {str(exc)[:120]}"


def _str_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    return tuple(str(v).strip() for v in value if isinstance(v, (str, int, float)) and str(v).strip())


MAX_CLAIMS = 64  # globs kept per doc
MAX_GLOB_CHARS = 300


def claimed_globs(meta: dict[str, Any]) -> tuple[str, ...]:
    """The globs a doc's front matter claims: Claude Code rules' `paths` (a list, or one string) and Cursor
    rules' `globs` (a list, or one comma-separated string)."""
    out: list[str] = []
    for key in ("paths", "globs"):
        value = meta.get(key)
        items = value.split(",") if isinstance(value, str) else _str_list(value)
        out += [g.strip() for g in items if g.strip() and len(g.strip()) <= MAX_GLOB_CHARS]
    return tuple(dict.fromkeys(out))[:MAX_CLAIMS]


def header_of(body: str, lines: int) -> tuple[str, bool]:
    """The WARM header: the first `lines` lines, or up to the marker if it comes earlier; a logo's and badges'
    markup (markup.py) and the blank lines it leaves are not among them."""
    all_lines = body.splitlines()
    out: list[str] = []
    fence = ""  # the line that opened the code block the lines are in
    cut = len(all_lines)
    for i, line in enumerate(all_lines):
        if len(out) >= lines or line.strip() == WARM_MARKER:
            cut = i
            break
        if is_fence(line):
            fence = "" if fence else line
        elif not fence and leaves_out(line, out[-1] if out else None):
            continue
        out.append(line)
    truncated = any(line.strip() and line.strip() != WARM_MARKER for line in all_lines[cut:])
    if fence:
        # Cut inside a code block: closed where it was cut, within the lines, or the truncation line and every
        # block after it would read as code (tried as a new user would on an orchestrator's docs: a header cut
        # in a ```shell block). A block that would be empty is left out.
        if len(out) >= lines and out[-1] != fence:
            out.pop()
        if out[-1] == fence:
            out.pop()
        else:
            out.append(closing_fence(fence))
    return "\n".join(out).rstrip(), truncated


def body_of(text: str, rel: str) -> str:
    """The text of the doc at `rel` without its front matter (not parsed: printing a doc needs no YAML, but for a
    home page that holds its text there, home_body), as a reader sees it (readable)."""
    block, body = _front_matter_block(text)
    body = readable(body, rel)
    if block is not None and ("hero:" in block or "features:" in block or ("description:" in block and no_text(body))):
        return home_body(_read_front_matter(text)[0], body)
    return body


def home_body(meta: Mapping[str, Any], body: str) -> str:
    """A site's home page as its reader sees it, when its front matter holds text (VitePress' `layout: home`,
    Rspress' `pageType: home`, Starlight's `template: splash`: a `hero`, `features`): the hero's name, what it
    says the project is and its tagline, before the body; a page whose body says nothing (no_text), also its
    features; a page with neither whose body says nothing, its front matter's `description` (a Hugo site's home
    page: a title and a description). Tried as a new user would on a state library's and a site generator's docs,
    "what does this project do?" showed nothing (the page's body is empty), and a docs theme's showed its cards,
    not what it is."""
    found = meta.get("hero")
    hero: dict[str, Any] = found if isinstance(found, dict) else {}
    name = next((hero[k] for k in ("name", "title") if isinstance(hero.get(k), str)), None)
    empty = no_text(body)
    if empty and name is None and isinstance(meta.get("title"), str):
        name = meta["title"]
    lines = [f"{name.strip()}\n"] if isinstance(name, str) and name.strip() else []
    lines += [f"{hero[k].strip()}\n" for k in ("text", "tagline") if isinstance(hero.get(k), str)]
    if empty and not hero and isinstance(meta.get("description"), str) and meta["description"].strip():
        lines.append(f"{meta['description'].strip()}\n")
    if not empty:
        return "\n".join(lines) + "\n" + body if lines else body
    if lines and isinstance(name, str):
        lines[0] = "# " + lines[0]
    features = [f for f in meta.get("features") or () if isinstance(f, dict) and isinstance(f.get("title"), str)]
    if features:
        lines += ["## Features", ""]
        lines += [f"- **{f['title'].strip()}**" + (f": {f['details'].strip()}" if isinstance(f.get("details"), str)
                                                    else "") for f in features]
    return "\n".join(lines).strip() + "\n" if lines else body


def no_text(body: str) -> bool:
    """Whether a page's body says nothing: blank, or tags alone (VitePress' `<Home />`), or lines a reader never
    sees: link reference definitions, markdown's comments among them (`[//]: # 'ReactNative'`). String work: a
    hook turn imports no re."""
    if "]:" in body:
        body = "\n".join(line for line in body.split("\n")
                         if not (line.lstrip().startswith("[") and "]:" in line))
    at = 0
    while (start := body.find("<", at)) >= 0:
        if body[at:start].strip():
            return False
        end = body.find(">", start)
        if end < 0:
            return False
        at = end + 1
    return not body[at:].strip()


def readable(body: str, rel: str) -> str:
    """A doc's text as its reader sees it: without HTML comments and a leading `<head>` block, and an MDX
    doc's without its imports and exports. A `.md` doc with an import at the margin is MDX too: Docusaurus
    reads `.md` pages as MDX, and a page written for it opens with `import Tabs from '@theme/Tabs';`, or
    imports a partial where it shows it (`import ScriptShell from './_scriptShell.mdx'`). In plain markdown
    no line of text is an ES module import; a paragraph that starts with "import " and no `from '` stays. A
    reStructuredText page reads as markdown (rst.py)."""
    if rel.endswith(rst.SUFFIX):
        body = rst.as_markdown(body)
    body = without_shortcodes(without_toc(without_scripts(without_head(setext_as_atx(without_comments(body),
                                                                                    title_only=True)))))
    body = raised_headings(lowered_headings(unindented_headings(without_link_definitions(body))))
    body = without_highlight_comments(body)
    return without_mdx_comments(without_esm(body)) if rel.endswith(".mdx") or _imports(body) else body


def setext_as_atx(body: str, title_only: bool = False) -> str:
    """The text with its underlined headings (`Title` over `=====`, `What` over `----`) written as `# Title` and
    `## What`, outside code blocks: the same headings, as its reader sees them. Tried as a new user would on a
    workflow engine's monorepo: READMEs headed so had no title, and `ctx show README.md How` found no section.
    Only a one-line paragraph is taken for a heading; a `---` under a blank line stays a rule. title_only: the
    page's first line only, its title (what ctx indexes and prints: split into sections so, a key-value
    store's pages and a tracing backend's changelog lost four answers in context on the dev set; `ctx show`
    reads them all). Plain string work."""
    if "\n==" not in body and "\n--" not in body:
        return body
    if title_only:
        start = len(body) - len(body.lstrip("\n"))
        first, _, rest = body[start:].partition("\n")
        under, _, after = rest.partition("\n")
        if not (_paragraph(first) and _setext(under) and under.strip()[0] == "="):
            return body
        return body[:start] + "# " + first.strip() + ("\n" + after if after or rest.endswith("\n") else "")
    lines = body.split("\n")
    out: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        now = _fence(fence, line)
        if now is not None:
            fence = now
        elif (not fence and i + 1 < len(lines) and (not out or not out[-1].strip()) and _setext(lines[i + 1])
              and _paragraph(line)):
            out.append(("# " if lines[i + 1].strip()[0] == "=" else "## ") + line.strip())
            i += 2
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _setext(line: str) -> bool:
    """Whether a line underlines the one above as a heading: `==` or `--` and more of the same, indented at
    most three spaces."""
    bare = line.strip()
    return len(bare) >= 2 and len(line) - len(line.lstrip(" ")) <= 3 and bare.strip(bare[0]) == "" and bare[0] in "=-"


def _paragraph(line: str) -> bool:
    """Whether a line can be a heading's text: text at the margin, not a heading, quote, list item, table row
    or tag already."""
    bare = line.strip()
    if not bare or len(line) - len(line.lstrip(" ")) > 3 or bare[0] in "#>|<" or bare[:2] in ("- ", "* ", "+ "):
        return False
    number, dot, _ = bare.partition(". ")
    return not (dot and number.isdigit())


def lowered_headings(body: str) -> str:
    """A page with two or more `# ` headings and no `## ` before the second, its sections (its title in its front
    matter, or none), with every heading one level lower: its `# ` headings `##` sections, its `##` ones `###`.
    Tried as a new user would on a policy controller's docs: `ctx show mutation-background "Mutation Recursion"`
    found no section in a page sectioned by `# ` headings. Plain string work."""
    if body.count("# ") < 2 or (not body.startswith("# ") and body.count("\n# ") < 2):
        return body
    lines = body.split("\n")
    fence = ""
    heads: list[int] = []
    for i, line in enumerate(lines):
        now = _fence(fence, line)
        if now is not None:
            fence = now
        elif not fence and line.startswith("#") and _atx(line) and len(line) - len(line.lstrip("#")) < 6:
            heads.append(i)
    tops = [i for i in heads if lines[i].startswith("# ")]
    # A `## ` before the second `# `: the first is the title and the `##` ones its sections (a later `# ` line is a
    # comment of an unfenced example, or a slip)
    if len(tops) < 2 or any(lines[i].startswith("## ") for i in heads if i < tops[1]):
        return body
    for i in heads:
        lines[i] = "#" + lines[i]
    return "\n".join(lines)


def raised_headings(body: str) -> str:
    """A page titled by a `###` (or deeper) heading, its one heading at that level and its first, with its
    headings raised so that heading is a `# ` title and the ones under it `##` sections. Tried as a new user
    would on a web framework's docs: every page opens with `### Controllers` and is sectioned by `####`, so
    each page was one section, and `ctx show controllers.md "Request object"` found none. Plain string work."""
    if "\n###" not in body and not body.startswith("###"):
        return body
    if body.startswith(("# ", "## ")) or "\n## " in body:
        return body  # a `##` heading, or a `# ` title (most pages; or a `## ` in a code block: kept as is)
    lines = body.split("\n")
    levels: list[tuple[int, int]] = []  # (line number, level) of each heading outside code blocks
    fence = ""
    for i, line in enumerate(lines):
        now = _fence(fence, line)
        if now is not None:
            fence = now
        elif not fence and line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            if level <= 6 and line[level:level + 1] == " ":
                levels.append((i, level))
    top = min((level for _, level in levels), default=0)
    if top < 3 or levels[0][1] != top or sum(1 for _, level in levels if level == top) > 1:
        return body
    for i, _ in levels:
        lines[i] = lines[i][top - 1:]
    return "\n".join(lines)


def without_shortcodes(body: str) -> str:
    """The text without the lines that are one Hugo shortcode (`{{< admonition type="note" >}}`,
    `{{< /admonition >}}`, `{{% docs/shared ... %}}`), one Liquid tag as GitBook and Jekyll write them
    (`{% tabs %}`, `{% tab title="Go" %}`, `{% hint style="info" %}`, `{% endhint %}`) or a container's marker
    (`:::tip`, `::: code-group`, `:::`; a title it gives stays as a line, else a blank one; MDC's `::note` and
    `::`; Python Markdown's `/// tip` and `///`), outside code
    blocks: the site's markup around what the page says; the text between them stays. Jekyll's
    `{% highlight go %}` block is a code block, and is written as one. Tried as a new user would on a tracing
    backend's docs: forty shortcodes in one conversation's output; a log store's docs hold 700 (their words,
    "admonition", "type", "note", were its text too); a messaging system's GitBook printed 250 tab tags in one
    conversation; a state library's tutorials opened with `:::tip` and `:::info`. Plain string work."""
    if "{{<" not in body and "{{%" not in body and "{%" not in body and "::" not in body and "///" not in body:
        return body
    return _map_lines(body, _shortcode)


def _shortcode(line: str) -> str | None:
    """The line as the page shows it: None for one shortcode or Liquid tag, a code fence for Jekyll's highlight
    tags, a container's marker as its title or a blank line, else the line itself."""
    bare = line.strip()
    if bare[:3] == ":::":
        return _container_title(bare)
    if bare[:3] == "///":
        return _block_title(bare, line)
    if bare[:2] == "::" and _mdc_marker(bare[2:]):
        return ""
    if bare[:3] in ("{{<", "{{%") and bare[-3:] in (">}}", "%}}") and "}}" not in bare[3:-3]:
        return None
    if bare[:2] != "{%" or bare[-2:] != "%}" or "%}" in bare[2:-2]:
        return line
    words = bare[2:-2].strip("- ").split()
    if words[:1] == ["highlight"]:
        return "```" + (words[1] if len(words) > 1 else "")
    return "```" if words == ["endhighlight"] else None


def _mdc_marker(rest: str) -> bool:
    """Whether a line's text after its `::` opens or closes a block component as Nuxt Content (MDC) writes it:
    `::` alone, or a name and its props, `::tip{icon="i-lucide-rocket"}`, `::read-more{to="/docs/api"}`. Tried as
    a new user would on a web framework's docs: a turn printed 40 such lines, and the index read "tip", "icon",
    "lucide" and "rocket" as the page's words."""
    name, brace, props = rest.partition("{")
    return (not rest or name[:1].isalpha() and name.replace("-", "").replace("_", "").isalnum()
            and (not brace or props.endswith("}")))


def _block_title(bare: str, line: str) -> str:
    """What a page shows of a line that opens or closes a block of Python Markdown's blocks extension (`/// tip`,
    `/// details | Why?`, `//// tab | Python 3.10+`, a closing `///`): its title, or a blank line; any other line
    that starts so stays. Tried as a new user would on a database library's tutorial: a section's part opened
    with the `///` that closed a tip."""
    rest = bare.lstrip("/")
    kind, bar, title = rest.partition("|")
    kind = kind.strip()
    if kind and not (kind[:1].isalpha() and kind.replace("-", "").replace("_", "").isalnum()):
        return line
    return title.strip() if bar else ""


def _container_title(bare: str) -> str:
    """What a page shows of the line that opens or closes a container (Docusaurus's and Starlight's `:::tip`,
    `:::note[Heads up]`, VitePress's `::: warning Deprecated`, `::: code-group`, a closing `:::`): its title,
    or a blank line (what is inside is a paragraph of its own, not one with the lines around it).
    mkdocstrings' `::: package.module` stays: it names what the page documents."""
    rest = bare.lstrip(":").strip()
    kind, _, title = rest.partition(" ")
    if "." in kind and kind[:1] != "{":
        return bare
    if "[" in kind and rest.endswith("]"):
        title = rest[rest.index("[") + 1:-1]
    return title.strip()


def without_highlight_comments(body: str) -> str:
    """The text without the comments in its code blocks that tell Docusaurus which lines to highlight
    (`// highlight-next-line`, `// highlight-start`, `{/* highlight-end */}`): the site prints none of them.
    Tried as a new user would on a state library's docs: 709 such lines, six in one tutorial's code block."""
    if "highlight-" not in body:
        return body
    return _map_lines(body, lambda line: None if _highlight_comment(line.strip()) else line, code=True)


_HIGHLIGHTS = frozenset({"highlight-next-line", "highlight-start", "highlight-end"})
_COMMENTS = (("//", ""), ("#", ""), ("--", ""), ("/*", "*/"), ("{/*", "*/}"), ("<!--", "-->"))


def _highlight_comment(bare: str) -> bool:
    return any(bare.startswith(open_) and bare.endswith(close) and
               bare[len(open_):len(bare) - len(close)].strip() in _HIGHLIGHTS for open_, close in _COMMENTS)


def without_link_definitions(body: str) -> str:
    """The text without its link reference definitions (`[cite]: https://docs.example.com/`,
    `[img]: ../img/admin.png "Admin"`), outside code blocks: markdown prints none of them; the links that use
    them keep their text. Tried as a new user would on an API framework's docs: a turn printed 29 of them, 1,600
    chars. A footnote (`[^1]: text`) is shown, and stays. Plain string work."""
    if "]:" not in body:
        return body
    return _map_lines(body, lambda line: None if _link_definition(line.strip()) else line)


def _link_definition(bare: str) -> bool:
    """Whether a stripped line is a link reference definition: `[label]: target`, and a quoted title or none."""
    close = bare.find("]:")
    if bare[:1] != "[" or bare[1:2] in ("^", "]") or close < 0 or "[" in bare[1:close] or "]" in bare[1:close]:
        return False
    target, _, title = bare[close + 2:].strip().partition(" ")
    title = title.strip()
    return bool(target) and (not title or (title[0] + title[-1]) in ('""', "''", "()") and len(title) > 1)


def unindented_headings(body: str) -> str:
    """The text with its headings indented one to three spaces (` ## Dispatch type`, a heading to markdown)
    written at the margin, outside code blocks. Tried as a new user would on a messaging system's GitBook: such
    a heading was no section, and `ctx show` found none. Plain string work."""
    if "\n #" not in body and "\n  #" not in body and "\n   #" not in body and body[:1] != " ":
        return body
    return _map_lines(body, lambda line: line.lstrip(" ") if line[:1] == " " and len(line) - len(line.lstrip(" ")) <= 3
                      and _atx(line.lstrip(" ")) else line)


def _atx(line: str) -> bool:
    """Whether a line at the margin is an ATX heading: one to six `#` and a space (or nothing) after them."""
    level = len(line) - len(line.lstrip("#"))
    return 1 <= level <= 6 and line[level:level + 1] in (" ", "")


def _map_lines(body: str, write: Callable[[str], str | None], code: bool = False) -> str:
    """The text with each line outside code blocks (code: inside them) as `write` writes it: None drops the
    line."""
    out: list[str] = []
    fence = ""
    for line in body.split("\n"):
        now = _fence(fence, line)
        if now is not None:
            fence = now
        elif bool(fence) == code:
            written = write(line)
            if written is None:
                continue
            line = written
        out.append(line)
    return "\n".join(out)


def without_scripts(body: str) -> str:
    """The text without its `<script>` and `<style>` blocks (at a line's start, outside code blocks): a
    VitePress page's Vue code (`<script setup>` importing its components and images), which the page runs and
    never shows. Tried as a new user would on a build tool's docs: "svg raw" made HOT the page whose script
    imported `bundler.svg?raw`, ahead of the page on importing assets as strings. Plain string work."""
    if "<script" not in body and "<style" not in body:
        return body
    out: list[str] = []
    fence = skipping = ""
    for line in body.split("\n"):
        if skipping:
            if skipping in line.lower():
                skipping = ""
            continue
        now = _fence(fence, line)
        if now is not None:
            fence = now
        elif not fence:
            low = line.lstrip().lower()
            tag = next((t for t in ("<script", "<style") if low.startswith(t) and low[len(t):len(t) + 1] in (">", " ")),
                       None)
            if tag is not None:
                end = "</" + tag[1:] + ">"
                if end not in low:
                    skipping = end
                continue
        out.append(line)
    return "\n".join(out)


def without_toc(body: str) -> str:
    """The text without a page's own table of contents (list items that only link to its sections,
    `- [Creating Jobs](#creating-jobs)`), outside code blocks: the rendered page's navigation, which names
    every section once and says nothing of any. Tried as a new user would on a web framework's docs: every page
    opens with one, and a cut doc's opening or a WARM doc's header was that list (4,300 of a 10,000-char turn).
    Empty anchors (`<a id="x"></a>`) stay: leaving them out too cost two turns on the dev set. Plain string
    work: the hook path never imports re."""
    if "](#" not in body:
        return body
    return _map_lines(body, lambda line: None if _navigation(line.strip()) else line)


def _navigation(line: str) -> bool:
    """Whether a line is a table of contents' entry (`- [Text](#anchor)`, `1. [Text](#anchor)`)."""
    item = line[2:] if line[:2] in ("- ", "* ", "+ ") else line.partition(". ")[2] if line[:1].isdigit() else ""
    return item.startswith("[") and item.endswith(")") and item.count("](") == 1 and "](#" in item


def without_head(body: str) -> str:
    """The text without the `<head>` block it opens with: the page's metadata for the site (a canonical link,
    a title for the browser tab), never shown on the page."""
    start = len(body) - len(body.lstrip())
    if not body.startswith("<head>", start):
        return body
    end = body.find("</head>", start)
    return body if end < 0 else body[end + len("</head>"):].lstrip("\n")


def _imports(body: str) -> bool:
    """Whether a line of the doc's text, outside code blocks, is an ES module import (`import X from '...'`,
    `import '...'`). String work: the hook path never imports re."""
    if not body.startswith("import ") and "\nimport " not in body:
        return False
    fence = ""
    script = False  # inside a `<script>` block: a VitePress page's Vue code, which is no MDX
    for line in body.split("\n"):
        now = _fence(fence, line)
        if now is not None:
            fence = now
        elif fence:
            continue
        elif script or line.lstrip().startswith("<script"):
            script = "</script>" not in line
        elif line.startswith("import ") and (" from '" in line or ' from "' in line or line[7:8] in ("'", '"')):
            return True
    return False


def without_comments(body: str) -> str:
    """The text without its HTML comments (`<!-- ... -->`, on one line or over several) outside code blocks: a
    rendered page never shows them, and a docs folder's are licence headers (`# Licensed to the Apache ...`,
    read as headings and shown as a WARM doc's first 25 lines), "do not edit" markers and notes to its
    writers. The WARM marker stays (it ends the WARM header). A line that held only a comment goes with it; an
    unclosed `<!--` is kept as text. Plain string work: the hook path never imports re."""
    if "<!--" not in body:
        return body
    lines = body.split("\n")
    closes = [len(lines)] * (len(lines) + 1)  # the first line at or after each that holds a "-->": one pass, so
    for k in range(len(lines) - 1, -1, -1):  # an unclosed "<!--" in a big doc costs no scan of the rest per line
        closes[k] = k if "-->" in lines[k] else closes[k + 1]
    out: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        now = _fence(fence, line) if "<!--" not in line or fence else None
        if now is not None:
            fence = now
        if fence or now is not None or "<!--" not in line or line.strip() == WARM_MARKER:
            out.append(line)
            continue
        kept = ""
        rest = line
        while "<!--" in rest:
            start = rest.index("<!--")
            if (kept + rest[:start]).count("`") % 2:  # in inline code: `<!-- more -->` is text
                kept += rest[:start + 4]
                rest = rest[start + 4:]
                continue
            end = rest.find("-->", start + 4)
            if end >= 0:
                kept += rest[:start]
                rest = rest[end + 3:]
                continue
            close = closes[i]  # the comment goes on over the next lines
            if close == len(lines):  # never closed: a page renders it as text
                break
            kept += rest[:start]
            rest = lines[close][lines[close].index("-->") + 3:]
            i = close + 1
        kept += rest
        if kept.strip() or not line.strip().startswith("<!--"):
            out.append(kept)
    return "\n".join(out)


def without_esm(body: str) -> str:
    """An MDX doc's text without its `import` and `export` blocks: MDX reads a block that starts with either,
    up to a blank line, as JavaScript (`import Tabs from '@theme/Tabs';`), which says nothing to a reader.
    Code blocks are kept whole. Plain string work: the hook path never imports re."""
    if not body.startswith(("import ", "export ")) and "\nimport " not in body and "\nexport " not in body:
        return body
    out: list[str] = []
    fence = ""
    esm = False
    for line in body.split("\n"):
        if esm:
            if line.strip():
                continue
            esm = False
        now = _fence(fence, line)
        if now is not None:
            fence = now
        elif not fence and line.startswith(("import ", "export ")):
            esm = True
            continue
        out.append(line)
    return "\n".join(out).lstrip("\n")


def without_mdx_comments(body: str) -> str:
    """An MDX doc's text without its comments (`{/* ... */}`, on one line or over several) outside code
    blocks, as its HTML comments go: a generated page's `{/* Generated by ... Do not edit. */}` says nothing
    to a reader. A line that held only a comment goes with it; a comment never closed leaves the text as it
    is. Plain string work: the hook path never imports re."""
    if "{/*" not in body:
        return body
    out: list[str] = []
    fence = ""
    inside = False
    for line in body.split("\n"):
        now = _fence(fence, line) if not inside else None
        if now is not None or fence:
            fence = now if now is not None else fence
            out.append(line)
            continue
        kept, rest = "", line
        while rest:
            if inside:
                end = rest.find("*/}")
                rest, inside = ("", True) if end < 0 else (rest[end + 3:], False)
            else:
                start = rest.find("{/*")
                if start < 0:
                    kept, rest = kept + rest, ""
                else:
                    kept, rest, inside = kept + rest[:start], rest[start + 3:], True
        if kept.strip() or (not line.strip()):
            out.append(kept.rstrip() if kept.strip() else kept)
    return body if inside else "\n".join(out)  # an unclosed `{/*` is text, as an unclosed `<!--` is


def _fence(fence: str, line: str) -> str | None:
    """The code fence open after `line` ("" for none), given the one open before it; None when the line opens
    or closes no fence. A fence is three or more backticks or tildes, indented at most three spaces, and is
    closed by a run of the same character at least as long."""
    if "```" not in line and "~~~" not in line:  # most lines: one search each, before any other work
        return None
    bare = line.lstrip(" ")
    if len(line) - len(bare) > 3 or not is_fence(bare):
        return None
    mark = bare[:len(bare) - len(bare.lstrip(bare[0]))]
    if not fence:
        return mark
    if mark.startswith(fence) and not bare.strip(bare[0]).strip():
        return ""
    return fence  # a fence line inside another fence: still inside


_MARKUP = frozenset("`*_[]<>{}:!\\~&")


def plain_inline(text: str) -> str:
    """A line of markdown as it reads: `Install **SQLModel** {#install}` -> `Install SQLModel`. Drops
    emphasis and code markers, links' targets (their text stays), images, HTML tags, attribute lists and
    icon shortcodes (`:simple-slack:`); words stay as they are (snake_case keeps its underscores). A heading
    that gives its table-of-contents label (`data-toc-label`) reads as that label."""
    if _MARKUP.isdisjoint(text):
        return " ".join(text.split())
    import re  # only for a title or heading with markup in it: the hook path never imports re

    label = re.search(r"""\{[^}]*\bdata-toc-label=(["'])(.+?)\1[^}]*\}""", text)
    if label:  # mkdocs' table of contents names the section so (`## with pip <small>recommended</small>
        return plain_inline(label.group(2))  # { #with-pip data-toc-label="with pip" }`): the author's short name
    # A backslash escape is its character, and no markup (`State \*\*` reads `State **`): kept aside till the end.
    text = re.sub(r"\\([!-/:-@\[-`{-~])", lambda m: f"\0{ord(m.group(1))}\0", text)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)  # an image says nothing
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link: its text
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)  # a reference link: its text
    # HTML tags (<a name=...>, <small>) read as nothing, but a tag in code (`<NuxtLink>` props) reads as its name,
    # and so does a title that is nothing but a component's tag (`title: '<ClientOnly>'`)
    text = re.sub(r"`+\s*</?([A-Za-z][\w.:-]*)[^>`\n]*>\s*`+", r"\1", text)
    # A heading's aside in small print (mkdocs-material's `### Browser <small>optional</small>`, `<small>insiders
    # </small>`) is no word of its name: tried as a new user would, "browser optional" was a derived keyword
    aside = re.sub(r"<small\b[^>]*>.*?</small>", " ", text)
    text = aside if aside.strip("# \t") else text
    tags = r"</?([A-Za-z][\w.:-]*)[^>\n]*>"
    text = re.sub(tags, " ", text) if re.sub(tags, "", text).strip() else re.sub(tags, r"\1", text)
    text = re.sub(r"\{[:#.][^}]*\}|\{\s+[#.][^}]*\}", " ", text)  # attribute lists: {#anchor}, { .class }
    text = re.sub(r"(?<!\S):[a-z0-9]+(?:[-_+][a-z0-9]+)*:(?!\S)", " ", text)  # icons: :simple-slack:
    text = re.sub(r"`+", "", text)
    text = re.sub(r"(?<![\w*])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*])", r"\2", text)
    # Struck out (`~~--global~~`, deprecated): its text.
    text = re.sub(r"(?<![\w~])~~(?=\S)(.+?)(?<=\S)~~(?![\w~])", r"\1", text)
    text = text.replace("**", "")
    text = re.sub("\0(\\d+)\0", lambda m: chr(int(m.group(1))), text)
    if "&" in text:  # an entity (`--bump &lt;type&gt;`) reads as its character, once the tags are gone
        import html

        text = html.unescape(text)
    return " ".join(text.split())


def _attributes_alone(line: str) -> bool:
    """A line that is an attribute list alone (MyST's `{.hide-header}` over a title, kramdown's `{: .note}`): it
    gives the block after it a class or an anchor, and says nothing. Tried as a new user would on a CLI library's
    docs: its landing page opens with `{.hide-header}`, and had no title."""
    bare = line.strip()
    return len(bare) > 2 and bare[0] == "{" and bare[-1] == "}" and bare[1:].lstrip(": ")[:1] in (".", "#")


def _title_of(body: str, meta: Mapping[str, Any], rel: str, titles: Callable[[str], str] | None) -> str:
    """A doc's title: its front matter `title` (as mkdocs, Docusaurus, Hugo and Zola read it: it names the page,
    where a `# ` line further down may head one part of it), else its first `# ` line, else its front matter
    `name` (a Claude Code agent, command or skill), else the one its site gives it (`titles`: sites.titler),
    else its file name when that has spaces in it, else the heading it opens with."""
    given = meta.get("title")
    if isinstance(given, str) and given.strip():
        return plain_inline(given)
    fence = ""
    opening = ""  # the heading the doc opens with, of any level: a README that starts at `## Test Utilities`
    first = True
    for line in body.splitlines():
        now = _fence(fence, line)
        if now is not None:
            fence = now  # a `# comment` in a code block is no title
            first = False
            continue
        if not fence and line.startswith("# "):
            title = plain_inline(line[2:].strip().rstrip("#"))
            if title:
                return title
            break
        if first and line.strip() and not _attributes_alone(line):
            first = False
            level = len(line) - len(line.lstrip("#"))
            if 1 < level <= 6 and line[level:level + 1] == " ":
                opening = plain_inline(line[level:].strip().rstrip("#"))
    named = meta.get("name")  # a Claude Code agent's, command's or skill's name
    if isinstance(named, str) and named.strip():
        return plain_inline(named)
    if titles is not None and (given := plain_inline(titles(rel))):
        return given
    # A file name with spaces in it is written as a title, and is the page's title where the site names its pages
    # by their files (an Obsidian vault: `Sync your notes across devices.md`, no `# ` line). Tried as a new user
    # would on a note app's help vault: 189 of its 204 pages had no title, and "can I sync my vault between my
    # phone and laptop?" never showed that page.
    name = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0].strip()
    if " " in name:
        return name
    return opening


def heading_title(body: str) -> str:
    """The title a doc's own text gives it: its first `# ` line, else the heading it opens with (front matter
    and the site aside: a page whose nav calls it `if` and whose text heads it `x-if`)."""
    return _title_of(body, {}, "", None)


def parse_doc(rel: str, st: Stat, text: str, warm_lines: int, oversize: bool = False,
              analyse: Analyse | None = None, titles: Callable[[str], str] | None = None) -> Doc:
    """analyse: what the evidence stages keep of the text (the workspace hands it in; None: keyword mode).
    titles: path -> the title the site gives a doc that has none of its own (mkdocs.titler)."""
    meta, body, warning = split_front_matter(text)
    body = readable(body, rel)
    if "hero" in meta or "features" in meta or ("description" in meta and no_text(body)):
        body = home_body(meta, body)
    warnings = [warning] if warning else []
    title = _title_of(body, meta, rel, titles)
    header, truncated = header_of(body, warm_lines)
    pinned = meta.get("pinned")
    if pinned is True:
        pinned = "warm"
    elif pinned not in ("warm", "hot"):
        pinned = None
    decay = meta.get("decay")
    if isinstance(decay, bool) or not isinstance(decay, (int, float)) or not 0 < decay <= 1:
        if decay is not None:
            warnings.append(f"front matter decay must be a number in (0, 1], got {decay!r}")
        decay = None
    found = analyse(rel, title, body) if analyse is not None else None
    return Doc(path=rel, mtime_ns=st[0], size=st[1], title=title, header=header, truncated=truncated or oversize,
               terms=found.terms if found else None, entropy=found.entropy if found else 0.0,
               text=found.fields if found else None, sections=found.sections if found else (),
               hub=found.hub if found else False,
               keywords=_str_list(meta.get("keywords")), related=tuple(map(doc_path, _str_list(meta.get("related")))),
               pinned=pinned, decay=float(decay) if decay is not None else None, oversize=oversize,
               claims=claimed_globs(meta), warnings=tuple(warnings))


def skipped_note(rel: str) -> str:
    return f"skipped {rel}: unreadable or binary"


def load_doc(root: str, rel: str, st: Stat, warm_lines: int, max_bytes: int,
             analyse: Analyse | None = None, titles: Callable[[str], str] | None = None) -> Doc | None:
    """Read and parse one doc; None when it must be skipped (binary, unreadable, gone)."""
    oversize = st[1] > max_bytes
    # An oversized doc is indexed by its header only: read just enough bytes to find it.
    text = read_doc(root, rel, limit=min(max_bytes, 256 * 1024) if oversize else None)
    if text is None:
        return None
    return parse_doc(rel, st, text, warm_lines, oversize, analyse, titles)


@record
class Changes:
    changed: tuple[Doc, ...]
    removed: tuple[str, ...]
    skipped: tuple[str, ...]
    warnings: tuple[str, ...]
    pending: tuple[str, ...] = ()  # changed docs not read before the deadline: the next pass reads them


AT_LEAST_DOC_BYTES = 20_000  # docs read whatever the deadline hold this much each on average (a docs folder's
# pages: 4 to 15 KB), so 300 of them cost about a second at most, not 300 pages of megabytes


def diff(root: str, found: Mapping[str, Stat], cached: Mapping[str, Stat], warm_lines: int,
         max_bytes: int, analyse: Analyse | None = None, deadline: float | None = None,
         first: Callable[[list[str]], Collection[str]] | None = None,
         titles: Callable[[str], str] | None = None, at_least: int = 0) -> Changes:
    """Read the docs whose (mtime, size) differ from the cache; list the ones that are gone.

    `cached` holds skipped files too, so a binary file is sniffed once, not every turn. Past `deadline`
    (time.monotonic()) the docs still to read are left `pending`; `first` picks, among the docs to read, those
    to read before the others (the ones a turn's prompt names), so a turn short of time has them. `titles`:
    the site's title for a doc without one (mkdocs.titler). `at_least`: docs read whatever the deadline, while
    they hold at most AT_LEAST_DOC_BYTES each on average (a folder of huge generated pages is not read whole).
    """
    import time

    changed: list[Doc] = []
    size = 0  # bytes of the docs read
    skipped: list[str] = []
    warnings: list[str] = []
    pending: list[str] = []
    todo = [rel for rel, st in found.items() if cached.get(rel) != st]
    if first is not None and deadline is not None and len(todo) > 1:
        named = first(todo)
        if named:
            todo = [rel for rel in todo if rel in named] + [rel for rel in todo if rel not in named]
    for rel in todo:
        st = found[rel]
        enough = len(changed) >= max(1, at_least) or (bool(changed) and size >= at_least * AT_LEAST_DOC_BYTES)
        if pending or (deadline is not None and enough and time.monotonic() > deadline):
            pending.append(rel)
            continue
        size += st[1]
        doc = load_doc(root, rel, st, warm_lines, max_bytes, analyse, titles)
        if doc is None:
            skipped.append(rel)
            warnings.append(skipped_note(rel))
            continue
        changed.append(doc)
        warnings.extend(f"{rel}: {w}" for w in doc.warnings)
    removed = tuple(rel for rel in cached if rel not in found)
    return Changes(tuple(changed), removed, tuple(skipped), tuple(warnings), tuple(pending))
