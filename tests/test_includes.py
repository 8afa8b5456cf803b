"""Include lines read as the site's build reads them (store/includes.py)."""

from __future__ import annotations

import os

from context_router.store import includes, index


def write(root, rel: str, text: str) -> None:
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def test_an_mkdocs_snippet_is_the_file_it_names_from_the_sites_root(tmp_path):
    write(tmp_path, "mkdocs.yml", "site_name: x\n")
    write(tmp_path, "CONTRIBUTING.md", "## Local development\n\nRun `pdm install`.\n")
    write(tmp_path, "docs/dev/contributing.md", '# Contributing\n\n--8<-- "CONTRIBUTING.md"\n')
    text = index.read_doc(str(tmp_path / "docs"), "dev/contributing.md")
    assert text == "# Contributing\n\n## Local development\n\nRun `pdm install`.\n"


def test_a_named_section_of_a_snippet_indented_as_its_line_and_a_block_of_paths(tmp_path):
    write(tmp_path, "mkdocs.yml", "site_name: x\n")
    write(tmp_path, "docs/src/a.toml", "# --8<-- [start:minimal]\n[workspace]\nname = 'a'\n# --8<-- [end:minimal]\n"
                                       "[tasks]\n")
    write(tmp_path, "docs/src/b.md", "b line\n")
    page = ('=== "pixi.toml"\n    ```toml\n    --8<-- "docs/src/a.toml:minimal"\n    ```\n\n'
            '--8<--\ndocs/src/b.md\n--8<--\n;--8<-- "escaped.md"\n')
    write(tmp_path, "docs/p.md", page)
    text = index.read_doc(str(tmp_path / "docs"), "p.md")
    assert "    [workspace]\n    name = 'a'\n    ```" in text and "[tasks]" not in text and "start:minimal" not in text
    assert "\nb line\n" in text and ';--8<-- "escaped.md"' in text


def test_an_include_that_does_not_resolve_keeps_its_line_and_nothing_outside_the_site_or_hidden_is_read(tmp_path):
    write(tmp_path / "outside", "secret.md", "secret\n")
    site = tmp_path / "site"
    write(site, "mkdocs.yml", "site_name: x\n")
    write(site, ".env", "TOKEN=secret\n")
    write(site, "docs/.private/notes.md", "secret\n")
    page = ('--8<-- "missing.md"\n--8<-- "../outside/secret.md"\n{{#include ../../outside/secret.md}}\n'
            '--8<-- ".env"\n<!--@include: ./.private/notes.md-->\n')
    write(site, "docs/p.md", page)
    assert index.read_doc(str(site / "docs"), "p.md") == page


def test_mdbook_includes_by_anchor_and_lines_from_the_pages_folder(tmp_path):
    write(tmp_path, "book.toml", "[book]\n")
    write(tmp_path, "src/listings/main.rs",
          "use x;\n// ANCHOR: here\nfn main() {}\n// ANCHOR_END: here\nfn rest() {}\n")
    write(tmp_path, "src/generated/cmds.md", "| :quit | Close |\n")
    write(tmp_path, "src/ch1.md", "```rust\n{{#include listings/main.rs:here}}\n```\n\n"
                                  "{{#include ./generated/cmds.md}}\n{{#rustdoc_include listings/main.rs:1:1}}\n")
    text = index.read_doc(str(tmp_path / "src"), "ch1.md")
    assert text == "```rust\nfn main() {}\n```\n\n| :quit | Close |\nuse x;\n"


def test_vitepress_includes_and_code_imports(tmp_path):
    write(tmp_path, "docs/.vitepress/config.ts", "export default {}\n")
    write(tmp_path, "docs/parts/basics.md", "<!-- #region setup -->\nnpm i vite\n<!-- #endregion setup -->\nmore\n")
    write(tmp_path, "docs/guide/deploy.yml", "name: Deploy\n# #region content\non: push\n# #endregion content\n")
    write(tmp_path, "docs/guide/p.md", "<!--@include: ../parts/basics.md#setup-->\n\n"
                                       "<<< ./deploy.yml#content [.github/workflows/deploy.yml]\n"
                                       "<!--@include: @/parts/basics.md{4,}-->\n")
    text = index.read_doc(str(tmp_path / "docs"), "guide/p.md")
    assert text == "npm i vite\n\n```yml\non: push\n```\nmore\n"


