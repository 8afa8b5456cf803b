"""The layers hold: the import-linter contracts in pyproject.toml (faces over the router over the indexer, the
model and the workspace, over config, store and stages that never import each other, over the base; no import
circles) are kept, type-only imports included."""

import subprocess
import sys

from .conftest import REPO

# The console script may not be on PATH (a user install); its entry point runs with this interpreter.
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def test_the_import_contracts_are_kept():
    done = subprocess.run([sys.executable, "-c", LINT, "--config", str(REPO / "pyproject.toml")], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    assert "2 kept, 0 broken" in done.stdout
