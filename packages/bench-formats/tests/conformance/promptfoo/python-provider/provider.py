"""An offline Python provider for the python-provider case: promptfoo calls call_api by default."""


def call_api(prompt, options, context):
    topic = context["vars"]["topic"]
    if topic == "fail":
        return {"error": "the provider refused: fail"}
    if topic == "json please":
        return {"output": {"topic": topic, "length": len(prompt)}}
    greeting = options.get("config", {}).get("greeting", "Hi")
    audience = context.get("test", {}).get("metadata", {}).get("audience", "all")
    return {
        "output": f"{greeting}! {prompt} [{topic}/{audience}]",
        "tokenUsage": {"total": 12, "prompt": 8, "completion": 4},
        "cost": 0.002,
        "metadata": {"config": options.get("config", {})},
    }


def some_other_function(prompt, options, context):
    result = call_api(prompt + "\nWrite in ALL CAPS", options, context)
    if isinstance(result.get("output"), str):
        result["output"] = result["output"].upper()
    return result


async def async_provider(prompt, options, context):
    return call_api(prompt, options, context)
