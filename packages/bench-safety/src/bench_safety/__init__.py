"""bench-safety: toxicity, bias, hallucination and PII checks for bench."""
