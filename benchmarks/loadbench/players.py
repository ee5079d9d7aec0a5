"""The servers' simulated players: a table's four seats, each on its own socket, playing
real hands one move a second (``pace``), and the tables made the way players make them
(``setup_tables``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import orjson
import websockets
import wsclient  # benchmarks/, on the path when load.py runs

from app.rules.cards import NAME, SUIT, WILD_CAPABLE, parse, parse_many
from app.rules.errors import RuleViolation
from app.rules.melds import Meld, add_to_meld, build_meld
from app.rules.ruleset import RuleSet, ruleset_from_dict
from loadbench.servers import CLIENT, ORIGIN, RAMP, TARGET_SCORE
from loadbench.stats import Stats, pct

# ---------------------------------------------------------------- the client


async def open_ws(url: str, headers: dict[str, str] | None = None) -> Any:
    """A player's socket: the lean client (benchmarks/wsclient.py) or, with ``--client
    websockets``, the websockets library's; both used alike, by main run and baseline."""
    if CLIENT[0] == "lean":
        return await wsclient.connect(url, headers, open_timeout=60)
    return await websockets.connect(
        url,
        additional_headers=headers,
        ping_interval=None,
        max_queue=None,
        open_timeout=60,
        compression=None,
    )


def listen(ws: Any, take: Callable[[bytes | str], None]) -> asyncio.Task[None] | None:
    """Hands each message of ``ws`` to ``take``: straight from the lean client's protocol
    callback, or from a reader task on the ``websockets`` library's client."""
    if isinstance(ws, wsclient.Socket):
        ws.listen(take)
        return None
    return asyncio.create_task(read_all(ws, take))


async def read_all(ws: Any, take: Callable[[bytes | str], None]) -> None:
    """Hands each message of ``ws`` to ``take`` until the socket closes (a task that ends
    with it, for a caller that watches for the close)."""
    async for raw in ws:
        take(raw)


def natural(card: int) -> bool:
    return not WILD_CAPABLE[card]


class Seat:
    def __init__(self, table: Table, index: int) -> None:
        self.table = table
        self.index = index
        self.ws: Any = None
        self.v = 0
        self.hand: list[int] = []
        self.acks: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def reader(self, stats: Stats) -> Callable[[bytes | str], None]:
        def take(raw: bytes | str) -> None:
            message = orjson.loads(raw)
            if message["type"] == "batch":  # several records of one commit
                for f in message["frames"]:
                    self.receive(f, stats)
            else:
                self.receive(message, stats)

        return take

    def receive(self, f: dict[str, Any], stats: Stats) -> None:
        typ = f["type"]
        if typ == "event":
            v = f["v"]
            if v <= self.v:
                stats.dups += 1
                return
            if v != self.v + 1 and self.v:
                stats.gaps += 1
            self.v = v
            if f.get("kind") == "game":
                self.fold(f["event"])
            self.table.arrived(v)
        elif typ == "snapshot":
            self.v = f["v"]
            t = self.table
            t.rules = ruleset_from_dict(f["meta"]["rules"])
            game = f.get("game")
            if game:
                self.hand = list(parse_many(game["hand"] or []))
                t.phase, t.turn = game["phase"], game["turn"]
                t.melds = [[] for _ in range(t.rules.teams)]
                if any(game["melds"]):
                    t.stale_melds = True  # not rebuilt from a snapshot: the bot only draws
            t.arrived(self.v)
        elif typ in ("ack", "error"):
            if typ == "error" and "cid" not in f and f.get("code") == "rate_limited":
                # refused before it was read, so it names no command: the waiting ones
                for cid in list(self.acks):
                    fut = self.acks.pop(cid)
                    if not fut.done():
                        fut.set_result(f)
                return
            fut = self.acks.pop(f.get("cid", ""), None)
            if fut is not None and not fut.done():
                fut.set_result(f)

    def fold(self, e: dict[str, Any]) -> None:
        """Keep this seat's hand, and (seat 0, for the table) phase, turn and melds."""
        t = self.table
        kind = e["type"]
        own = e.get("seat") == self.index
        lead = self.index == 0
        if kind == "drew":
            if own:
                self.hand.append(parse(e["card"]))
            t.phase = "play"
        elif kind == "discarded":
            if own:
                self.hand.remove(parse(e["card"]))
            t.phase, t.turn = "draw", (e["seat"] + 1) % len(t.seats)
        elif kind in ("took_pile", "muerto_taken"):
            if own and e.get("cards"):
                self.hand += parse_many(e["cards"])
        elif kind in ("melded", "added"):
            cards = parse_many(e["cards"])
            if own:
                for c in cards:
                    self.hand.remove(c)
            if lead:
                t.fold_meld(kind, e, cards)
        elif kind == "hand_ended":
            t.phase = "over"
            if lead:
                t.marks[self.v] = "hand end"
        elif kind == "hand_started":
            self.hand = list(parse_many(e["hand"] or []))
            t.phase, t.turn = "draw", e["first"]
            t.melds = [[] for _ in range(t.rules.teams)] if t.rules else []
            t.stale_melds = False


