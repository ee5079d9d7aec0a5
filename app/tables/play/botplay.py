"""The bots of the live tables: which bot plays a seat, and where it thinks.

Easy and normal bots answer in well under a millisecond, on the event loop. A strong
bot lists its candidates here (cheap; its no-loop memory lives in this process) and
runs the search, tens of milliseconds of CPU, in a worker process (``bot_workers``), so
a bot thinking never holds up another table's move; the state goes over as its JSON
dict (compiled rule sets do not pickle) and the worker answers with the index of the
candidate it chose. Bots are kept per (table, seat) so that their memory of the hand
(docs/bots.md, "No loops") lasts from one move to the next; a process that restarts or
another process that plays the next move starts a fresh memory, which only weakens
that guard for a few turns.

With three or four players a strong bot's memory of the pile is told the table's
events (search.py, ``PileMemory.see``): before each of its decisions it reads the
records its memory has not seen from the table's log in Redis (all of them the first
time this process plays that seat, so a bot that moves between processes knows what it
knew), and takes in only their public parts.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from app.core.config import Settings
from app.rules import commands as C
from app.rules.bots import Bot
from app.rules.greedy import GreedyBot
from app.rules.levels import make_bot
from app.rules.search import StrongBot, wants_events
from app.rules.serialize import (
    command_from_dict,
    command_to_dict,
    event_from_dict,
    state_from_dict,
    state_to_dict,
)
from app.rules.state import DRAW, State
from app.tables.storage.meta import BotStrength

KEPT_BOTS = 2048  # bots remembered per process (the least recently used go)

# The table's log from a position on: its records (app/tables/storage/store.py, ``log_from``).
LogReader = Callable[[int], Awaitable[list[dict[str, Any]]]]


def search_index(
    state: dict[str, Any],
    seat: int,
    options: list[dict[str, Any]],
    known: dict[int, list[int]],
    seed: int,
    samples: int,
    budget: float,
) -> int:
    """In a worker: the strong bot's search over ``options``; the index it chose."""
    cmds = [command_from_dict(o) for o in options]
    bot = StrongBot(seed, samples=samples, clock=time.process_time, budget=budget)
    bot.known.cards = known
    return cmds.index(bot.search(state_from_dict(state), seat, cmds))


class BotPlayer:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._bots: OrderedDict[tuple[str, int], tuple[str, Bot]] = OrderedDict()
        self._told: dict[tuple[str, int], int] = {}  # log records each memory has seen
        self._pool: Executor | None = None

    def bot(self, table_id: str, seat: int, strength: BotStrength) -> Bot:
        key = (table_id, seat)
        kept = self._bots.get(key)
        if kept is None or kept[0] != strength:
            seed = zlib.crc32(f"{table_id}|{seat}".encode())  # the same in every process
            kept = (strength, make_bot(strength, seed, time.process_time))
            self._bots[key] = kept
            self._told.pop(key, None)
            if len(self._bots) > KEPT_BOTS:
                self._told.pop(self._bots.popitem(last=False)[0], None)
        self._bots.move_to_end(key)
        return kept[1]

    async def command(
        self,
        table_id: str,
        state: State,
        seat: int,
        strength: BotStrength,
        log: LogReader | None = None,
    ) -> C.Command:
        """The command the seat's bot gives (a strong bot's search off the loop).
        ``log`` reads the table's log (three or four players: the strong bot is told
        the events it has not seen)."""
        bot = self.bot(table_id, seat, strength)
        if not isinstance(bot, StrongBot):
            return bot.choose(state, seat)
        if log is not None and wants_events(state.rules):
            await self._tell(bot, (table_id, seat), state, log)
        if state.phase == DRAW:
            bot.known.observe(state, seat)
        options = bot.candidates(state, seat)
        cmd = options[0]
        if len(options) > 1:
            s = self.settings
            loop = asyncio.get_running_loop()
            index = await loop.run_in_executor(
                self.pool(),
                search_index,
                state_to_dict(state),
                seat,
                [command_to_dict(o) for o in options],
                bot.known.cards,
                bot.seed,
                s.strong_bot_samples,
                s.strong_bot_budget_ms / 1000,
            )
            cmd = options[index]
        bot.commit(state, seat, cmd)
        return cmd

    async def _tell(
        self, bot: StrongBot, key: tuple[str, int], state: State, log: LogReader
    ) -> None:
        seen = self._told.get(key, 0)
        records = await log(seen)
        for record in records:
            if record.get("k") == "g":
                bot.known.see(event_from_dict(record["e"]), key[1], state.rules)
        self._told[key] = seen + len(records)

    def pool(self) -> Executor:
        if self._pool is None:
            workers = self.settings.bot_workers
            if workers > 0:  # spawn: a fork of a process running threads is unsafe
                self._pool = ProcessPoolExecutor(
                    workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=die_with_parent,
                    initargs=(os.getpid(),),
                )
            else:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="bots")
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def die_with_parent(parent: int, every: float = 1.0) -> None:
    """In each worker: exit when the server process that started it is gone. A server
    killed outright (SIGKILL, the OOM killer) never shuts its pool down, and its workers,
    waiting on their queue, would live on as orphans, one per restart."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def fallback(state: State, seat: int) -> C.Command:
    """A command when the bot's was refused (a table that moved on meanwhile)."""
    return GreedyBot().choose(state, seat)
