"""Operator commands run against the configured database (``python -m app.ops``)."""
