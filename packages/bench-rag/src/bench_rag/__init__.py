"""bench-rag: retrieval-augmented generation checks for bench."""
