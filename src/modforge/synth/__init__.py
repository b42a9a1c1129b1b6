"""Synthesis with open tools; each run yields one metrics record."""
