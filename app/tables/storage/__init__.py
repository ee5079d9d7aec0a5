"""How a live table is stored and archived: the Redis keys and scripts of a table
(store), its meta (seats, status, fairness), this process's cache of tables it serves,
the lobby index, and the finished game's archive in Postgres (models, archive).

The lowest layer of app.tables: it imports app.core, app.rules and app.social's i18n,
never the play, live or lobby subpackages, nor FastAPI.
"""
