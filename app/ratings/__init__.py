"""Skill ratings per family of variants and format (docs/ratings.md)."""
