"""Test and benchmark helpers that ship with the package (no network, no keys)."""