class Table:
    def __init__(self, tid: str, seats: int) -> None:
        self.tid = tid
        self.seats = [Seat(self, i) for i in range(seats)]
        self.phase = ""
        self.turn = -1
        self.rules: RuleSet | None = None
        self.melds: list[list[Meld]] = []
        self.stale_melds = False
        self.arrivals: dict[int, list[float]] = {}  # v -> [count, last arrival]
        self.waiting: tuple[int, float, asyncio.Future[float]] | None = None
        self.n = 0
        self.marks: dict[int, str] = {}  # v -> what else that version did (a hand's end)

    def fold_meld(self, kind: str, e: dict[str, Any], cards: tuple[int, ...]) -> None:
        """The same meld the server built (every seat is one of these bots, so no wild is
        ever placed by choice and the build is deterministic)."""
        assert self.rules is not None
        try:
            if kind == "melded":
                team = self.rules.team_of(e["seat"])
                self.melds[team].append(build_meld(cards, self.rules, team))
            else:
                team, index = e["team"], e["index"]
                self.melds[team][index] = add_to_meld(self.melds[team][index], cards, self.rules)
        except (RuleViolation, IndexError):
            self.stale_melds = True

    def arrived(self, v: int) -> None:
        entry = self.arrivals.setdefault(v, [0, 0.0])
        entry[0] += 1
        entry[1] = time.perf_counter()
        self._check()

    def _check(self) -> None:
        if self.waiting is None:
            return
        v, t0, fut = self.waiting
        entry = self.arrivals.get(v)
        if entry and entry[0] >= len(self.seats) and not fut.done():
            fut.set_result(entry[1] - t0)
            self.waiting = None

    def choose(self) -> dict[str, Any] | None:
        """The bot's next command: draw; then add, lay or discard (keeping 3 cards)."""
        if self.phase == "draw":
            return {"type": "draw"}
        if self.phase != "play":
            return None
        hand = self.seats[self.turn].hand
        if not hand:
            return None
        assert self.rules is not None
        team = self.rules.team_of(self.turn)
        if not self.stale_melds and len(hand) >= 4:
            for card in sorted(set(filter(natural, hand))):
                for i, meld in enumerate(self.melds[team]):
                    with contextlib.suppress(RuleViolation):
                        add_to_meld(meld, [card], self.rules)
                        return {"type": "add", "team": team, "meld": i, "cards": [NAME[card]]}
        if not self.stale_melds and len(hand) >= 6:
            run = self._sequence(hand, team)
            if run:
                return {"type": "meld", "cards": [NAME[c] for c in run]}
        return {"type": "discard", "card": NAME[random.choice(hand)]}

    def _sequence(self, hand: list[int], team: int) -> list[int] | None:
        assert self.rules is not None
        by_suit: dict[int, list[int]] = {}
        for card in sorted(set(filter(natural, hand))):
            by_suit.setdefault(SUIT[card], []).append(card)
        for cards in by_suit.values():
            for i in range(len(cards) - 2):
                window = cards[i : i + 3]
                with contextlib.suppress(RuleViolation):
                    build_meld(window, self.rules, team)
                    return window
        return None

    async def move(self, stats: Stats, timeout: float, counted: bool) -> None:
        """One move; ``counted``: it was offered inside the measured window."""
        command = self.choose()
        if command is None:
            stats.failed("not_playable", timeout, counted)
            return
        seat = self.seats[self.turn]
        self.n += 1
        cid = f"m{self.n}"
        loop = asyncio.get_running_loop()
        ack_fut: asyncio.Future[dict[str, Any]] = loop.create_future()
        seat.acks[cid] = ack_fut
        t0 = time.perf_counter()
        # One timer for the whole move (the ack, then the last socket's copy), not a
        # wait_for (a waiter, a timer and callbacks) for each: the players are the
        # measuring instrument, and what they spend the servers wait for.
        waiting: list[asyncio.Future[Any]] = [ack_fut]
        timer = loop.call_later(timeout, expire, waiting)
        try:
            await seat.ws.send(
                orjson.dumps(
                    {"type": "command", "table": self.tid, "cid": cid, "command": command}
                ).decode()
            )
            try:
                ack = await ack_fut
            except TimeoutError:
                seat.acks.pop(cid, None)
                stats.failed("timeout", timeout, counted)
                return
            if ack["type"] != "ack":
                stats.failed(ack.get("code", "error"), timeout, counted)
                if ack.get("code") == "rate_limited":  # told to slow down: the bucket refills
                    await asyncio.sleep(1.0)
                return
            done: asyncio.Future[float] = loop.create_future()
            waiting[0] = done
            if len(waiting) > 1:  # the time was up as the ack came
                done.set_exception(TimeoutError())
            self.waiting = (ack["v"], t0, done)
            self._check()
            try:
                latency = await done
            except TimeoutError:
                self.waiting = None
                stats.failed("timeout", timeout, counted)
                return
        finally:
            timer.cancel()
        for old in [k for k in self.arrivals if k < ack["v"] - 8]:
            del self.arrivals[old]
        # Any version of this commit may have ended the hand, not only its last one.
        marks = [self.marks.pop(k) for k in sorted(self.marks) if k <= ack["v"]]
        mark = marks[-1] if marks else None
        if counted:
            stats.served += 1
            stats.kinds[command["type"]] += 1
            stats.record(latency * 1000, f"{command['type']}, {mark}" if mark else command["type"])


