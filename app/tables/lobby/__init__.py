"""Creating tables and taking seats: the lobby (create, sit, stand, quick play),
invitations, rematches, table options, what a player wears at a table, the HTTP
schemas and endpoints, and the test-only stacked deals.

The top layer of app.tables: it may import the live, play and
storage subpackages; none of them imports it.
"""
