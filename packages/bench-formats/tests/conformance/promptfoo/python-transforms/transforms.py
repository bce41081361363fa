"""Python transforms for the python-transforms conformance case."""

import json


def get_transform(output, context):
    return json.loads(output)["city"]


def parsed(output, context):
    return json.loads(output)


def upper_city(output, context):
    return json.loads(output)["city"].upper()


def from_context(output, context):
    return f"{context['vars']['city']}|{context['vars']['visits']}"


def add_greeting(vars, context):
    city = vars["city"].strip()
    return {"city": city, "greeting": f"Hello {city}"}


def greeting(output, context):
    return context["vars"]["greeting"]


def lower_city(output, context):
    return json.loads(output)["city"].lower()


def broken(output, context):
    return json.loads(output)["nope"]


def nothing(output, context):
    return None


def from_context_and_prompt(output, context):
    return f"{context['vars']['city']}|{context['vars']['visits']}|{'visits' in context['prompt']['label']}"
