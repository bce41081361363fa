"""A pretend system under test, offline and deterministic: SYSTEM=baseline (default) or candidate.

The candidate is faster and cheaper, but it has lost some knowledge, and two of its answers
change from one run to the next (which repeats reveal as flaky tasks).
"""

import os

from bench import Task

CAPITALS = {
    "France": "Paris", "Japan": "Tokyo", "Italy": "Rome", "Spain": "Madrid", "Kenya": "Nairobi",
    "Peru": "Lima", "Egypt": "Cairo", "Norway": "Oslo", "Chile": "Santiago", "Canada": "Ottawa",
    "Ghana": "Accra", "Nepal": "Kathmandu", "Cuba": "Havana", "Iran": "Tehran", "Iraq": "Baghdad",
    "Laos": "Vientiane", "Mali": "Bamako", "Oman": "Muscat", "Fiji": "Suva", "Togo": "Lome",
}  # fmt: skip
FORGOTTEN = {"Laos", "Mali", "Oman", "Fiji", "Togo", "Nepal", "Ghana", "Canada"}
FLAKY = {"Chile", "Peru"}


def answer(task: Task) -> dict:
    country = task.vars["country"]
    candidate = os.environ.get("SYSTEM", "baseline") == "candidate"
    capital = CAPITALS[country]
    if candidate and (country in FORGOTTEN or (country in FLAKY and task.repeat % 2 == 1)):
        capital = "I am not sure"
    latency = 400 if candidate else 1500
    cost = 0.0004 if candidate else 0.002
    return {
        "output": f"The capital of {country} is {capital}.",
        "usage": {"latency_ms": latency, "cost_usd": cost},
    }
