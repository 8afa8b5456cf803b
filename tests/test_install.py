"""Installing into each host's project files: file modes as the umask says."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    """Set the process umask for a test, and put it back."""
    saved = os.umask(0o022)
    os.umask(saved)
    yield os.umask
    os.umask(saved)


def test_new_files_follow_the_umask_and_existing_ones_keep_their_mode(ctx, tmp_path, umask):
    umask(0o022)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n")
    assert ctx("init", "docs").code == 0 and mode(tmp_path / "config.yaml") == 0o644
    for args, written in ((["hook", "install", "claude"], ".claude/settings.json"),
                          (["mcp", "install", "claude"], ".mcp.json")):
        assert ctx(*args).code == 0, args
        assert mode(tmp_path / written) == 0o644, written
    settings = tmp_path / ".claude" / "settings.json"
    os.chmod(settings, 0o640)
    assert ctx("hook", "uninstall", "claude").code == 0 and not settings.exists()
    umask(0o077)
    assert ctx("hook", "install", "claude").code == 0 and mode(settings) == 0o600
    data = json.loads(settings.read_text())
    data["model"] = "opus"
    settings.write_text(json.dumps(data))
    os.chmod(settings, 0o640)
    umask(0o022)
    assert ctx("hook", "uninstall", "claude").code == 0 and mode(settings) == 0o640  # an existing file keeps it