def test_quarto_includes_from_the_pages_folder_and_the_projects(tmp_path):
    """Tried as a new user would on a publishing system's Quarto site: 170 of its pages are partials that others
    include (`{{< include _require-1.4.qmd >}}`), and the pages read as their include lines."""
    write(tmp_path, "_quarto.yml", "project:\n  type: website\n")
    write(tmp_path, "_common/_setup.qmd", "Install the CLI first.\n")
    write(tmp_path, "docs/guide/_options.md", "Options go in the front matter.\n{{< include /_common/_setup.qmd >}}\n")
    write(tmp_path, "docs/guide/html.qmd", "---\ntitle: HTML\n---\n\n{{< include _options.md >}}\n\n"
                                          "{{< include ../../../outside.qmd >}}\n{{< include /../outside.qmd >}}\n")
    write(tmp_path.parent, "outside.qmd", "secret\n")
    text = index.read_doc(str(tmp_path / "docs"), "guide/html.qmd")
    assert text == ("---\ntitle: HTML\n---\n\nOptions go in the front matter.\nInstall the CLI first.\n\n"
                    "{{< include ../../../outside.qmd >}}\n{{< include /../outside.qmd >}}\n")


def test_a_page_without_includes_is_its_text():
    assert not includes.has_includes("# Title\n\nText with <<< inside and --8< half.\n")


def test_snippets_are_read_from_the_base_paths_mkdocs_yml_names(tmp_path):
    """A dataframe library's examples: `base_path: [".", "docs/source/src/"]`, and pages name
    `--8<-- "python/user-guide/sql/cte.py:setup"`; a block list reads the same."""
    write(tmp_path, "mkdocs.yml", 'markdown_extensions:\n  - pymdownx.snippets:\n'
                                  '      base_path: [".", "docs/source/src/"]  # where the examples are\n')
    write(tmp_path, "docs/source/src/python/cte.py", "# --8<-- [start:setup]\nimport polars as pl\n"
                                                      "# --8<-- [end:setup]\n")
    write(tmp_path, "docs/source/sql.md", '```python\n--8<-- "python/cte.py:setup"\n```\n')
    assert index.read_doc(str(tmp_path / "docs" / "source"), "sql.md") == "```python\nimport polars as pl\n```\n"
    other = tmp_path / "other"
    write(other, "mkdocs.yml", "markdown_extensions:\n  - pymdownx.snippets:\n      base_path:\n        - snips\n"
                               "        - .\n")
    assert includes.snippet_bases(str(other), index.read_bytes) == (str(other / "snips"), str(other))


def test_a_hugo_param_is_the_value_its_page_or_a_section_above_it_sets(tmp_path):
    """Tried as a new user would on a telemetry collector's Hugo docs: 1,981 `{{< param "PRODUCT_NAME" >}}`,
    printed as written where the page reads "Alloy". The page's own front matter wins, then the nearest
    section's `cascade:`; a name none sets stays as written, and no `_index.md` counts as an included page."""
    docs = str(tmp_path / "sources")
    write(docs, "_index.md", "---\ntitle: Alloy\ncascade:\n  PRODUCT_NAME: Alloy # the short name\n"
                             "  OTEL_VERSION: v0.158.0\n  FULL: 'Grafana Alloy'\n---\n\n# Alloy\n")
    write(docs, "set-up/_index.md", "---\ntitle: Set up\ncascade:\n  params:\n    OTEL_VERSION: v0.150.0\n---\n")
    write(docs, "set-up/deploy.md", '---\ntitle: Deploy\n---\n\n# Deploy {{% param "FULL" %}}\n\n'
                                    '{{< param "PRODUCT_NAME" >}} runs the {{< param "OTEL_VERSION" >}} engine; '
                                    '{{< param "NOPE" >}}.\n')
    write(docs, "own.md", '---\nproduct_name: Mine\n---\n\nThis is {{< param "PRODUCT_NAME" >}}.\n')
    assert index.read_doc(docs, "set-up/deploy.md").endswith(
        '# Deploy Grafana Alloy\n\nAlloy runs the v0.150.0 engine; {{< param "NOPE" >}}.\n')
    assert index.read_doc(docs, "own.md").endswith("This is Mine.\n")
    assert includes.named(index.read_text(docs, "set-up/deploy.md"), docs, "set-up/deploy.md", index.read_bytes) == []
    # A path named whole (`ctx show /abs/path/deploy.md`): the loop up its folders ends at `/`; it went on
    # forever, its list growing (tried as a new user would on an orchestrator's Hugo docs).
    whole = os.path.join(docs, "set-up", "deploy.md")
    assert "Alloy runs" in includes.with_params(index.read_text(docs, "set-up/deploy.md"), docs, whole)
    assert index.user_doc_path(docs, whole) == "set-up/deploy.md"


