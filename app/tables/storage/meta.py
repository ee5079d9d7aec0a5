"""A live table's metadata: options, seats, status, the fairness commitments.

Kept in Redis beside the engine state. ``public()`` is what any viewer may see; the
deals and salts of hands still in play never leave the server.
"""

from __future__ import annotations

import sys
from typing import Any, Literal, NewType, Self

import orjson
from pydantic import BaseModel, Field, field_validator

from app.rules.fairdeal import cut_range
from app.social.i18n import all_languages

TableId = NewType("TableId", str)
GameId = NewType("GameId", str)

Status = Literal["waiting", "starting", "playing", "finished", "closed"]
MIN_BET = 6_000
# How strong a bot plays (docs/bots.md); the names are part of the protocol.
BotStrength = Literal["easy", "normal", "strong"]
BOT_STRENGTHS: tuple[BotStrength, ...] = ("easy", "normal", "strong")


class Compact(BaseModel):
    """A model cached by the thousand (every table a process serves holds a meta, its
    seats and its hands). Pydantic gives each instance a set of the field names it was
    given, for ``exclude_unset``, which nothing here reads: a set of 27 names is 2.2 KiB,
    of 10 names 0.7 KiB, about 5 KiB of a cached meta's 8. Every instance of a class
    shares one set of ALL its field names instead (what a meta read back from Redis has
    anyway, since it is saved whole): pydantic adds a field's name to it when the field
    is assigned, which changes nothing, as the name is there already."""

    def model_post_init(self, context: Any, /) -> None:
        _share_fields_set(self)

    def __copy__(self) -> Self:
        copied = super().__copy__()
        _share_fields_set(copied)
        return copied

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        copied = super().__deepcopy__(memo)
        _share_fields_set(copied)
        return copied


_ALL_FIELDS: dict[type, set[str]] = {}


def _share_fields_set(model: BaseModel) -> None:
    cls = type(model)
    names = _ALL_FIELDS.get(cls)
    if names is None:
        names = _ALL_FIELDS[cls] = set(cls.model_fields)
    object.__setattr__(model, "__pydantic_fields_set__", names)


class Seat(Compact):
    user_id: int | None = None  # None for a bot
    name: str
    bot: bool = False
    connected: bool = True
    timeouts: int = 0  # turn timeouts in a row
    abandoned: bool = False  # the person left; a bot plays the seat
    grace_until: float | None = None  # no socket: a bot takes over at this time
    bot_strength: BotStrength | None = None  # a bot seat's strength (None for a person)
    # Equipped shop items (sku) when the player sat down, shown to everyone at the table.
    avatar: str | None = None
    card_back: str | None = None

    @property
    def strength(self) -> BotStrength:
        """How the bot playing this seat plays (a person's abandoned seat: normal)."""
        return self.bot_strength or "normal"


def person_seat(user_id: int, name: str, equipped: dict[str, str] | None = None) -> Seat:
    """A person's seat wearing what they have equipped (slot -> sku, from the shop)."""
    eq = equipped or {}
    return Seat(user_id=user_id, name=name, avatar=eq.get("avatar"), card_back=eq.get("card_back"))


BOT_NAMES = ("Ana", "Luis", "Marta", "Jorge", "Lucía", "Pablo", "Sara", "Diego")


def bot_seat(i: int, strength: BotStrength = "normal") -> Seat:
    return Seat(
        user_id=None, name=f"Bot {BOT_NAMES[i % len(BOT_NAMES)]}", bot=True, bot_strength=strength
    )


def _shared_names(value: Any) -> Any:
    """The deal with every card name the one interned string of that name."""
    if isinstance(value, str):
        return sys.intern(value)
    if isinstance(value, list):
        return [_shared_names(v) for v in value]
    return value


