"""bench-nlp-metrics: reference-based metrics and embedding similarity for bench."""
