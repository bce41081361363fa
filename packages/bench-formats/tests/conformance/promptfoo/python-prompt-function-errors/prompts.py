def by_topic(context):
    topic = context["vars"]["topic"]
    if topic == "durians":
        raise ValueError("no prompt for durians")
    return "Tell me about " + topic


def not_text(context):
    return 42 if context["vars"]["topic"] == "durians" else "About {{ topic }}"
