"""The layers hold: the import-linter contracts in pyproject.toml (faces over the router over the indexer, the
model and the workspace, over config, store and stages that never import each other, over the base; no import
circles) are kept, type-only imports included."""

import shutil
import subprocess

import pytest

from .conftest import REPO


def test_the_import_contracts_are_kept():
    lint = shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is not installed: pip install '.[test]'")
    done = subprocess.run([lint, "--config", str(REPO / "pyproject.toml")], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    assert "2 kept, 0 broken" in done.stdout
