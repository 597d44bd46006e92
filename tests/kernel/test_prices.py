"""Prices: the user's first, then longview's dated table; dry-run dollars; bad price input is one message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.kernel.errors import ConfigError, LongviewError
from longview.kernel.models.prices import (
    PRICES,
    PRICES_AS_OF,
    Price,
    load_prices_file,
    lookup_price,
    parse_price,
    priced,
)

runner = CliRunner()


def test_the_table_is_dated_and_covers_the_readme_models():
    assert re.fullmatch(r"\d{4}-\d{2}", PRICES_AS_OF)
    for model in ("openai/gpt-5.4", "openai/gpt-5.4-mini", "anthropic/claude-opus-4-7"):
        assert PRICES[model].input > 0 and PRICES[model].output > PRICES[model].input


def test_given_prices_come_first_and_dated_names_share_the_base_price():
    mine = {"openai/gpt-5.4": Price(input=1, cached=0.5, output=2)}
    assert priced("openai/gpt-5.4", mine) == (mine["openai/gpt-5.4"], "given")
    assert priced("openai/gpt-5.4")[1] == f"longview {PRICES_AS_OF}"
    assert lookup_price("anthropic/claude-sonnet-4-20250514") == PRICES["anthropic/claude-sonnet-4"]
    assert priced("hosted_vllm/my-model") == (None, "unpriced")


def test_parse_price_takes_input_output_and_optional_cached():
    assert parse_price("openai/x=2.5/15") == ("openai/x", Price(input=2.5, cached=2.5, output=15))
    assert parse_price(" openai/x=2.5/15/0.25 ") == ("openai/x", Price(input=2.5, cached=0.25, output=15))


@pytest.mark.parametrize("spec", ["openai/x", "openai/x=2.5", "openai/x=a/b", "openai/x=1/2/3/4", "openai/x=-1/2",
                                  "openai/x=nan/2", "=1/2", "openai/x=inf/1"])
def test_parse_price_refuses_what_is_not_a_price(spec: str):
    with pytest.raises(ConfigError, match="--price"):
        parse_price(spec)


def test_prices_file_json_and_yaml(tmp_path: Path):
    js = tmp_path / "p.json"
    js.write_text(json.dumps({"hosted_vllm/m": {"input": 0.1, "output": 0.2}}))
    assert load_prices_file(js) == {"hosted_vllm/m": Price(input=0.1, cached=0.1, output=0.2)}
    ym = tmp_path / "p.yaml"
    ym.write_text("ollama/q:\n  input: 0\n  output: 0\n  cached: 0\n")
    assert load_prices_file(ym)["ollama/q"] == Price(input=0, cached=0, output=0)


@pytest.mark.parametrize("content, expected", [
    ("[1, 2]", "expected a mapping"),
    ('{"m/x": {"input": 1}}', "m/x.output"),
    ('{"m/x": {"input": "cheap", "output": 1}}', "m/x.input"),
    ('{"m/x": {"input": 1, "output": 1, "discount": 3}}', "m/x.discount"),
    ('{"m/x": {"input": -1, "output": 1}}', "m/x.input"),
    ('{"m/x": ', "not valid JSON"),
])
def test_a_bad_prices_file_names_the_file_and_the_field(tmp_path: Path, content: str, expected: str):
    f = tmp_path / "prices.json"
    f.write_text(content)
    with pytest.raises(LongviewError, match=re.escape(expected)) as e:
        load_prices_file(f)
    assert str(f) in str(e.value)


def _usd_total(output: str) -> float:
    m = re.search(r"│ total\s*│.*?~([\d.]+)", output)
    assert m, output
    return float(m.group(1))


def test_dry_run_prints_dollars_and_price_changes_them():
    base = runner.invoke(app, ["run", "atr", "--model", "openai/gpt-5.4", "--dry-run"], terminal_width=200)
    assert base.exit_code == 0, base.output
    assert "unpriced" not in base.output and f"longview {PRICES_AS_OF}" in base.output
    cheaper = runner.invoke(app, ["run", "atr", "--model", "openai/gpt-5.4", "--price", "openai/gpt-5.4=0.25/1.5",
                                  "--dry-run"], terminal_width=200)
    assert cheaper.exit_code == 0, cheaper.output
    assert _usd_total(base.output) > 0
    assert _usd_total(cheaper.output) == pytest.approx(_usd_total(base.output) / 10, rel=0.02)


def test_dry_run_names_an_unpriced_model_instead_of_showing_zero():
    r = runner.invoke(app, ["run", "atr", "--model", "hosted_vllm/mine", "--dry-run"], terminal_width=200)
    assert r.exit_code == 0, r.output
    assert "no price known for hosted_vllm/mine" in r.output and "unpriced" in r.output


def test_a_bad_price_flag_is_one_message_and_exit_2(tmp_path: Path):
    r = runner.invoke(app, ["run", "atr", "--model", "openai/gpt-5.4", "--price", "openai/gpt-5.4=1/x", "--dry-run"])
    assert r.exit_code == 2 and "--price" in r.output and "Traceback" not in r.output
    bad = tmp_path / "p.json"
    bad.write_text("[]")
    r = runner.invoke(app, ["run", "atr", "--model", "openai/gpt-5.4", "--prices", str(bad), "--dry-run"])
    assert r.exit_code == 2 and str(bad) in r.output


def test_a_run_costs_what_the_given_price_says(tmp_path: Path):
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", "atr", "--model", "mock/echo", "--personas", "1", "--variant", "default",
                            "--price", "mock/echo=1000/1000", "--out", str(out), "--no-cache"])
    assert r.exit_code == 0, r.output
    usage = json.loads((out / "manifest.json").read_text())["usage"]["roles"]["agent"]
    assert usage["cost_known"] is True
    tokens = usage["input_tokens"] + usage["output_tokens"]
    assert tokens > 0 and usage["cost_usd"] == pytest.approx(tokens / 1000, rel=1e-6)


def test_litellm_table_is_used_when_installed_and_never_over_the_given_or_own(monkeypatch):
    import sys
    import types

    from longview.kernel.models import prices

    fake = types.ModuleType("litellm")
    fake.model_cost = {  # type: ignore[attr-defined]
        "some-open-model": {"input_cost_per_token": 1e-7, "output_cost_per_token": 2e-7},
        "gpt-5.4": {"input_cost_per_token": 9e-6, "output_cost_per_token": 9e-6},
    }
    monkeypatch.setitem(sys.modules, "litellm", fake)
    prices._litellm_price.cache_clear()
    try:
        got, source = priced("openrouter/some-open-model")
        assert source == "litellm" and got is not None
        assert (got.input, got.cached, got.output) == pytest.approx((0.1, 0.1, 0.2))
        assert priced("openai/gpt-5.4")[1] == f"longview {PRICES_AS_OF}"  # the dated table wins
    finally:
        prices._litellm_price.cache_clear()
