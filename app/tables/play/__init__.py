"""Changing a live table and what follows a commit: the service's ``mutate`` path (every
change of a table), the economy hooks it calls, the bots' moves, the deadline loop and
its timers, and ending tables nobody plays.

Above the storage subpackage, which it builds on; it never imports the live or lobby
subpackages (they build on it), nor FastAPI.
"""
