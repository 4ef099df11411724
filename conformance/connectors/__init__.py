"""Connectors: the ways the suite reaches an adapter. Each produces an Exchange."""
