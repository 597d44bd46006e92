"""Generator of the built-in episodes (personas x 20 sessions) and its quality control."""
