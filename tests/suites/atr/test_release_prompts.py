"""The release's prompt assets are read from the user's checkout (synthetic files here) and hashed."""

from __future__ import annotations

import json

import pytest

from longview.kernel.errors import DataError
from longview.suites.atr.release_prompts import AGENT_SECTIONS, DOMAINS, prompt_set, release_system_prompt


def release(tmp_path, drop: str | None = None):
    root = tmp_path / "rel"
    (root / "runner/prompts").mkdir(parents=True)
    (root / "runner/router_calibration/shots").mkdir(parents=True)
    (root / "runner/cls_calibration/shots").mkdir(parents=True)
    names = [n for n in AGENT_SECTIONS + tuple(f"domain_{d}" for d in DOMAINS) if n != drop]
    (root / "runner/prompts/agent.md").write_text("".join(f"--- {n} ---\nBLOCK {n}\n" for n in names))
    (root / "runner/prompts/router.md").write_text("ROUTER\n{{FEW_SHOT_EXAMPLES}}\n")
    (root / "runner/prompts/classifier.md").write_text("CLS\n{{FEW_SHOT_EXAMPLES}}\n")
    (root / "runner/prompts/user_sim.md").write_text("--- reply ---\nREPLY\n--- open ---\nOPEN\n")
    (root / "runner/router_calibration/shots/v1.json").write_text(json.dumps({"examples": [
        {"reason": "r", "output": "o?", "is_strict_rule_question": True, "rule_question_span": "o?"}]}))
    (root / "runner/cls_calibration/shots/v2.json").write_text(json.dumps({"match": [
        {"rule_pool": [{"rule_id": "a", "statement": "I like A."}], "agent_text": "A?", "rule_id": "a", "reasoning": "fits"}]}))
    (root / "runner/cls_calibration/shots/v10.json").write_text(json.dumps({"match": []}))
    return root


def test_release_prompt_set_is_read_hashed_and_assembled(tmp_path):
    root = release(tmp_path)
    ps = prompt_set(f"atrbench:{root}")
    assert ps.name == "atrbench-release" and ps.source == str(root)
    assert set(ps.hashes) == {"runner/prompts/agent.md", "runner/prompts/router.md", "runner/prompts/classifier.md",
                              "runner/prompts/user_sim.md", "runner/router_calibration/shots/v1.json",
                              "runner/cls_calibration/shots/v10.json"}  # the newest bank by number
    assert '"rule_question_span": "o?"' in ps.router and "{{" not in ps.router
    assert ps.user == {"open": "OPEN", "reply": "REPLY"}
    sp = release_system_prompt(ps, "atr", "travel", "learning", "[Session 1]\n[user]: hi")
    assert sp.split("\n\n") == ["BLOCK base", "BLOCK domain_travel", "<context>\n[Session 1]\n[user]: hi\n</context>",
                                "BLOCK mode_learning", "BLOCK send_protocol", "BLOCK standing_rule_def", "BLOCK variant_atr"]
    assert release_system_prompt(ps, "oracle_target", "travel", "test", "") == "BLOCK base\n\nBLOCK domain_travel\n\nBLOCK mode_test"


def test_without_release_prompts_longviews_own_set_runs(tmp_path):
    ps = prompt_set(f"atrbench:{tmp_path}")
    assert ps.name == "longview" and "base.md" in ps.hashes
    assert prompt_set("builtin").name == "longview"


def test_a_missing_block_names_the_file_and_section(tmp_path):
    root = release(tmp_path, drop="variant_atr")
    with pytest.raises(DataError, match="variant_atr"):
        prompt_set(f"atrbench:{root}")
