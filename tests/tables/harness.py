"""Real uvicorn processes and scripted WebSocket players for the live-table tests.

Nothing here is a fake: ``start_servers`` runs ``uvicorn app.main:create_app`` in
subprocesses on free ports against the test PostgreSQL database and Redis, and
``Player`` talks to them over real WebSockets (the ``websockets`` client) and HTTP.
Every frame a player receives is kept, in order, for the spy (tests/tables/spy.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets
from websockets.asyncio.client import ClientConnection

from tests.support import free_port, start_uvicorn, stop_process, wait_ready

REPO = Path(__file__).resolve().parents[2]
ORIGIN = "http://tables.test"
SEND_RATE = 18.0  # a scripted client stays under the server's 20 messages a second


@dataclass
class Server:
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown hooks, no goodbye frames, sockets just drop."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        stop_process(self.proc)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def server_env(pg_url: str, redis_url: str, var_dir: Path, **settings: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BURACO_")}
    env.update(
        {
            "BURACO_ENV": "test",
            "BURACO_DATABASE_URL": pg_url,
            "BURACO_REDIS_URL": redis_url,
            "BURACO_VAR_DIR": str(var_dir),
            "BURACO_FRONTEND_DIR": str(var_dir / "no-frontend"),
            "BURACO_WS_ALLOWED_ORIGINS": ORIGIN,
            "BURACO_BOT_DELAY_SECONDS": "0",
            # The economy is on (bets held, escrowed and paid); new players may open the
            # special tables (pairs, private) these tests need.
            "BURACO_SPECIAL_TABLE_LEVEL": "1",
            "BURACO_SIGNUP_LIMIT_PER_IP": "100000",
            "BURACO_LOGIN_LIMIT_PER_IP": "100000",
            "BURACO_WS_MAX_SOCKETS_PER_IP": "100000",  # every player connects from 127.0.0.1
            # Every player here is a fresh guest from 127.0.0.1: the chip-dumping stake cap
            # and address limit (tests/economy/test_chip_dumping.py) would weigh them all
            # as one ring. These tests are about tables, at bets up to a whole wallet.
            "BURACO_GUEST_MAX_BET": "1000000000000",
            "BURACO_NEW_ACCOUNT_MAX_BET": "1000000000000",
            "BURACO_INTEGRITY_ADDRESS_COINS": "1000000000000",
            "BURACO_LOG_LEVEL": "WARNING",
            # The fixtures' servers share one database but not one Redis (no deployment
            # does that): each would take the others' live tables for lost ones and void
            # their games. Tests of the reconciler set a short grace of their own.
            "BURACO_RECONCILE_GRACE_SECONDS": "86400",
            # For the same reason they leave the tournament runner's ticks to the
            # in-process app of tests/tournaments/ on the same database, whose
            # tournaments' tables they would otherwise open on their own Redis.
            "BURACO_TOURNAMENT_RUNNER": "false",
        }
    )
    for key, value in settings.items():
        env[f"BURACO_{key.upper()}"] = str(value)
    return env


def start_servers(
    count: int, pg_url: str, redis_url: str, var_dir: Path, **settings: Any
) -> list[Server]:
    """Start ``count`` uvicorn processes sharing the database and Redis; wait for /readyz."""
    var_dir.mkdir(parents=True, exist_ok=True)
    env = server_env(pg_url, redis_url, var_dir, **settings)
    servers = []
    for _ in range(count):
        port = free_port()
        log_path = var_dir / f"uvicorn-{port}.log"
        servers.append(Server(port, start_uvicorn(port, env, REPO, log_path), log_path))
    deadline = time.monotonic() + 40
    for server in servers:
        wait_ready(server.proc, server.base + "/readyz", server.log_path, deadline)
    return servers


# ---------------------------------------------------------------- a scripted player


class Closed(Exception):
    """The server closed (or dropped) the socket."""


@dataclass
class Tracked:
    """What one player knows of one table, folded from the frames it received."""

    v: int = 0
    seat: int | None = None
    players: int = 0
    phase: str = ""
    turn: int = -1
    hand: Counter[str] = field(default_factory=Counter)
    status: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    game_id: str | None = None

    @property
    def over(self) -> bool:
        return self.status in ("finished", "closed")

    def my_turn(self) -> bool:
        return (
            self.seat is not None
            and self.turn == self.seat
            and self.phase in ("draw", "play")
            and self.status == "playing"
        )


class Player:
    """A person at the keyboard, scripted: HTTP with its cookie, one WebSocket at a time."""

    def __init__(self, base: str, me: dict[str, Any], http: httpx.AsyncClient) -> None:
        self.base = base
        self.me = me
        self.id: int = me["id"]
        self.http = http
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.frames: list[dict[str, Any]] = []  # every frame of every connection, in order
        # per WebSocket message received: the (type, v) of each of its frames
        self.messages: list[list[tuple[str, Any]]] = []
        self.conn_starts: list[int] = []  # index in frames where each connection began
        self.close_codes: list[int | None] = []
        self.problems: list[str] = []  # contiguity breaks seen by the reader
        self.tables: dict[str, Tracked] = {}
        self.changed = asyncio.Event()
        self.tokens = SEND_RATE
        self.stamp = time.monotonic()
        self.cid_no = 0
        self.sent = 0
        self.pending: tuple[str, str, dict[str, Any]] | None = None  # table, cid, command

    # -- accounts

    @classmethod
    async def guest(cls, base: str) -> Player:
        http = httpx.AsyncClient(base_url=base, timeout=20)
        r = await http.post("/api/auth/guest")
        assert r.status_code == 201, r.text
        return cls(base, r.json(), http)

    @classmethod
    async def registered(cls, base: str, username: str) -> Player:
        http = httpx.AsyncClient(base_url=base, timeout=20)
        r = await http.post(
            "/api/auth/register", json={"username": username, "password": "secret-pass-1"}
        )
        assert r.status_code == 201, r.text
        return cls(base, r.json(), http)

    def tab(self) -> Player:
        """Another browser tab of the same person: same cookie, its own socket."""
        return Player(self.base, self.me, self.http)

    @property
    def cookie(self) -> str:
        value = self.http.cookies.get("buraco_session")
        assert value
        return value

    async def aclose(self) -> None:
        await self.disconnect()
        await self.http.aclose()

    # -- the socket

    async def connect(self, ws_url: str, *, origin: str = ORIGIN) -> None:
        await self.disconnect()
        self.ws = await websockets.connect(
            ws_url,
            additional_headers={"Cookie": f"buraco_session={self.cookie}", "Origin": origin},
            max_size=4 * 1024 * 1024,
            ping_interval=None,
        )
        self.conn_starts.append(len(self.frames))
        self.reader = asyncio.create_task(self._read(self.ws))
        await self.wait_frame(lambda f: f["type"] == "hello", since=self.conn_starts[-1])

    async def disconnect(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self.reader, 5)
        self.ws, self.reader = None, None

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                message = orjson.loads(raw)
                # a "batch" carries several records of one commit, in order
                inner = message["frames"] if message.get("type") == "batch" else (message,)
                self.messages.append([(f.get("type"), f.get("v")) for f in inner])
                for frame in inner:
                    self.frames.append(frame)
                    self._fold(frame)
                self.changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_codes.append(ws.close_code)
            self.changed.set()

    @property
    def connected(self) -> bool:
        return self.reader is not None and not self.reader.done()

    async def send(self, message: dict[str, Any] | str | bytes) -> int:
        """Send one frame (pacing itself under the rate limit); returns the frame index
        from which its answer is to be looked for."""
        now = time.monotonic()
        self.tokens = min(SEND_RATE, self.tokens + (now - self.stamp) * SEND_RATE)
        self.stamp = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / SEND_RATE)
            self.tokens = 1
            self.stamp = time.monotonic()
        self.tokens -= 1
        mark = len(self.frames)
        assert self.ws is not None
        data = message if isinstance(message, str | bytes) else orjson.dumps(message).decode()
        await self.ws.send(data)
        self.sent += 1
        return mark

    async def wait_frame(
        self, pred: Callable[[dict[str, Any]], bool], since: int = 0, timeout: float = 10
    ) -> dict[str, Any]:
        async def find() -> dict[str, Any]:
            i = since
            while True:
                while i < len(self.frames):
                    if pred(self.frames[i]):
                        return self.frames[i]
                    i += 1
                if not self.connected:
                    raise Closed(f"socket closed ({self.close_codes[-1:]}) while waiting")
                self.changed.clear()
                await self.changed.wait()

        return await asyncio.wait_for(find(), timeout)

    async def until(self, pred: Callable[[], bool], timeout: float = 20) -> None:
        async def loop() -> None:
            while not pred():
                if not self.connected:
                    raise Closed("socket closed while waiting")
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(loop(), timeout)

    # -- tracking what the frames say

    def _fold(self, f: dict[str, Any]) -> None:
        typ = f.get("type")
        table = f.get("table")
        if typ == "snapshot":
            t = self.tables.setdefault(table, Tracked())
            t.v, t.seat = f["v"], f["seat"]
            self._meta(t, f["meta"])
            game = f.get("game")
            if game:
                t.phase, t.turn = game["phase"], game["turn"]
                t.hand = Counter(game["hand"] or [])
            return
        if typ == "resume":
            t = self.tables[table]
            if f["from"] != t.v:
                self.problems.append(f"resume from {f['from']} but I had v {t.v}")
            return
        if typ != "event":
            return
        t = self.tables[table]
        if f["v"] != t.v + 1:
            self.problems.append(f"version {f['v']} after {t.v} on {table}")
        t.v = f["v"]
        e = f["event"]
        if f["kind"] == "table":
            t.seat = e["seat"]
            self._meta(t, e["meta"])
            return
        if f["kind"] != "game":
            return
        kind, me = e["type"], t.seat
        if kind == "hand_started":
            t.phase, t.turn = "draw", e["first"]
            t.hand = Counter(e["hand"] or [])
        elif kind == "drew":
            t.phase = "play"
            if e["seat"] == me:
                t.hand[e["card"]] += 1
        elif kind == "took_pile":
            t.phase = "play"
            if e["seat"] == me:
                t.hand.update(e["cards"])
        elif kind in ("melded", "added"):
            if e["seat"] == me:
                t.hand.subtract(e["cards"])
        elif kind == "discarded":
            if e["seat"] == me:
                t.hand.subtract([e["card"]])
            t.phase, t.turn = "draw", (e["seat"] + 1) % t.players
        elif kind == "muerto_taken":
            if e["seat"] == me:
                t.hand.update(e["cards"])
        elif kind == "hand_ended":
            t.phase = "over" if e["match_over"] else "hand_over"
        t.hand = +t.hand  # drop zero counts

    @staticmethod
    def _meta(t: Tracked, meta: dict[str, Any]) -> None:
        t.meta = meta
        t.status = meta["status"]
        t.players = meta["players"]
        t.game_id = meta.get("game_id")

    # -- actions

    def next_cid(self) -> str:
        self.cid_no += 1
        return f"c{self.cid_no}"

    async def watch(self, table: str, last_v: int | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "watch", "table": table}
        if last_v is not None:
            msg["last_v"] = last_v
        mark = await self.send(msg)
        return await self.wait_frame(
            lambda f: f.get("table") == table and f["type"] in ("snapshot", "resume", "error"),
            since=mark,
        )

    async def command(
        self, table: str, command: dict[str, Any], cid: str | None = None, timeout: float = 10
    ) -> dict[str, Any]:
        cid = cid or self.next_cid()
        self.pending = (table, cid, command)  # sent but not answered: resend after a crash
        mark = await self.send({"type": "command", "table": table, "cid": cid, "command": command})
        reply = await self.wait_frame(
            lambda f: f["type"] in ("ack", "error") and f.get("cid") == cid,
            since=mark,
            timeout=timeout,
        )
        self.pending = None
        return reply

    async def legal(self, table: str) -> dict[str, Any]:
        mark = await self.send({"type": "legal", "table": table})
        return await self.wait_frame(
            lambda f: (f["type"] == "legal" and f["table"] == table) or f["type"] == "error",
            since=mark,
        )

    async def play_turn_step(self, table: str, rng: random.Random) -> dict[str, Any] | None:
        """One command of a scripted person: take the pile or draw; lay melds; discard.
        Returns the ack/error, or None when it was not (or no longer) this seat's turn."""
        t = self.tables[table]
        if t.phase == "draw" and rng.random() < 0.6:
            command: dict[str, Any] = {"type": "draw"}
        else:
            legal = await self.legal(table)
            if legal["type"] == "error":
                return legal
            await self.until(lambda: t.v >= legal["v"])
            if legal["v"] != t.v or not t.my_turn() or not legal["commands"]:
                return None
            command = choose(legal["commands"], rng)
        ack = await self.command(table, command)
        if ack["type"] == "ack":
            await self.until(lambda: t.v >= ack["v"])
        return ack

    async def play_until_over(
        self,
        table: str,
        rng: random.Random,
        *,
        stop: Callable[[], bool] = lambda: False,
        timeout: float = 90,
    ) -> list[dict[str, Any]]:
        """Play this seat until the game ends (or ``stop()``). Returns the error frames."""
        t = self.tables[table]
        errors: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while not t.over and not stop():
            if time.monotonic() > deadline:
                raise TimeoutError(f"game not over after {timeout}s (v {t.v})")
            if not t.my_turn():
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), 0.5)
                if not self.connected:
                    raise Closed("socket closed while playing")
                continue
            result = await self.play_turn_step(table, rng)
            if result is not None and result["type"] == "error":
                if result["code"] in ENDED_CODES and await self._ends(t):
                    continue  # a draw sent just before the frame saying the game ended
                errors.append(result)
        return errors

    async def _ends(self, t: Tracked) -> bool:
        """Did the game end around now (its closing frames may still be on the way)?"""
        with contextlib.suppress(TimeoutError):
            await self.until(lambda: t.over, timeout=3)
        return t.over