def test_a_sphinx_pages_includes_read_the_files_beside_the_code_and_nothing_hidden(tmp_path):
    """Tried as a new user would on a code formatter's Sphinx docs: its changelog page is a MyST include of
    `../CHANGES.md`, outside the docs folder, and was routed as its include line. A Sphinx project's pages read
    files in their repository (`.. include:: ../README.rst` too); nothing outside it, nothing hidden."""
    repo = tmp_path / "repo"
    os.makedirs(repo / ".git")
    write(repo, "CHANGES.md", "# Change Log\n\n## 24.1.0\n\n- Preview style.\n")
    write(repo, "README.rst", "Black\n=====\n\nThe formatter.\n")
    write(repo, ".env", "TOKEN=secret\n")
    write(tmp_path, "outside.md", "secret\n")
    docs = str(repo / "docs")
    write(docs, "conf.py", "project = 'black'\n")
    write(docs, "change_log.md", "```{include} ../CHANGES.md\n:relative-docs: docs/\n```\n")
    write(docs, "index.rst", ".. include:: ../README.rst\n\nMore.\n")
    write(docs, "bad.md", "```{include} ../.env\n```\n\n```{include} ../../outside.md\n```\n")
    assert index.read_doc(docs, "change_log.md") == "# Change Log\n\n## 24.1.0\n\n- Preview style.\n"
    assert index.read_doc(docs, "index.rst").startswith("Black\n=====\n\nThe formatter.")
    assert index.read_doc(docs, "bad.md") == "```{include} ../.env\n```\n\n```{include} ../../outside.md\n```\n"
    os.remove(os.path.join(docs, "conf.py"))  # not a Sphinx project: its docs' folder is the bound
    assert index.read_doc(docs, "change_log.md").startswith("```{include}")


def test_a_sphinx_include_from_the_project_root_of_a_conf_py_that_builds_several(tmp_path):
    """Tried as a new user would on a docs host's own docs: one `conf.py` builds `user/` and `dev/`, each its own
    project, and `.. include:: /shared/admonition.rst` in `user/badges.rst` is `user/shared/admonition.rst`. The
    conf.py's own folder comes first, as Sphinx reads a single project."""
    docs = str(tmp_path / "docs")
    write(docs, "conf.py", "project = 'x'\n")
    write(docs, "user/shared/admonition.rst", ".. note::\n    Only on the business plan.\n")
    write(docs, "user/badges.rst", "Badges\n======\n\n.. include:: /shared/admonition.rst\n")
    assert "Only on the business plan." in index.read_doc(docs, "user/badges.rst")
    write(docs, "shared/admonition.rst", "From the root.\n")
    assert "From the root." in index.read_doc(docs, "user/badges.rst")


