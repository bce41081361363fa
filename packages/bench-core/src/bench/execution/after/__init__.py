"""What runs after a task is decided."""