class HandFairness(Compact):
    """One hand's fairness record. ``scheme`` "seed" (docs/fairness.md): the commitment
    is SHA-256 of ``server_seed``, the deal is derived from it, the client seeds and the
    cut. "deal" (stacked test deals, and games archived before seeds): the commitment is
    ``deal.deal_commitment(deal, salt)``."""

    hand_no: int
    commitment: str
    deal: dict[str, Any] = Field(default_factory=dict)  # secret until the hand ends
    salt: str = ""  # secret until the hand ends ("deal" scheme)
    revealed: bool = False
    scheme: Literal["seed", "deal"] = "deal"
    server_seed: str = ""  # secret until the hand ends
    client_seeds: list[str | None] = Field(default_factory=list)  # secret until the end
    first: int = 0  # the seat that plays first; the dealer sits just before it
    dealer: int | None = None
    cutter: int | None = None  # the player to the dealer's right
    cut: int | None = None  # the cut position, once made
    cut_by: Literal["player", "bot", "timeout"] | None = None
    cut_deadline: float | None = None  # while the cut is awaited

    @property
    def awaiting_cut(self) -> bool:
        return self.scheme == "seed" and self.cut is None

    def public(self) -> dict[str, Any]:
        """What every viewer sees: all once revealed, else no seed, seeds or deal."""
        if self.revealed:
            return self.model_dump()
        return self.model_dump(exclude={"deal", "salt", "server_seed", "client_seeds"}) | {
            "seeded": [bool(s) for s in self.client_seeds]
        }

    @field_validator("deal")
    @classmethod
    def _share_card_names(cls, deal: dict[str, Any]) -> dict[str, Any]:
        # A deal is every card of the decks by name, cached with the meta of every table
        # a process serves: parsed from JSON each name is a string of its own (about
        # 5 KiB a deal); there are only 54 names.
        return {k: _shared_names(v) for k, v in deal.items()}


# One dict per distinct rule set, shared by the metas of every table playing it: a full
# rule set is some 40 options (a 2 KiB dict), and a process caches the meta of every
# table it serves. Metas never change their rules or overrides in place (see
# TableMeta.edit); the overrides a host chose are shared the same way.
_RULE_SETS: dict[bytes, dict[str, Any]] = {}
_MAX_RULE_SETS = 4096


def _shared_rules(rules: dict[str, Any]) -> dict[str, Any]:
    key = orjson.dumps(rules, option=orjson.OPT_SORT_KEYS)
    shared = _RULE_SETS.get(key)
    if shared is not None:
        return shared
    if len(_RULE_SETS) < _MAX_RULE_SETS:
        _RULE_SETS[key] = rules
    return rules


class Bank(Compact):
    """The time banks of one hand (app/tables/play/clock.py): each seat's seconds left,
    and the turn drawing on its bank now, if any (its seat, when the bank began to drain
    and when it runs dry). Replaced whole, never changed in place."""

    hand_no: int = 0
    left: list[float] = Field(default_factory=list)
    turn: int | None = None  # the turns ended in the hand when the draining turn began
    seat: int = 0
    since: float = 0.0
    until: float = 0.0


