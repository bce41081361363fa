"""Runs brought from elsewhere: another tool's results imported, a stored run's responses judged again."""
