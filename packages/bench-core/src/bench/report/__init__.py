"""From results to what people read: the console, reporters, compare, the evaluator reference."""
