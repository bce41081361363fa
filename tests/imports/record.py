"""Re-record the import fixtures: real files written by the real tools, run offline. By hand only.

    python tests/imports/record.py TOOL [--python PYTHON]

TOOL is one of

- ``inspect``: inspect_ai's logs (``.eval`` and ``.json``) of a two-sample task whose model calls a
  tool, against bench's fake OpenAI-compatible server on 127.0.0.1. ``--python``: a Python with
  ``inspect_ai`` and ``openai`` installed (a throwaway venv).
- ``lm-eval``: lm-evaluation-harness's ``--log_samples`` file of a two-question ``generate_until``
  task read from a local JSON Lines dataset, answered by the fake server through
  ``local-chat-completions`` (``--python``: a Python with ``lm-eval[api]``).
- ``otlp``: an OTLP JSON trace of a small tool-using agent with the OpenTelemetry GenAI attributes,
  written by the OpenTelemetry SDK (``--python``: a Python with ``opentelemetry-sdk`` and
  ``opentelemetry-exporter-otlp-proto-common``): spans encoded by the OTLP exporter's own encoder,
  then as protobuf JSON.
- ``promptfoo``: ``npx -y promptfoo@0.121.20 eval`` of promptfoo's example-simple-csv config (from
  the conformance corpus) with ``--providers echo``, as the conformance corpus records it.

The files land beside this script. No test runs it: the tests read what it wrote.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.testing.server import FakeLLMServer, Reply

HERE = Path(__file__).resolve().parent
PROMPTFOO = "0.121.20"

INSPECT_TASK = '''
import sys
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool


@tool
def add():
    async def execute(x: int, y: int):
        """Add two numbers.

        Args:
            x: The first number.
            y: The second number.
        """
        return x + y

    return execute


task = Task(
    name="arithmetic",
    dataset=[
        Sample(id="one-plus-one", input="What is 1+1?", target="2"),
        Sample(id="two-plus-three", input="What is 2+3?", target="5"),
    ],
    solver=[use_tools(add()), generate()],
    scorer=includes(),
)
for fmt in ("eval", "json"):
    eval(
        task,
        model="openai/fake-model",
        model_args={"responses_api": False},
        log_dir=sys.argv[1],
        log_format=fmt,
        display="none",
    )
'''

DEFLATE = """
import sys, zipfile
from inspect_ai._util.zipfile import zipfile_compress_kwargs  # noqa: F401  (installs zstd support)
source = sys.argv[1]
with zipfile.ZipFile(source) as old, zipfile.ZipFile(source.replace(".eval", "-deflate.eval"), "w") as new:
    for name in old.namelist():
        new.writestr(name, old.read(name), compress_type=zipfile.ZIP_DEFLATED)
"""

OTLP_AGENT = """
import json
import sys

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.trace import Status, StatusCode

exporter = InMemorySpanExporter()
provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent"}))
provider.add_span_processor(SimpleSpanProcessor(exporter))
tracer = provider.get_tracer("weather-agent", "1.0")


def chat(inputs, outputs, tokens):
    with tracer.start_as_current_span("chat fake-model") as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        span.set_attribute("gen_ai.provider.name", "openai")
        span.set_attribute("gen_ai.request.model", "fake-model")
        span.set_attribute("gen_ai.input.messages", json.dumps(inputs))
        span.set_attribute("gen_ai.output.messages", json.dumps(outputs))
        span.set_attribute("gen_ai.usage.input_tokens", tokens[0])
        span.set_attribute("gen_ai.usage.output_tokens", tokens[1])


def tool(name, call_id, arguments, result, error=None):
    with tracer.start_as_current_span(f"execute_tool {name}") as span:
        span.set_attribute("gen_ai.operation.name", "execute_tool")
        span.set_attribute("gen_ai.tool.name", name)
        span.set_attribute("gen_ai.tool.call.id", call_id)
        span.set_attribute("gen_ai.tool.call.arguments", json.dumps(arguments))
        if error:
            span.set_attribute("error.type", "ToolError")
            span.set_status(Status(StatusCode.ERROR, error))
            span.set_attribute("gen_ai.tool.call.result", error)
        else:
            span.set_attribute("gen_ai.tool.call.result", result)


def call(call_id, name, arguments):
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}


def agent(conversation, question, steps, answer):
    user = [{"role": "user", "parts": [{"type": "text", "content": question}]}]
    with tracer.start_as_current_span("invoke_agent weather") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("gen_ai.agent.name", "weather")
        root.set_attribute("gen_ai.conversation.id", conversation)
        history = list(user)
        for call_id, name, arguments, result, error in steps:
            out = [{"role": "assistant", "parts": [call(call_id, name, arguments)], "finish_reason": "tool_call"}]
            chat(history, out, (40, 12))
            tool(name, call_id, arguments, result, error)
            history += out + [{"role": "tool", "parts": [
                {"type": "tool_call_response", "id": call_id, "response": error or result}]}]
        final = [{"role": "assistant", "parts": [{"type": "text", "content": answer}], "finish_reason": "stop"}]
        chat(history, final, (60, 9))
        root.set_attribute("gen_ai.input.messages", json.dumps(user))
        root.set_attribute("gen_ai.output.messages", json.dumps(final))


