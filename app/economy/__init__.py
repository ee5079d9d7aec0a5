"""Coins, credits, bets, levels, shop, gifts and inventory (Postgres; see docs/economy.md)."""