def test_grafanas_shared_content_is_the_file_in_the_nearest_shared_folder_without_its_front_matter(tmp_path):
    """Tried as a new user would on a load tester's Hugo docs: a module's page was `# k6/http` and its
    `{{< docs/shared lookup="javascript-api/k6-http.md" source="k6" version="<K6_VERSION>" >}}` line. Each
    version of the docs keeps its own `shared/` folder; a lookup found in none keeps its line (another project's)."""
    docs = str(tmp_path / "sources")
    write(docs, "k6/next/shared/index.md", "---\nheadless: true\n---\n")
    write(docs, "k6/next/shared/javascript-api/k6-http.md",
          "---\ntitle: k6-http\nheadless: true\n---\n\n| Function | Description |\n| `get( url )` | Issue a GET. |\n")
    write(docs, "k6/v1.0.x/shared/javascript-api/k6-http.md", "| `get( url )` | The old text. |\n")
    write(docs, "k6/next/javascript-api/k6-http/_index.md",
          '# k6/http\n\n{{< docs/shared lookup="javascript-api/k6-http.md" source="k6" version="<K6_VERSION>" >}}\n\n'
          "{{% docs/shared source='alloy' lookup='agent-deprecation.md' version='next' %}}\n")
    text = index.read_doc(docs, "k6/next/javascript-api/k6-http/_index.md")
    assert text == ("# k6/http\n\n| Function | Description |\n| `get( url )` | Issue a GET. |\n\n"
                    "{{% docs/shared source='alloy' lookup='agent-deprecation.md' version='next' %}}\n")
    write(docs, "k6/next/javascript-api/k6-http/_index.md",
          "# k6/http\n\n{{% docs/shared source='k6' lookup='javascript-api/k6-http.md' version='next' %}}\n")
    assert "Issue a GET" in index.read_doc(docs, "k6/next/javascript-api/k6-http/_index.md")


def test_a_hugo_include_shortcode_is_the_file_it_names(tmp_path):
    """Tried as a new user would on a release tool's Hugo docs: its publish pages' repository options were a
    `{{% g_include file="includes/repository.md" %}}` line. A site's shortcodes are its own, so the name says
    include: `file=` from the docs' root or a folder above the page, a bare name from an `includes/` folder, a
    name with `/` from the docs' root; front matter left out; a shortcode of another name, or a file that is not
    there, keeps its line."""
    write(tmp_path, "hugo.yaml", "title: x\n")
    write(tmp_path, "examples/route.yaml", "kind: HTTPRoute\n")
    docs = str(tmp_path / "content")
    write(docs, "includes/repository.md", "---\nheadless: true\n---\n    repository:\n      owner: caarlos0\n")
    write(docs, "includes/prereqs.md", "You need a cluster.\n")
    write(docs, "examples/config.yaml", "port: 80\n")
    write(docs, "publish/nix.md", '# Nix\n\n{{% g_include file="includes/repository.md" %}}\n\n'
                                 '{{< include "prereqs.md" >}}\n\n{{< readfile file="/examples/config.yaml" >}}\n\n'
                                 '{{< readfile file="/examples/route.yaml" code="true" lang="yaml" >}}\n\n'
                                 '{{< figure src="includes/repository.md" >}}\n\n'
                                 '{{% g_include file="includes/gone.md" %}}\n')
    text = index.read_doc(docs, "publish/nix.md")
    assert text == ('# Nix\n\n    repository:\n      owner: caarlos0\n\nYou need a cluster.\n\nport: 80\n\n'
                    '```yaml\nkind: HTTPRoute\n```\n\n{{< figure src="includes/repository.md" >}}\n\n'
                    '{{% g_include file="includes/gone.md" %}}\n')
    assert sorted(os.path.relpath(p, docs) for p in includes.named(open(os.path.join(docs, "publish/nix.md")).read(),
                                                                   docs, "publish/nix.md", index.read_bytes)) == \
        ["../examples/route.yaml", "examples/config.yaml", "includes/prereqs.md", "includes/repository.md"]


def test_a_hugo_include_names_a_page_as_getpage_does(tmp_path):
    """Tried as a new user would on a site generator's own docs: `{{% include "/_common/glob-patterns" %}}` names
    a page of the language's content (`content/en/`), without its `.md`, as Hugo's GetPage takes it; 187 of
    them, and the 45 pages they name were routed as pages of their own."""
    docs = str(tmp_path / "content")
    write(docs, "en/_common/glob-patterns.md", "---\n_build: {render: never}\n---\nUse `**` for any depth.\n")
    write(docs, "en/_common/bundle/index.md", "A bundle's text.\n")
    write(docs, "en/functions/path/Match.md", '# Match\n\n{{% include "/_common/glob-patterns" %}}\n\n'
                                             '{{% include "_common/bundle" %}}\n')
    assert index.read_doc(docs, "en/functions/path/Match.md") == \
        "# Match\n\nUse `**` for any depth.\n\nA bundle's text.\n"
