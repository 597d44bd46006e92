"""The model-judged BRS: one probe at a time, the delivered replies and executed trajectory against
the target setting's observable definition, on a 1-5 conformity scale."""

from __future__ import annotations

from pydantic import BaseModel, Field

from longview.judges.base import LLMJudge
from longview.kernel.models.client import GenParams, ModelClient
from longview.suites.prefs.model import Attribute
from longview.suites.prefs.scenes import Scene
from longview.suites.prefs.wrapper import Realization

JUDGE_SYSTEM = """You rate how closely an assistant's delivered behaviour in one conversation follows one
interaction setting. You get the user's request, the replies the user actually saw, the actions that actually
ran (and those held or not performed), and the setting with its observable definition.
Score 1-5: 5 = every condition of the definition is visibly met; 3 = some are; 1 = the behaviour shows the
opposite or another setting. Judge only the setting, not whether the task was done well. Asking the user which
way they want it scores 1. Evidence must quote the replies verbatim or name an action.
Answer with one JSON object: {"score": <1-5>, "rationale": "<one sentence>", "evidence": ["..."], "flags": []}"""


class BRSVerdict(BaseModel):
    score: int = Field(ge=1, le=5, description="Conformity 1-5.")
    rationale: str = Field(default="", description="One sentence.")
    evidence: list[str] = Field(default_factory=list, description="Verbatim quotes or action names.")
    flags: list[str] = Field(default_factory=list, description="e.g. degenerate probe.")


class BRSJudge:
    """A judge model scoring BRS; ``name`` is llm:<model>."""

    def __init__(self, client: ModelClient, params: GenParams) -> None:
        self.llm = LLMJudge(client, params, JUDGE_SYSTEM, BRSVerdict, role="judge")
        self.name = self.llm.name

    @staticmethod
    def payload(scene: Scene, attr: Attribute, target: str, r: Realization) -> dict:
        s = attr.setting(target)
        return {
            "request": scene.request,
            "setting": {"aspect": attr.name, "name": s.label, "definition": s.definition},
            "replies": [d.text for d in r.deliveries if not d.suppressed],
            "withheld_notices": sum(d.suppressed for d in r.deliveries),
            "actions": [{"turn": a.turn, "tool": a.name, "arguments": a.args, "status": a.status} for a in r.actions],
        }

    async def score(self, scene: Scene, attr: Attribute, target: str, r: Realization) -> int:
        return (await self.llm.ask(self.payload(scene, attr, target, r))).score