class TableMeta(Compact):
    id: str
    name: str
    host: int
    kind: Literal["table", "quick", "challenge"] = "table"
    preset: str
    overrides: dict[str, Any] = Field(default_factory=dict)
    rules: dict[str, Any]  # the full validated rule set
    players: int
    bet: int
    private: bool = False
    turbo: bool = False
    special: bool = False  # charged 1 credit at creation (pairs, turbo or private)
    target_score: int = 0
    seats: list[Seat | None]
    invited: list[int] = Field(default_factory=list)
    status: Status = "waiting"
    created_at: float
    started_at: float | None = None
    game_id: str | None = None
    hands: list[HandFairness] = Field(default_factory=list)
    # The turn clock is not part of the saved or public meta (a move would rewrite the
    # whole meta for it): commits keep it in the table hash's "clock" field,
    # TableService.load puts it here, and snapshots show it (clock records tell the rest).
    turn_deadline: float | None = Field(default=None, exclude=True)
    # Seconds of time bank per seat per hand (None: the server's default for the table's
    # speed, written here when the game starts, so clients know it) and the banks of the
    # hand in play (app/tables/play/clock.py).
    time_bank: float | None = None
    bank: Bank | None = None
    bots_after: float | None = None  # quick play: fill empty seats with bots at this time
    close_reason: str | None = None
    felt: str | None = None  # the host's equipped felt: the table's cloth for everyone
    # A server-made name ("quick", "challenge"), drawn in each reader's language: see
    # app/social/i18n.py; ``name`` keeps the Spanish one.
    name_key: str | None = None
    name_args: dict[str, str] = Field(default_factory=dict)
    rematch_of: str | None = None  # the finished table this one is the rematch of
    # BURACO_ENV=test only (app/tables/lobby/testdeals.py): the next hands' deals, in order,
    # instead of shuffles, so browser tests can play known cards. Secret like ``hands``.
    stacked_deals: list[dict[str, Any]] = Field(default_factory=list)
    # A tournament's match (app/tournaments/tables.py): "{tournament}:{round}:{table}".
    # It ends after ``hand_limit`` hands, or at the end of the first hand to finish after
    # ``round_deadline``; ``deal_seed`` (secret like ``hands``) makes every table of a
    # duplicate round deal the same cards, seat by seat; ``hand_points`` is each finished
    # hand's score per team.
    tournament: str | None = None
    hand_limit: int = 0
    round_deadline: float | None = None
    deal_seed: str | None = None
    hand_points: list[list[int]] = Field(default_factory=list)
    # Each seated person's rating in this table's family and format when they sat down
    # (docs/ratings.md), by user id: (the rating shown next to the name, None for a
    # guest; provisional while it rests on few games; the skill quick play matches).
    # Kept here rather than on the seats: three more fields on a seat grow every seat's
    # attribute table past its size class (tests/tables/test_cache.py).
    ratings: dict[int, tuple[int | None, bool, int]] = Field(default_factory=dict)

    @field_validator("rules", "overrides")
    @classmethod
    def _share_rules(cls, rules: dict[str, Any]) -> dict[str, Any]:
        # the host's overrides too: a few options, the same at many tables
        return _shared_rules(rules)

    def edit(self) -> TableMeta:
        """A copy to change, cheaper than a deep one: the seats (changed in place) and
        the lists are copied; hands are replaced, never changed in place; rules and
        overrides are never changed."""
        copy = self.model_copy()
        copy.seats = [None if s is None else s.model_copy() for s in self.seats]
        copy.hands = list(self.hands)
        copy.invited = list(self.invited)
        copy.stacked_deals = list(self.stacked_deals)
        copy.hand_points = list(self.hand_points)
        return copy

    def seat_of(self, user_id: int) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat is not None and seat.user_id == user_id and not seat.bot:
                return i
        return None

    def free_seats(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if seat is None]

    def humans(self) -> list[int]:
        return [s.user_id for s in self.seats if s is not None and s.user_id is not None]

    def may_watch(self, user_id: int) -> bool:
        return not self.private or user_id in self.invited or self.seat_of(user_id) is not None

    def public(self) -> dict[str, Any]:
        """Everything but the secrets of hands still in play."""
        data = self.model_dump(
            exclude={"hands", "overrides", "stacked_deals", "deal_seed", "ratings"}
        )
        for seat in data["seats"]:
            if seat is not None:
                seat |= self.rating_of(seat["user_id"])
        data["hands"] = [h.public() for h in self.hands]
        data["cut"] = self.cut_prompt()
        data["overrides"] = dict(self.overrides)
        data["free_seats"] = len(self.free_seats())
        return data

    def rating_of(self, user_id: int | None) -> dict[str, Any]:
        """The rating fields a seat shows (``ratings``): none for a bot or the unrated."""
        found = self.ratings.get(user_id) if user_id is not None else None
        if found is None:
            return {"rating": None, "provisional": False, "skill": None}
        return {"rating": found[0], "provisional": found[1], "skill": found[2]}

    def cut_prompt(self) -> dict[str, Any] | None:
        """The deck awaiting its cut (docs/protocol.md, "The cut"), or None."""
        hand = self.hands[-1] if self.hands else None
        if self.status != "playing" or hand is None or not hand.awaiting_cut:
            return None
        size = 104 + int(self.rules.get("jokers", 4))
        lo, hi = cut_range(size)
        return {
            "hand_no": hand.hand_no,
            "seat": hand.cutter,
            "deadline": hand.cut_deadline,
            "commitment": hand.commitment,
            "deck_size": size,
            "min": lo,
            "max": hi,
        }

    def public_with_clock(self) -> dict[str, Any]:
        """``public()`` and the turn clock, for a meta fresh from ``TableService.load``."""
        data = self.public()
        data["turn_deadline"] = self.turn_deadline if self.status == "playing" else None
        return data

    def summary(self) -> dict[str, Any]:
        """The lobby's line for this table."""
        return {
            "id": self.id,
            "name": self.name,
            "preset": self.preset,
            "players": self.players,
            "bet": self.bet,
            "turbo": self.turbo,
            "private": self.private,
            "kind": self.kind,
            "status": self.status,
            "target_score": self.target_score,
            "free_seats": len(self.free_seats()),
            "created_at": self.created_at,
            "seats": [
                None
                if s is None
                else {
                    "name": s.name,
                    "bot": s.bot,
                    "user_id": s.user_id,
                    "bot_strength": s.bot_strength,
                    "avatar": s.avatar,
                }
                | self.rating_of(s.user_id)
                for s in self.seats
            ],
            "name_key": self.name_key,
            "name_args": dict(self.name_args),
            **({"names": all_languages(self.name_key, self.name_args)} if self.name_key else {}),
        }
