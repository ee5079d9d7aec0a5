"""Accounts, sessions and passwords."""
