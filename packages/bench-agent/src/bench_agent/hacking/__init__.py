"""Reward-hacking checks: deterministic readings of an agent's diff for ways of gaming its tests."""