def expire(waiting: list[asyncio.Future[Any]]) -> None:
    """A move's time is up: what it waits for now fails with ``TimeoutError`` (marked
    for the next wait when this one has its result but its waiter has not run yet)."""
    if waiting[0].done():
        waiting.append(waiting[0])
    else:
        waiting[0].set_exception(TimeoutError())


async def pace(
    tables: list[Any],
    stats: Stats,
    seconds: float,
    timeout: float,
    stop: asyncio.Event | None = None,
) -> None:
    """Each table is offered one move a second, at its own phase within the second; a
    move slower than a second makes its table miss ticks, which count as offered. Until
    ``seconds`` have passed, or ``stop`` is set."""

    async def one(table: Any, offset: float) -> None:
        await asyncio.sleep(offset)
        start = time.perf_counter()
        k = 0
        while time.perf_counter() - start < seconds and not (stop and stop.is_set()):
            counted = stats.measuring
            if counted:
                stats.offered += 1
            try:
                await table.move(stats, timeout, counted)
            except (websockets.ConnectionClosed, OSError):
                stats.failed("closed", timeout, counted)
            k += 1
            behind = int(time.perf_counter() - start) - k
            if behind > 0:  # ticks missed while the move waited
                if counted:
                    stats.offered += behind
                    stats.errors["missed_tick"] += behind
                k += behind
            await asyncio.sleep(max(0.0, start + k - time.perf_counter()))

    await asyncio.gather(*(one(t, random.random()) for t in tables))


def quiet_client_gc() -> None:
    """The client is the measuring instrument: with 4,000 sockets, a full collection of
    its own heap stops it for 200-300 ms (seen with gc.callbacks), and every move in
    flight then shows that pause as server latency. So, as the server does at start-up
    (DESIGN.md), freeze what the set-up made and keep the collector off while measuring;
    reference counting still frees everything but cycles."""
    gc.collect()
    gc.freeze()
    gc.disable()


async def gather_limited(coros: list[Any], limit: int = 64) -> list[Any]:
    sem = asyncio.Semaphore(limit)

    async def run(c: Any) -> Any:
        async with sem:
            return await c

    return await asyncio.gather(*(run(c) for c in coros))


def refused(r: httpx.Response) -> bool:
    """A saturated process's refusal of a new table or seat (503 ``server_busy``)."""
    if r.status_code != 503:
        return False
    with contextlib.suppress(ValueError, AttributeError):
        return bool(r.json()["error"]["code"] == "server_busy")
    return False


