"""The socket tier: one Connection per WebSocket, the wire protocol, fan-out of each
table's records to the sockets watching it, emotes, and this process's overload measure.

Above the play and storage subpackages, which it imports; it never imports the
lobby subpackage (whose endpoints build on it, for the overload check and the
protocol's busy answer).
"""
