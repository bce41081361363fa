"""Charts drawn server-side as self-contained SVG: no script, nothing loaded (see ``panel``)."""
