"""Routers that are not owned by a domain package."""
