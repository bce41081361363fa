"""Scorecards and a run's statistics."""
