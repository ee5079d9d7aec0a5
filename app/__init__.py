"""Buraco online server."""
