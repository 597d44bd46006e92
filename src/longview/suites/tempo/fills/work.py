"""Fills: research, career, business, education, finance."""

FILLS: list[dict] = []
