"""A 20-turn conversation over docs-sample, with the tiers asserted turn by turn.

The expectations follow from the rules: hits go to 1.0, `systems/` decays at 0.80 (vault at its own 0.8),
the rest at 0.70, co-activation adds 0.35, overview.md is pinned WARM, at most 4 HOT (overflow shown WARM
first) and 8 WARM.
"""

import json

from context_router.entry import main

CONVERSATION = [
    ('the gpu on lighthouse is running hot',
     ['systems/lighthouse.md'],
     ['integrations/kestrel-to-lighthouse.md', 'modules/vision.md', 'overview.md']),
    ('anything new since yesterday?',
     ['systems/lighthouse.md'],
     ['overview.md']),
    ('ok, thanks',
     [],
     ['systems/lighthouse.md', 'overview.md']),
    ('let me think about it',
     [],
     ['systems/lighthouse.md', 'overview.md']),
    ('hmm',
     [],
     ['systems/lighthouse.md', 'overview.md']),
    ('still thinking',
     [],
     ['systems/lighthouse.md', 'overview.md']),
    ('right',
     [],
     ['systems/lighthouse.md', 'overview.md']),
    ('go on',
     [],
     ['overview.md']),
    ('is the vault zfs pool scrub done?',
     ['systems/vault.md'],
     ['overview.md']),
    ('how big is the review queue in the archive?',
     ['modules/archive.md', 'systems/vault.md'],
     ['overview.md']),
    ('fine',
     ['systems/vault.md'],
     ['modules/archive.md', 'overview.md']),
    ('tonight the kestrel dome stays shut, check the scheduler cadence',
     ['modules/scheduler.md', 'systems/kestrel.md'],
     ['systems/vault.md', 'modules/archive.md', 'integrations/kestrel-to-lighthouse.md', 'overview.md']),
    ('lighthouse kestrel vault gatekeeper vision alerts: all healthy?',
     ['modules/alerts.md', 'modules/vision.md', 'systems/gatekeeper.md', 'systems/kestrel.md'],
     ['systems/lighthouse.md', 'systems/vault.md', 'modules/scheduler.md', 'integrations/kestrel-to-lighthouse.md', 'integrations/gatekeeper-vpn.md', 'integrations/vision-to-archive.md', 'modules/archive.md', 'overview.md']),
    ('and the wireguard vpn for remote access',
     ['integrations/gatekeeper-vpn.md', 'systems/gatekeeper.md', 'systems/kestrel.md', 'systems/lighthouse.md'],
     ['systems/vault.md', 'modules/scheduler.md', 'modules/alerts.md', 'modules/vision.md', 'integrations/kestrel-to-lighthouse.md', 'overview.md']),
    ('nothing else',
     ['systems/gatekeeper.md'],
     ['integrations/gatekeeper-vpn.md', 'systems/kestrel.md', 'systems/lighthouse.md', 'systems/vault.md', 'modules/scheduler.md', 'modules/alerts.md', 'modules/vision.md', 'integrations/kestrel-to-lighthouse.md']),
    ('ok',
     [],
     ['systems/gatekeeper.md', 'systems/kestrel.md', 'systems/lighthouse.md', 'systems/vault.md', 'integrations/gatekeeper-vpn.md', 'modules/scheduler.md', 'modules/alerts.md', 'modules/vision.md']),
    ('what pages the on call observer for a fast mover?',
     ['modules/alerts.md'],
     ['systems/gatekeeper.md', 'systems/kestrel.md', 'systems/lighthouse.md', 'systems/vault.md', 'integrations/gatekeeper-vpn.md', 'overview.md']),
    ('quiet night',
     [],
     ['modules/alerts.md', 'systems/gatekeeper.md', 'systems/kestrel.md', 'systems/lighthouse.md', 'systems/vault.md', 'overview.md']),
    ('systems/lighthouse.md please',
     ['systems/lighthouse.md'],
     ['modules/alerts.md', 'modules/vision.md', 'integrations/kestrel-to-lighthouse.md', 'systems/gatekeeper.md', 'systems/kestrel.md', 'systems/vault.md', 'overview.md']),
    ('thanks, bye',
     ['systems/lighthouse.md'],
     ['modules/alerts.md', 'modules/vision.md', 'integrations/kestrel-to-lighthouse.md', 'systems/gatekeeper.md', 'overview.md']),
]


def keyword_core(sample):
    """The sample config with the semantic layer off: these turns check the keyword core's rules alone."""
    sample.write_text(sample.read_text(encoding="utf-8") + "semantic: {enabled: false}\n", encoding="utf-8")
    return sample


def test_twenty_turns(sample, capsys):
    keyword_core(sample)
    for turn, (prompt, hot, warm) in enumerate(CONVERSATION, 1):
        capsys.readouterr()
        assert main(["route", prompt, "--format", "json", "--config", str(sample)]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["turn"] == turn
        shown_hot = [f["path"] for f in data["files"] if f["tier"] == "HOT"]
        shown_warm = [f["path"] for f in data["files"] if f["tier"] == "WARM"]
        assert (shown_hot, shown_warm) == (hot, warm), f"turn {turn}: {prompt!r}"
        assert len(data["context"]) <= data["budget_chars"]
        if turn == 7:
            lighthouse = next(f for f in data["files"] if f["path"] == "systems/lighthouse.md")
            assert round(lighthouse["score"], 4) == round(0.8 ** 6, 4)  # six quiet turns at 0.80


def test_decay_to_cold_on_the_fifth_quiet_turn(sample, capsys):
    keyword_core(sample)
    seen = []
    for prompt in ["telemetry please", "a", "b", "c", "d"]:
        capsys.readouterr()
        main(["route", prompt, "--format", "json", "--config", str(sample)])
        files = {f["path"]: f for f in json.loads(capsys.readouterr().out)["files"]}
        seen.append(files.get("modules/telemetry.md", {}).get("score"))
    assert seen[:4] == [1.0, 0.7, 0.49, 0.343]
    assert seen[4] is None  # 0.2401: COLD, no longer shown
