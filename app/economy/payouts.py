"""Pure settlement rules: who gets what from a game's pot, and the XP each person earns.

The pot holds only people's stakes: bots stake nothing and win nothing.

* Void game: every stake goes back.
* Otherwise the people on the winning team who did not abandon split the pot equally
  (2 players: the winner gets 2B; pairs: each winner gets 2B). A remainder coin from an
  odd split goes to the winner with the lowest id, so no coin is created or lost.
* Nobody on the winning side can take it (bots won, or every winning person abandoned):
  the people who stayed get their own stake back, and the stakes of those who abandoned
  go to the house. Playing against bots can therefore never earn coins.
* XP only comes from games where people played against people (both sides have a
  person), and only to those who stayed: against bots there is no XP to farm.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.economy.levels import xp_for
from app.tables.play.hooks import GameResult


@dataclass(frozen=True, slots=True)
class Outcome:
    user_id: int
    team: int
    outcome: str  # win, loss, abandon, void
    stake: int
    payout: int
    xp: int


@dataclass(frozen=True, slots=True)
class Settlement:
    outcomes: list[Outcome]
    to_house: int  # forfeited stakes nobody could win

    @property
    def payouts(self) -> dict[int, int]:
        return {o.user_id: o.payout for o in self.outcomes if o.payout}


def settle(result: GameResult, stakes: dict[int, int]) -> Settlement:
    pot = sum(stakes.values())
    # A staker missing from the result counts as having abandoned.
    people = sorted(set(result.teams) | set(stakes))
    team = {u: result.teams.get(u, -1) for u in people}
    if result.winner_team is None:
        outcomes = [
            Outcome(u, team[u], "void", stakes.get(u, 0), stakes.get(u, 0), 0) for u in people
        ]
        return Settlement(outcomes, to_house=0)
    left = {u for u in people if u in result.abandoned or u not in result.teams}
    stayed = [u for u in people if u not in left]
    winners = [u for u in stayed if team[u] == result.winner_team and u in stakes]
    pays = _split(pot, winners) if winners else _refund_stayed(stayed, stakes)
    vs_people = len(set(result.teams.values())) > 1
    outcomes = []
    for u in people:
        label = "abandon" if u in left else "win" if team[u] == result.winner_team else "loss"
        xp = xp_for(result.bet, label == "win") if vs_people and label != "abandon" else 0
        outcomes.append(Outcome(u, team[u], label, stakes.get(u, 0), pays.get(u, 0), xp))
    return Settlement(outcomes, to_house=pot - sum(pays.values()))


def _split(pot: int, winners: list[int]) -> dict[int, int]:
    share, rest = divmod(pot, len(winners))
    pays = dict.fromkeys(winners, share)
    pays[winners[0]] += rest
    return pays


def _refund_stayed(stayed: list[int], stakes: dict[int, int]) -> dict[int, int]:
    return {u: stakes[u] for u in stayed if u in stakes}
