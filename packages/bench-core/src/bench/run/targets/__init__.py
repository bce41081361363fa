"""Built-in targets: recorded, echo, python and command."""
