"""Conversations kept durable: their turns as they happen, a person's answers."""
