"""Tournaments: Sit & Go and scheduled events, knockout and Swiss (docs/tournaments.md)."""
