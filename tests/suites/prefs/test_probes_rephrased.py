"""The fourth probe for prefs: the oracle's choices with its replies worded its own way (other
greetings and sign-offs for a tone, the consultative question asked differently, reasons and
answers paraphrased). PSA reads the selection, so it must not move; BRS and PRS read the reply,
and must stay far above the floor (BRS 1) — if they fell there the checks would be bound to
the reference agent's words rather than to the behaviour. Measured 2026-12-02 with the oracle memory:
user_a PSA 1.00 / BRS 5.00 / PRS 5.00 for both; user_b the same PSA, BRS 4.93 and PRS 4.89 against
5.00: its casual-tone probe written "Hiya - ... Cheers!" is observed as no setting (BRS 3, PRS 2), the
embedded reader knowing neither word as casual.

Also here: an agent calling every offered tool (every set_<attribute> with every setting, every
other tool with every id it saw) scores PSA, CS, PET and carry-over 0, BRS and PRS 1."""

from __future__ import annotations

import pytest

from longview.suites.prefs.agents import OraclePA

from .test_probes import run


class RephrasedOraclePA(OraclePA):
    name = "probe:rephrased-oracle"

    def payload(self, attr, setting, kit):
        p = super().payload(attr, setting, kit)
        if attr.id == "tone_formality":
            p["answer"] = {"casual": f"Hiya - {kit.answer[0].lower() + kit.answer[1:]} Cheers!",
                           "formal": f"Dear colleague, {kit.answer} With best regards.",
                           "consultative": f"{kit.answer} How would you like to go about it - does that suit you?"}[setting]
        if p.get("basis"):
            p["basis"] = "My reasoning: " + p["basis"][0].lower() + p["basis"][1:]
        return p


@pytest.mark.parametrize("unit", ["user_a", "user_b"])
def test_the_oracle_in_other_words_keeps_its_scores(tmp_path, unit):
    ref, _ = run(tmp_path / "ref", lambda s: OraclePA(s), memory="oracle", unit=unit)
    mine, res = run(tmp_path / "mine", RephrasedOraclePA, memory="oracle", unit=unit)
    print(unit, {k: ref.metrics[k] for k in ("psa", "brs", "prs")}, {k: mine.metrics[k] for k in ("psa", "brs", "prs")})
    assert mine.metrics["psa"] == ref.metrics["psa"]
    assert mine.metrics["brs"] >= ref.metrics["brs"] - 0.25 and mine.metrics["prs"] >= ref.metrics["prs"] - 0.25
    assert not any(p.capability_failure for p in res.probes)


class ToolSpamPA:
    """Calls every offered tool: the search/list tools first, then every other tool with every id
    seen and every setting of every set_<attribute> tool, then a respond with every field filled."""

    name = "probe:tool-spam"

    def __init__(self, scenes) -> None:
        self.scenes = scenes
        self.n = 0

    def fork(self):
        return ToolSpamPA(self.scenes)

    async def act(self, obs):
        import json

        from longview.kernel.agent import AssistantTurn, ToolCall
        from longview.suites.prefs.wrapper import RESPOND

        from .prefs_probes import every_field

        mine = sum(1 for m in obs.messages if m.role == "assistant")
        fns = [t["function"] for t in obs.tools]

        def call(name, args):
            self.n += 1
            return ToolCall(id=f"spam{self.n}", name=name, arguments=args)

        if mine == 0:
            return AssistantTurn(tool_calls=[call(f["name"], {}) for f in fns
                                             if not f.get("parameters", {}).get("required")
                                             and f["name"] != RESPOND and not f["name"].startswith("set_")])
        if mine == 1:
            ids: list[str] = []
            for m in obs.messages:
                if m.role == "tool" and m.content:
                    try:
                        ids += [v for v in _strings(json.loads(m.content)) if "_" in v and " " not in v and len(v) < 40]
                    except ValueError:
                        pass
            calls = []
            for f in fns:
                props = f.get("parameters", {}).get("properties", {})
                if f["name"] == RESPOND:
                    continue
                if f["name"].startswith("set_"):
                    calls += [call(f["name"], {"setting": s}) for s in props.get("setting", {}).get("enum", [])]
                    continue
                idk = next((k for k in props if k.endswith("_id")), None)
                if idk:
                    calls += [call(f["name"], {idk: i}) for i in dict.fromkeys(ids)]
            return AssistantTurn(tool_calls=calls)
        if mine == 2:
            scene = self.scenes.get(obs.session_id.split("~")[0])
            return AssistantTurn(tool_calls=[call(RESPOND, every_field(scene.kit) if scene else {"answer": "Done."})])
        return AssistantTurn(text="Understood.")


def _strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def test_calling_every_tool_with_every_id_scores_at_the_floor(tmp_path):
    row, res = run(tmp_path, ToolSpamPA, memory="file")
    m = row.metrics
    print({k: m[k] for k in ("psa", "cs", "pet", "carry_over", "brs", "prs")})
    assert m["psa"] == 0 and m["cs"] == 0 and m["pet"] == 0 and m["carry_over"] == 0
    assert m["brs"] == 1 and m["prs"] == 1
    assert all(p.capability_failure for p in res.probes)  # several settings at once is no selection

