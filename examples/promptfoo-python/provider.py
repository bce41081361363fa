"""A promptfoo Python provider: it "summarises" by keeping the text's first sentence (offline)."""


def call_api(prompt, options, context):
    text = context["vars"]["text"]
    first = text.split(". ")[0].rstrip(".") + "."
    return {
        "output": first + options["config"].get("suffix", ""),
        "tokenUsage": {"prompt": len(prompt.split()), "completion": len(first.split())},
    }
