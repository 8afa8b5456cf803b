"""`ctx stats` and `ctx chart`: figures checked against a conversation whose numbers are known."""

from __future__ import annotations

import json
import xml.dom.minidom
from pathlib import Path

from .conftest import write_docs

A = "# Alpha\n\n" + "alpha words. " * 60 + "\n"
B = "# Beta\n\n" + "beta words. " * 40 + "\n"
C = "# Gamma\n\nnever asked about\n"


def project(tmp_path: Path) -> Path:
    write_docs(tmp_path / "docs", {"a.md": A, "b.md": B, "c.md": C})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nsemantic: {enabled: false}\n", encoding="utf-8")
    return cfg


def test_stats_of_a_known_conversation(ctx, tmp_path):
    cfg = project(tmp_path)
    outputs = []
    for prompt in ("alpha", "beta", "quiet"):  # a HOT; b HOT + a WARM; a and b WARM
        data = json.loads(ctx("route", prompt, "-f", "json", "--config", str(cfg)).out)
        outputs.append(data["used_chars"])
    st = json.loads(ctx("stats", "--json", "--config", str(cfg)).out)
    assert st["turns"] == 3 and st["sessions"] == ["default"] and st["docs"] == 3
    assert st["chars_per_turn"]["max"] == max(outputs)
    assert abs(st["chars_per_turn"]["average"] - sum(outputs) / 3) < 0.1
    every = len(A) + len(B) + len(C)
    assert st["all_docs"]["chars"] == every
    assert st["saving"] == round(1 - (sum(outputs) / 3) / every, 4)
    shown = {d["path"]: (d["full"], d["header"], d["left_out"]) for d in st["shown"]}
    assert shown == {"a.md": (1, 2, 0), "b.md": (1, 1, 0)}
    assert st["never_shown"] == ["c.md"]
    assert {k["keyword"]: k["hits"] for k in st["top_keywords"]} == {"alpha": 1, "beta": 1}
    assert st["tokens_per_turn"]["average"] > 0 and st["all_docs"]["tokens"] > 0
    text = ctx("stats", "--config", str(cfg)).out
    assert "saving:" in text and "never shown: c.md" in text


def test_stats_table_keeps_the_end_of_a_long_path(ctx, tmp_path):
    """Tried as a new user would on a load tester's docs: four rows of the table read
    `docs/sources/k6/next/javascript-api/jslib/aw`, the paths cut where the docs of one folder begin to differ."""
    deep = "docs/sources/k6/next/javascript-api/jslib/aws/secretsmanagerclient"
    write_docs(tmp_path / "docs", {f"{deep}/listSecrets.md": "# listSecrets\n\nLists the secrets.\n",
                                   f"{deep}/getSecret.md": "# getSecret\n\nGets a secret.\n", "a.md": A})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nsemantic: {enabled: false}\n", encoding="utf-8")
    ctx("route", "listSecrets getSecret", "--config", str(cfg))
    rows = ctx("stats", "--config", str(cfg)).out.split("\n")
    table = rows[rows.index(next(r for r in rows if r.startswith("doc "))):]
    assert any(r.startswith("…") and "secretsmanagerclient/listSecrets.md" in r for r in table), table
    assert any("secretsmanagerclient/getSecret.md" in r for r in table), table
    assert len({len(r) for r in table[:3]}) == 1  # the columns line up


def test_stats_errors(ctx, tmp_path):
    cfg = project(tmp_path)
    res = ctx("stats", "--session", "nobody", "--config", str(cfg))
    assert res.code == 2 and "error: no turns recorded in session 'nobody'" in res.err


def test_chart_in_the_terminal_and_as_svg(ctx, tmp_path):
    cfg = project(tmp_path)
    for prompt in ("alpha", "beta", "quiet", "quiet"):
        ctx("route", prompt, "--config", str(cfg))
    svg = tmp_path / "attention.svg"
    res = ctx("chart", "--docs", "2", "--svg", str(svg), "--config", str(cfg))
    assert res.code == 0 and "File attention over time" in res.out and "HOT 0.80" in res.out
    doc = xml.dom.minidom.parse(str(svg))
    lines = doc.getElementsByTagName("polyline")
    assert [p.getAttribute("data-path") for p in lines] == ["a.md", "b.md"]
    points = lines[0].getAttribute("points").split()
    assert len(points) == 4  # one point a turn
    tiers = {t.getAttribute("data-tier") for t in doc.getElementsByTagName("line") if t.getAttribute("data-tier")}
    assert tiers == {"HOT", "WARM"}
    assert len(ctx("chart", "--last", "2", "--svg", str(svg), "--config", str(cfg)).out) > 0
    assert len(xml.dom.minidom.parse(str(svg)).getElementsByTagName("polyline")[0]
               .getAttribute("points").split()) == 2


def test_chart_errors(ctx, tmp_path):
    cfg = project(tmp_path)
    for args, message in ((["--docs", "0"], "--docs must be at least 1"),
                          (["--last", "0"], "--last must be at least 1"),
                          ([], "no turns recorded in session 'default'")):
        res = ctx("chart", *args, "--config", str(cfg))
        assert res.code == 2 and message in res.err
    ctx("route", "alpha", "--config", str(cfg))
    res = ctx("chart", "--svg", str(tmp_path / "missing" / "x.svg"), "--config", str(cfg))
    assert res.code == 2 and "cannot write" in res.err
