"""A stand-in support bot, so the example runs offline: it answers the whole conversation so far."""

from bench import Task


def reply(task: Task) -> str:
    messages = task.messages or []
    said = " ".join(str(m.content) for m in messages if m.role == "user").lower()
    last = str(messages[-1].content).lower() if messages else ""
    if "thank" in last:
        return "You're welcome! Anything else?"
    if "7" in said:  # the order number, once given, is never asked again
        return "Thanks! I have started a refund for order 7."
    if "parcel" in said or "order" in said:
        return "Sorry to hear that! What is your order number?"
    return "Hello! How can I help?"
