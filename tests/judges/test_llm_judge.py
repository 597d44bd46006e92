"""The LLM-judge plumbing every suite shares: one retry on a malformed verdict, then an abort that
names the role and both faults; a suite's own reading (``ask_with``) retries on ValueError only."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from longview.harness.roles import Roles
from longview.judges.base import LLMJudge
from longview.kernel.errors import CellAborted
from longview.kernel.models.mock import register_script, unregister_script


class Yes(BaseModel):
    yes: bool


@pytest.fixture
def judge():
    made: list[str] = []

    def make(name: str, answers: list[str]) -> LLMJudge[Yes]:
        register_script(name, answers)
        made.append(name)
        return LLMJudge(Roles({"judge": f"mock/{name}"}).client("judge"), Roles({}).params("judge"), "sys", Yes, "judge")

    yield make
    for name in made:
        unregister_script(name)


def test_a_malformed_verdict_is_retried_once(judge):
    assert asyncio.run(judge("j_retry", ["nope", '{"yes": true}']).ask({"q": 1})) == Yes(yes=True)


def test_two_malformed_verdicts_abort_naming_role_and_both_faults(judge):
    with pytest.raises(CellAborted, match=r"judge judge llm:mock/j_bad: malformed verdict twice: .*'nope' \| .*maybe"):
        asyncio.run(judge("j_bad", ["nope", '{"yes": "maybe"}']).ask({"q": 1}))


def test_ask_with_retries_the_suites_value_errors_and_passes_other_errors_through(judge):
    def even(text: str | None) -> int:
        n = int(text or "")  # a ValueError: a fault worth a retry
        if n % 2:
            raise ValueError(f"odd {n}")
        return n

    assert asyncio.run(judge("j_even", ["3", "4"]).ask_with({}, even)) == 4
    with pytest.raises(CellAborted, match=r"malformed verdict twice for item 7: odd 3 \| odd 5"):
        asyncio.run(judge("j_odd", ["3", "5"]).ask_with({}, even, " for item 7"))

    def fatal(text: str | None) -> int:
        raise CellAborted("not even an object")

    calls = judge("j_fatal", ["x", "y"])
    with pytest.raises(CellAborted, match="not even an object"):
        asyncio.run(calls.ask_with({}, fatal))


def test_an_input_over_the_cap_is_never_sent(judge):
    from longview.judges.base import MAX_INPUT_CHARS

    j = judge("j_big", ['{"yes": true}'])
    with pytest.raises(CellAborted, match="judge judge llm:mock/j_big: an input of .* characters, over the .*not sent"):
        asyncio.run(j.ask({"q": "x" * MAX_INPUT_CHARS}))
    assert asyncio.run(j.ask({"q": "x"})) == Yes(yes=True)  # the scripted answer was not used up by the refused one
