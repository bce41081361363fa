"""`bench run --dry-run` counts model calls and prices them, calling nothing."""

from __future__ import annotations


def test_dry_run_counts_target_and_judge_calls_and_calls_nothing(bench_cli, bench_suite_file, bench_fake_llm):
    path = bench_suite_file(
        """
        target: {type: litellm, model: openai/gpt-4o-mini}
        pricing:
          models:
            - {model: openai/judge, input_cost_per_million_tokens: 1, output_cost_per_million_tokens: 2}
        tasks:
          - id: a
            prompt: "What is the capital of France?"
            evaluate: {prompt: 'Is {response} right?', model: openai/judge, samples: 3}
          - id: b
            response: recorded
            evaluate: {prompt: 'Is {response} right?', models: [openai/judge, openai/gpt-4o-mini]}
        """
    )
    result = bench_cli("run", path, "--dry-run")
    assert result.exit_code == 0, result.output
    # gpt-4o-mini: one target call (task b is recorded) and one as a panel member; judge: 3 samples + 1
    assert "  openai/gpt-4o-mini: 2 calls, about " in result.stdout
    assert "  openai/judge: 4 calls, about " in result.stdout
    assert "6 model calls; cost at most $" in result.stdout
    assert bench_fake_llm.count() == 0


def test_dry_run_says_when_a_price_is_unknown(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "target: {type: litellm, model: openai/no-such-model}\ntasks:\n  - {id: a, prompt: q, evaluate: {expected: x}}\n"
    )
    result = bench_cli("run", path, "--dry-run")
    assert "1 model calls; cost unknown (a model has no price; add pricing.models)" in result.stdout


def test_dry_run_with_batch_shows_the_batch_price_beside_the_live_price(
    bench_cli, bench_suite_file, bench_fake_llm
):
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\n"
        "pricing: {models: [{model: openai/fake, input_cost_per_million_tokens: 1000, "
        "output_cost_per_million_tokens: 2000}]}\n"
        "tasks:\n  - {id: a, prompt: q, evaluate: {type: contains, value: q}}\n"
    )
    result = bench_cli("run", path, "--dry-run", "--batch")
    assert result.exit_code == 0, result.output
    # 1 input token, 512 output tokens at most: $1.0250 live, half of it in a batch
    assert (
        "  openai/fake: 1 calls, about 1 input tokens, at most 512 output tokens, at most $1.0250 live, $0.5125 in a batch"
        in result.stdout
    )
    assert "1 model calls; cost at most $1.0250 live, $0.5125 with the batch price" in result.stdout
    assert bench_fake_llm.batches.count("POST /v1/batches") == 0
    live = bench_cli("run", path, "--dry-run")
    assert "1 model calls; cost at most $1.0250\n" in live.stdout
