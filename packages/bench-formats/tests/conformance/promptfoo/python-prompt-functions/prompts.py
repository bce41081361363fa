"""Prompt functions for the python-prompt-functions conformance case."""


def plain(context):
    return f"Write a haiku about {context['vars']['topic']} for {context['provider']['id']}"


def as_chat(context):
    return [
        {"role": "system", "content": "You are a poet."},
        {"role": "user", "content": "Write about {{topic}}"},
    ]


def with_config(context):
    return {"prompt": f"In a {context['config']['tone']} tone: {{{{topic}}}}", "config": {"temperature": 0}}