async def setup_tables(
    bases: list[str],
    k: int,
    hand_size: int,
    stats: Stats,
    layout: str = "table",
    ramp_seconds: float = 0,
    timeout: float = 5.0,
) -> tuple[list[Table], list[asyncio.Task[None]], int]:
    """Guests, then tables as players make them: a table is created (4 seats, each table
    on a process in turn), its three other players sit, and its four sockets watch it at
    once, so a process counts its tables as they come. A table a saturated process
    refuses (``server_busy`` at its creation or at a seat) is counted and left out: the
    tables that got in are the ones played. ``split``: a table's four sockets alternate
    between the processes (each process serves half of every table: every move is
    received by all of them); ``table``: all four on the process that made it, opened
    as ``/ws?table=ID`` like a table page's socket (the balancer routes by that ID).
    With ``ramp_seconds``, tables arrive at a steady rate over that time and each one
    plays (a move a second, not measured) as soon as it is dealt, so the processes are
    loaded while the later ones arrive, as when players come in the evening: what
    refuses them then is the loop's lag, not a cap. Returns the tables, their readers
    and how many were refused."""
    # Idle connections are let go well before uvicorn's 5 s keep-alive ends, so a
    # request never goes out on a connection the server is closing (httpx.ReadError).
    limits = httpx.Limits(max_connections=32, keepalive_expiry=1.0)
    clients = [httpx.AsyncClient(base_url=b, timeout=60, limits=limits) for b in bases]
    ws_urls = [b.replace("http", "ws") + "/ws" for b in bases]
    rules = {"hand_size": hand_size, "muerto_size": hand_size}

    # One connection pool per process for every guest's sign-up (a client of its own per
    # guest keeps the cookie jars apart; building a transport each time costs the client
    # an SSL context, which made the set-up of 4,000 guests take minutes).
    transports = [httpx.AsyncHTTPTransport(limits=limits) for _ in bases]

    async def guest(i: int) -> str:
        # Not closed: closing a client closes its transport, which the others share.
        c = httpx.AsyncClient(
            base_url=bases[i % len(bases)], timeout=60, transport=transports[i % len(bases)]
        )
        for _ in range(20):  # guest nicknames may collide under a burst (409): again
            r = await c.post("/api/auth/guest")
            if r.status_code != 409:
                break
        r.raise_for_status()
        return str(c.cookies.get("buraco_session"))

    cookies = await gather_limited([guest(i) for i in range(4 * k)])
    for t in transports:
        await t.aclose()
    readers: list[asyncio.Task[None]] = []

    async def open_seat(t: int, seat: Seat) -> None:
        at = t if layout == "table" else t + seat.index
        url = ws_urls[at % len(ws_urls)]
        if layout == "table":
            url += f"?table={seat.table.tid}"
        seat.ws = await open_ws(
            url, {"Cookie": f"buraco_session={cookies[4 * t + seat.index]}", "Origin": ORIGIN}
        )
        await seat.ws.recv()  # hello
        reader = listen(seat.ws, seat.reader(stats))
        if reader is not None:
            readers.append(reader)
        await seat.ws.send(orjson.dumps({"type": "watch", "table": seat.table.tid}).decode())

    async def post(c: httpx.AsyncClient, url: str, **kw: Any) -> httpx.Response:
        """A POST, sent again when its pooled connection was closed under it (the
        keep-alive race, seen on loaded servers; a create sent twice leaves one table
        nobody watches, a sit sent twice is told its seat is taken: by us) or when the
        table says ``table_busy`` (its change lost a race: "try again")."""
        resent = False
        for attempt in range(6):
            try:
                r = await c.post(url, **kw)
            except httpx.TransportError:
                if attempt == 5:
                    raise
                resent = True
                continue
            code = r.json().get("error", {}).get("code") if r.status_code == 409 else None
            if code == "table_busy" and attempt < 5:
                await asyncio.sleep(0.1 * (attempt + 1))
                continue
            if resent and code in ("already_seated", "seat_taken"):
                return httpx.Response(200, request=r.request)
            return r
        raise AssertionError("unreachable")

    unfilled: Counter[str] = Counter()  # seats refused with a 409 while tables arrive
    last_in = [0.0]  # perf_counter() when the last table that got in was made

    async def make(t: int) -> Table | None:
        c = clients[t % len(clients)]
        own = cookies[4 * t : 4 * t + 4]
        r = await post(
            c,
            "/api/tables",
            json={"players": 4, "rules": rules, "name": "load", "target_score": TARGET_SCORE},
            cookies={"buraco_session": own[0]},
        )
        if refused(r):
            return None
        r.raise_for_status()
        tid = r.json()["id"]
        table = Table(tid, 4)
        await open_seat(t, table.seats[0])  # the maker watches the table it made
        for seat in (1, 2, 3):
            r = await post(
                c,
                f"/api/tables/{tid}/sit",
                json={"seat": seat},
                cookies={"buraco_session": own[seat]},
            )
            if refused(r) or (ramp_seconds and r.status_code == 409):
                # A table that cannot fill is not played: its players go. (While tables
                # arrive under load, a seat may also be refused with a 409, counted.)
                if not refused(r):
                    unfilled[r.json().get("error", {}).get("code", "409")] += 1
                for gone in table.seats[:seat]:
                    await gone.ws.close()
                return None
            r.raise_for_status()
            await open_seat(t, table.seats[seat])
        return table

    if ramp_seconds <= 0:
        made = await gather_limited([make(t) for t in range(k)], 32)
    else:
        ramped = Stats()  # moves while the tables arrive: counted apart, not measured
        ramped.measuring = True
        stop = asyncio.Event()
        playing: list[asyncio.Task[None]] = []

        async def arrive(t: int) -> Table | None:
            await asyncio.sleep(t * ramp_seconds / k)
            table = await make(t)
            if table is not None:
                last_in[0] = time.perf_counter()
                until = time.monotonic() + 60
                while table.phase != "draw" or any(s.v == 0 for s in table.seats):
                    if time.monotonic() > until:
                        raise RuntimeError("a table did not start")
                    await asyncio.sleep(0.2)
                playing.append(
                    asyncio.create_task(pace([table], ramped, float("inf"), timeout, stop))
                )
            return table

        try:
            made = list(await asyncio.gather(*(arrive(t) for t in range(k))))
        finally:
            stop.set()
            await asyncio.gather(*playing)
        # the tail as the ramp went on: the p99 of the moves done in each fifth of it
        t_first = min(ramped.done_at, default=0.0)
        span = max(ramped.done_at, default=0.0) - t_first
        fifths: list[list[float]] = [[] for _ in range(5)]
        for ms, at in zip(ramped.latencies, ramped.done_at, strict=True):
            fifths[min(4, int(5 * (at - t_first) / max(span, 1e-9)))].append(ms)
        RAMP["ramp_p99_ms_by_fifth"] = [round(pct(f, 0.99), 2) for f in fifths]
        # once the last table that got in was made, every later one was refused
        refusing = [
            ms for ms, at in zip(ramped.latencies, ramped.done_at, strict=True) if at > last_in[0]
        ]
        RAMP.update(
            ramp_p99_ms=round(pct(ramped.latencies, 0.99), 2),
            ramp_failures=sum(ramped.errors.values()),
            ramp_refusing_moves=len(refusing),
            ramp_refusing_p99_ms=round(pct(refusing, 0.99), 2) if refusing else None,
        )
        print(
            f"while they arrived: {ramped.served}/{ramped.offered} moves served in time, "
            f"p99 {RAMP['ramp_p99_ms']:.1f} ms, failures {dict(ramped.errors)}; "
            f"after the last table got in (every later one refused): {len(refusing)} moves, p99 "
            f"{RAMP['ramp_refusing_p99_ms']} ms; by fifth of the ramp "
            f"{RAMP['ramp_p99_ms_by_fifth']} ms; seats refused otherwise: {dict(unfilled)}",
            flush=True,
        )
    for c in clients:
        await c.aclose()
    tables = [t for t in made if t is not None]
    deadline = time.monotonic() + 120
    dealt = lambda t: t.phase == "draw" and all(s.v for s in t.seats)  # noqa: E731
    while not ramp_seconds and not all(dealt(t) for t in tables):
        if time.monotonic() > deadline:
            raise RuntimeError("tables did not start")
        await asyncio.sleep(0.2)
    return tables, readers, k - len(tables)
