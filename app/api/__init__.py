"""HTTP and WebSocket entry points (thin: they call the domain services)."""
