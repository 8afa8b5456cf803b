"""The front page and the docs/ pages: short, runnable, and every link lands."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["commands", "config", "hosts", "relevance", "performance", "architecture"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    fenced, found = False, set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(_slug(line.lstrip("#")))
    return found


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_the_front_page_is_short_and_opens_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    blocks = _code_blocks(text)
    assert blocks[0].strip() == 'pip install . && ctx route "is the gpu on lighthouse throttling?"'
    assert blocks[1].strip() == 'pip install ".[test]" && python -m pytest'
    # CI runs the README's test command: the same install and the same test run.
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install --quiet ".[test]"' in ci and "python -m pytest" in ci.splitlines()
    own_repo = text.split("## Your own repo in three commands", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#")[0].strip() for line in _code_blocks(own_repo)[0].splitlines()]
    assert commands == ["ctx init docs", "ctx check", "ctx hook install claude"]
    for page in PAGES:
        assert f"(docs/{page}.md)" in text


@pytest.mark.parametrize("name", ["README.md"] + [f"docs/{page}.md" for page in PAGES])
def test_every_relative_link_lands_on_a_file_and_a_heading(name):
    page = ROOT / name
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        for target in [] if fenced else LINK.findall(line):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.is_file(), f"{name}: {target}"
            if anchor:
                assert anchor in _anchors(dest), f"{name}: {target}"
