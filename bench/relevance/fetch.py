"""Rebuild the dev set's plain docs folders of public projects from pinned commits (their text is never
committed here): `bench/corpora/NAME/` holds the docs folder of each project in `external.json` (with
`"nested": true`, in a folder of its own name below it, as in the repository, where pages may name each other
by it).

    python bench/relevance/fetch.py                     # clone each project at its commit (needs the network)
    python bench/relevance/fetch.py --git NAME=DIR      # take a project from a local clone that has the commit
    python bench/relevance/fetch.py --force NAME        # rebuild one project's folder
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPORA = os.path.join(os.path.dirname(HERE), "corpora")
MANIFEST = os.path.join(HERE, "external.json")


def extract(git_dir: str, commit: str, folder: str, target: str) -> int:
    """Write the .md files of `folder` at `commit` under `target` (the folder's contents, not the folder).

    Reads the tree file by file rather than with `git archive`: a clone without its large binary blobs
    (videos, images) still has every markdown file, and archive refuses the whole tree for one missing blob."""
    git = ["git", "--git-dir", git_dir]
    whole = folder.strip("/") in ("", ".")  # a monorepo: every markdown file of the repository
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", "--name-only", commit, *([] if whole else ["--", folder])],
                             check=True, capture_output=True).stdout.decode("utf-8", "surrogateescape")
    prefix = "" if whole else folder.rstrip("/") + "/"
    n = 0
    for name in filter(None, listing.split("\0")):
        if not name.endswith(".md") or not name.startswith(prefix):
            continue
        rel = name[len(prefix):]
        if rel.startswith("/") or ".." in rel.split("/"):
            continue
        data = subprocess.run([*git, "show", f"{commit}:{name}"], check=True, capture_output=True).stdout
        dest = os.path.join(target, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as fh:
            fh.write(data)
        n += 1
    return n


def docs_folder(name: str, src: dict[str, str]) -> str:
    """Where a project's docs are put: `bench/corpora/NAME/`, or below it in a folder of the docs folder's own
    name (`"nested": true`): TanStack's pages show each other by `ref: docs/framework/...`."""
    target = os.path.join(CORPORA, name)
    return os.path.join(target, os.path.basename(src["folder"].rstrip("/"))) if src.get("nested") else target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git", action="append", default=[], help="NAME=DIR: a local git directory for NAME")
    ap.add_argument("--force", action="store_true", help="rebuild folders that exist")
    ap.add_argument("names", nargs="*", help="only these projects (all without)")
    args = ap.parse_args()
    local = dict(item.split("=", 1) for item in args.git)
    with open(MANIFEST, encoding="utf-8") as fh:
        manifest = json.load(fh)
    for name, src in manifest.items():
        if args.names and name not in args.names:
            continue
        target = os.path.join(CORPORA, name)
        if os.path.isdir(target) and not args.force:
            print(f"{name}: already there")
            continue
        shutil.rmtree(target, ignore_errors=True)
        docs = docs_folder(name, src)
        os.makedirs(docs)
        if name in local:
            n = extract(local[name], src["commit"], src["folder"], docs)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                git = os.path.join(tmp, "repo.git")
                subprocess.run(["git", "init", "--bare", "-q", git], check=True)
                subprocess.run(["git", "--git-dir", git, "fetch", "-q", "--depth", "1",
                                f"https://github.com/{src['repo']}", src["commit"]], check=True)
                n = extract(git, src["commit"], src["folder"], docs)
        print(f"{name}: {n} docs from {src['repo']}@{src['commit'][:12]}:{src['folder']}")


if __name__ == "__main__":
    main()