agent("paris-weather", "What is the weather in Paris, in Fahrenheit?", [
    ("call_1", "get_weather", {"city": "Paris"}, "18 C, sunny", None),
    ("call_2", "convert_units", {"value": 18, "to": "F"}, "64.4 F", None),
], "It is 64.4 F and sunny in Paris.")
agent("oslo-weather", "What is the weather in Oslo?", [
    ("call_3", "get_weather", {"city": "Olso"}, None, "unknown city: Olso"),
    ("call_4", "get_weather", {"city": "Oslo"}, "3 C, snow", None),
], "It is 3 C with snow in Oslo.")
request = encode_spans(exporter.get_finished_spans())
with open(sys.argv[1], "w") as out:
    json.dump(MessageToDict(request), out, indent=1)
    out.write("\\n")
"""


def _arithmetic(body: dict[str, Any]) -> Reply:
    """The model's side: a call of ``add`` first, then an answer (wrong for 2+3) once it returned."""
    question = body["messages"][0]["content"]
    x, y = (1, 1) if "1+1" in question else (2, 3)
    if not any(m["role"] == "tool" for m in body["messages"]):
        return Reply(None, tool_calls=[{"name": "add", "arguments": {"x": x, "y": y}}])
    return Reply(f"{x} + {y} = {2 if x == 1 else 6}")


def inspect(python: str) -> None:
    with FakeLLMServer() as server, tempfile.TemporaryDirectory() as logs:
        server.default = _arithmetic
        env = {**os.environ, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": server.url}
        subprocess.run([python, "-c", INSPECT_TASK, logs], env=env, check=True)
        for log in Path(logs).iterdir():
            shutil.copy(log, HERE / f"inspect-arithmetic{log.suffix}")
    # inspect_ai writes zstd (which Python reads from 3.14 on); before 0.3.1xx it wrote deflate:
    # the same log re-packed with deflate, by inspect_ai's own zip patches.
    subprocess.run([python, "-c", DEFLATE, str(HERE / "inspect-arithmetic.eval")], check=True)


LM_EVAL_TASK = """task: arith
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n"]
metric_list:
  - metric: exact_match
"""


def lm_eval(python: str) -> None:
    with FakeLLMServer() as server, tempfile.TemporaryDirectory() as scratch:
        server.add(Reply("2"), match="1+1")
        server.add(Reply("6"), match="2+3")
        folder = Path(scratch)
        data = folder / "arith.jsonl"
        data.write_text('{"question": "1+1", "answer": "2"}\n{"question": "2+3", "answer": "5"}\n')
        (folder / "arith.yaml").write_text(LM_EVAL_TASK.format(data=data))
        args = f"model=fake-model,base_url={server.url}/chat/completions,num_concurrent=1,max_retries=1"
        command = [python, "-m", "lm_eval", "--model", "local-chat-completions", "--model_args", args]
        command += ["--tasks", "arith", "--include_path", scratch, "--apply_chat_template"]
        command += ["--log_samples", "--output_path", str(folder / "out")]
        env = {**os.environ, "OPENAI_API_KEY": "sk-test", "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
        subprocess.run(command, env=env, check=True)
        for samples in (folder / "out").rglob("samples_*.jsonl"):
            shutil.copy(samples, HERE / samples.name)


def otlp(python: str) -> None:
    subprocess.run([python, "-c", OTLP_AGENT, str(HERE / "otlp-weather-agent.json")], check=True)


def promptfoo() -> None:
    case = (
        HERE.parents[1]
        / "packages"
        / "bench-formats"
        / "tests"
        / "conformance"
        / "promptfoo"
        / "example-simple-csv"
    )
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "PROMPTFOO_DISABLE_SHARING": "1",
            "PROMPTFOO_CONFIG_DIR": str(Path(scratch) / ".promptfoo"),
            "PROMPTFOO_CACHE_ENABLED": "false",
        }
        command = ["npx", "-y", f"promptfoo@{PROMPTFOO}", "eval", "-c", "promptfooconfig.yaml"]
        command += ["--providers", "echo", "--no-cache", "--no-table", "--no-progress-bar", "--no-write"]
        command += ["-j", "1", "-o", str(HERE / "promptfoo-example-simple-csv.json")]
        subprocess.run(command, cwd=case, env=env, check=False)  # exit 100: some test failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tool", choices=["inspect", "lm-eval", "otlp", "promptfoo"])
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    if args.tool == "promptfoo":
        promptfoo()
    else:
        {"inspect": inspect, "lm-eval": lm_eval, "otlp": otlp}[args.tool](args.python)


if __name__ == "__main__":
    main()
