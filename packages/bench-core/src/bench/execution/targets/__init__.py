"""Built-in targets: recorded, echo, python, command and litellm."""