# A command racing the frame that ends the game is refused with one of these.
ENDED_CODES = ("table_not_playing", "game_over", "hand_over")


def choose(commands: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A plausible person: lay the biggest meld, add when possible, else discard."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for c in commands:
        by_type.setdefault(c["type"], []).append(c)
    if "take_discard" in by_type and rng.random() < 0.5:
        return rng.choice(by_type["take_discard"])
    if "meld" in by_type and rng.random() < 0.85:
        return max(by_type["meld"], key=lambda c: (len(c["cards"]), rng.random()))
    if "add" in by_type and rng.random() < 0.8:
        return rng.choice(by_type["add"])
    if "discard" in by_type:
        return rng.choice(by_type["discard"])
    if "draw" in by_type:
        return by_type["draw"][0]
    return rng.choice(commands)


# ---------------------------------------------------------------- tables over HTTP


async def close_all(people: list[Player], servers: list[Server]) -> None:
    """The end of a test that started its own servers: every player's socket and HTTP
    client, then every server."""
    for p in people:
        await p.aclose()
    for server in servers:
        server.stop()


async def create_table(host: Player, **body: Any) -> dict[str, Any]:
    r = await host.http.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


async def seat_all(people: list[Player], **table: Any) -> str:
    """The first player opens a table (``table``: the body of ``POST /api/tables``) and
    sits; the others sit in seat order; returns once every one sees the game playing."""
    tid = str((await create_table(people[0], **table))["id"])
    for p in people:
        await p.watch(tid)
    for seat, p in enumerate(people[1:], start=1):
        await sit(p, tid, seat)
    for p in people:
        await p.until(lambda p=p: p.tables[tid].status == "playing")
    return tid


async def cut_deck(table: str, people: list[Player], position: int = 30) -> None:
    """The seat the table's cut prompt names cuts at ``position``; returns once every
    player has been dealt."""
    cutter = people[people[0].tables[table].meta["cut"]["seat"]]
    cid = cutter.next_cid()
    mark = await cutter.send({"type": "cut", "table": table, "cid": cid, "position": position})
    ack = await cutter.wait_frame(
        lambda f: f["type"] in ("ack", "error") and f.get("cid") == cid, since=mark
    )
    assert ack["type"] == "ack", ack
    for p in people:
        await p.until(lambda p=p: p.tables[table].phase == "draw")


async def play_hand(table: str, people: list[Player], seed: int) -> None:
    """Every seat plays until the hand ends with the match going on, and the next deal's
    cut is asked for."""
    rngs = [random.Random(seed * 10 + i) for i in range(len(people))]
    results = await asyncio.gather(
        *(
            p.play_until_over(table, rng, stop=lambda p=p: p.tables[table].phase == "hand_over")
            for p, rng in zip(people, rngs, strict=True)
        )
    )
    assert results == [[]] * len(people)
    for p in people:
        await p.until(lambda p=p: p.tables[table].meta.get("cut") is not None)


def hands_ended(player: Player) -> list[dict[str, Any]]:
    """The ``hand_ended`` events this player received, as it saw them."""
    return [
        f["event"]
        for f in player.frames
        if f.get("kind") == "game" and f["event"]["type"] == "hand_ended"
    ]


async def sit(player: Player, table: str, seat: int | None = None) -> dict[str, Any]:
    r = await player.http.post(f"/api/tables/{table}/sit", json={"seat": seat})
    assert r.status_code == 200, r.text
    return dict(r.json())


async def archived_game(player: Player, game_id: str, timeout: float = 15) -> dict[str, Any]:
    """GET /api/games/{id} once the game has been written to Postgres."""
    deadline = time.monotonic() + timeout
    while True:
        r = await player.http.get(f"/api/games/{game_id}")
        if r.status_code == 200:
            return dict(r.json())
        assert r.status_code == 404, r.text
        if time.monotonic() > deadline:
            raise TimeoutError(f"game {game_id} never archived")
        await asyncio.sleep(0.1)
