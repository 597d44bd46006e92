"""Seeds reach the models that accept one: the agent's per trial, suite roles' the run's, a given one as is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from longview.cli import app
from longview.kernel.models import GenParams
from longview.kernel.models.openai_compat import OpenAICompatClient
from longview.kernel.models.providers import split_model
from longview.testing.loopback import LoopbackServer, finish_or_send

runner = CliRunner()


def _run(tmp_path: Path, *extra: str) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    def agent(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        return finish_or_send(body)

    with LoopbackServer(agent=agent).in_thread() as server:
        r = runner.invoke(app, ["run", "intents", "--model", "hosted_vllm/probe", "--api-base", server.url,
                                "--personas", "1", "--out", str(tmp_path / "run"), "--no-cache", *extra])
    assert r.exit_code == 0, r.output
    return seen


def test_each_trial_sends_its_own_seed_and_the_seed_follows_the_run_seed(tmp_path: Path):
    seen = _run(tmp_path / "a", "--trials", "2", "--seed", "7")
    seeds = {b["seed"] for b in seen}
    assert seeds == {7000, 7001}  # --seed 7, trials 0 and 1


def test_a_seed_given_with_param_is_sent_as_given(tmp_path: Path):
    seen = _run(tmp_path / "b", "--param", "agent.seed=42", "--trials", "2")
    assert {b["seed"] for b in seen} == {42}


def test_providers_without_a_seed_field_never_get_one():
    params = GenParams(seed=3)
    for model, field in (("openai/gpt-5.4", "seed"), ("mistral/mistral-large", "random_seed"),
                         ("deepseek/deepseek-chat", None)):
        spec, name = split_model(model)
        body = OpenAICompatClient(model, spec, name, api_base="http://127.0.0.1:9").request_body("s", [], [], params)
        assert ({k: v for k, v in body.items() if k in ("seed", "random_seed")}) == ({field: 3} if field else {})
