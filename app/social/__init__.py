"""Friends, blocks, notifications, profiles, presence and chat (see docs/economy.md)."""
