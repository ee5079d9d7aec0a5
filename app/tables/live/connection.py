"""One WebSocket connection: parse, rate-limit, dispatch; one pump writes the frames.

On uvicorn's sans-I/O protocol a socket has one task, its pump, and no task waiting to
read: a plain text message goes to the pump from the protocol's callback (``_take``),
and what that declines (a close, a binary frame, a refusal for rate) is queued for the
pump to read, in order. The next commit of a watched table is written by the hub's
callback while the pump waits with nothing queued (``_write_now``), since nothing can
be ahead of it. Everything else goes the long way, in order. On another server a
second task reads the socket."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from app.core import metrics
from app.core.errors import AppError, database_unreachable
from app.core.lean import ReceiveQueue, Wake
from app.core.logging import WsSession
from app.rules.legal import legal_commands
from app.rules.serialize import command_from_dict, command_to_dict
from app.rules.state import HAND_OVER
from app.social import presence
from app.tables.live import emotes, sockets
from app.tables.live.fanout import Deliver, Hub, TableWatch, shared_frames, snapshot_frame
from app.tables.live.protocol import (
    CLIENT_MESSAGE,
    MAX_FRAME_BYTES,
    RATE_PER_SECOND,
    REDIS_UNAVAILABLE,
    CommandMsg,
    CutMsg,
    EmoteMsg,
    LeaveMsg,
    LegalMsg,
    LobbyMsg,
    Ping,
    SeedMsg,
    Unwatch,
    Watch,
    error_frame,
    server_busy,
)
from app.tables.play import absence
from app.tables.play.service import TableService
from app.tables.storage import listing
from app.tables.storage.store import LOBBY_CHANNEL, table_channel, user_channel

log = logging.getLogger("app.ws")

LOBBY_CHAT = "chat:lobby"


def table_chat(table_id: str) -> str:
    return f"chat:table:{table_id}"


# Items waiting for a socket whose client stopped reading (the pump is then stuck behind
# the server's write buffer): past this many the client is dropped with 4009 and resyncs
# when it comes back, so an idle phone costs a bounded amount of memory.
MAX_QUEUE = 256
HANG_UP_SECONDS = 1.0  # a close frame that cannot be written by then: drop the connection
DRAIN_SECONDS = 2.0  # how long a socket being closed for flooding may take to flush
# Records read back from a finished table's log to find its last hand's end: the end
# itself, the table's record that follows it and any seat or clock facts in between.
FINAL_TAIL = 16
FLOOD_CLOSE_AFTER = 100  # messages refused for rate in a row before the socket is closed


class Connection:
    def __init__(
        self,
        ws: WebSocket,
        user_id: int,
        name: str,
        hub: Hub,
        svc: TableService,
        session: sockets.SocketSession | None = None,
    ) -> None:
        self.ws = ws
        self.user_id = user_id
        self.name = name
        self.hub = hub
        self.svc = svc
        # The pump's work: a list and one reusable wait to wake the pump (made at its
        # first wait), not an asyncio.Queue (three deques and a lock-step API this single
        # consumer does not need), nor a deque (0.7 KiB even when empty; the list holds a
        # few items at most but for a client that stops reading, and never more than
        # MAX_QUEUE), nor a future made at each wait (app/core/lean.py, ``Wake``).
        self.queue: list[tuple[str, Any]] = []
        self._wake: Wake | None = None
        self.watches: dict[str, TableWatch] = {}
        self.tokens = float(RATE_PER_SECOND)
        self.stamp = time.monotonic()
        self.refused = 0
        self.closed = False
        self.closing = False  # a close is queued behind the frames still to be written
        self.session = session or sockets.SocketSession()
        self.socket_id = sockets.new_socket_id()
        self.opened_at: float | None = None  # when counted among the user's sockets
        self.private = user_channel(user_id)
        self.hang_up: asyncio.Task[None] | None = None
        # What the protocol's callback declined, for the pump to read (uvicorn's sans-I/O
        # protocol), or else the task reading the socket: ending the socket from outside
        # (session over, evicted, too slow) cancels that read, since a client that
        # neither reads nor writes would otherwise keep it waiting for ever.
        self._declined: ReceiveQueue | None = None
        self._reader: asyncio.Task[None] | None = None
        self.ws_log = WsSession(user_id)  # its closing log line and the socket gauge
        # The one callable the hub holds for this socket on every channel it listens to
        # (``self.deliver`` makes a new bound method at each read).
        self.listener: Deliver = self.deliver
        self.direct = sockets.direct_text_sender(self.session.raw_send)
        # Frames the hub may write itself while the pump is idle (``_write_now``).
        self._now = self.direct if isinstance(self.direct, sockets.SansIOSender) else None
        if hub.table_cache is None:  # the hub keeps the service's cache in step
            hub.table_cache = svc.cache

    # -- delivery from the hub (runs in the hub's task: never blocks)

    def deliver(self, channel: str, payload: Any) -> None:
        if (
            channel == self.private
            and isinstance(payload, dict)
            and payload.get("type") == sockets.CONTROL
        ):
            close = sockets.verdict(payload, self.socket_id, self.session.token_hash)
            if close is not None:
                self.end(*close)
            return
        if channel.startswith("tch:") and (self._seen(payload) or self._write_now(payload)):
            return
        self._enqueue(("pub", (channel, payload)))

    def _write_now(self, payload: Any) -> bool:
        """Write a table's commit from the hub's callback when the pump has nothing to
        do: its queue is empty and it waits for work, so nothing can be ahead of this
        frame and nothing else is writing. The common case of every socket at every
        move: one shared frame for its viewer kind, the next version, a seat already
        counted present, a socket open and writable now. It saves waking the pump (a
        future, a task step and four coroutines a socket). Anything else (a gap, a
        table record, a socket to count present, a paused transport, a busy pump)
        returns False, and the pump handles the commit as before."""
        wake, sender = self._wake, self._now
        if (
            wake is None
            or not wake.waiting
            or self.queue
            or self.closed
            or self.closing
            or sender is None
            or not isinstance(payload, dict)
        ):
            return False
        watch = self.watches.get(payload.get("t", ""))
        if (
            watch is None
            or (watch.seat is not None and not watch.present)
            or self.ws.application_state != WebSocketState.CONNECTED
            or not sender.ready()
        ):
            return False
        text = shared_frames(payload, watch)
        if text is None:
            return False
        try:
            sender.write(text)
        except Exception:  # as in _write_text: the socket is gone; the pump ends
            self.closed = True
            wake.set()
        return True

    def _seen(self, payload: Any) -> bool:
        """A commit this socket already has: the mover's own move, whose frames went out
        with its ack, coming back through pub/sub. Dropped here rather than waking the
        pump to skip it (the pump would find every record at or below ``last_v``)."""
        watch = self.watches.get(payload.get("t", "")) if isinstance(payload, dict) else None
        if watch is None or (watch.seat is not None and not watch.present):
            return False  # the pump still has to count this seated socket as present
        records = payload.get("records")
        return bool(records) and records[-1]["v"] <= watch.last_v

    def send(self, frame: dict[str, Any]) -> None:
        self._enqueue(("frame", frame))

    def _enqueue(self, item: tuple[str, Any]) -> None:
        if len(self.queue) >= MAX_QUEUE:
            self.end(*sockets.TOO_SLOW)
            return
        self.push(item)

    def push(self, item: tuple[str, Any]) -> None:
        """Queue work for the pump, past the bound (a close must always get in)."""
        self.queue.append(item)
        self._wake_pump()

    def _wake_pump(self) -> None:
        wake = self._wake
        if wake is not None:
            wake.set()  # only while the pump waits: it looks at its queue before it does

    def end(self, code: int, reason: str) -> None:
        """Close from outside the pump, which may be stuck behind a client that does not
        read: the close frame goes out at once if it can, else the connection is dropped."""
        if self.hang_up is not None:
            return
        log.info("closing the socket of user %s: %s", self.user_id, reason)
        self.ws_log.closed(code)
        self.closed = True
        self._wake_pump()
        # A reading task of its own (another server than uvicorn's sans-I/O one) is
        # stopped, but not when it ends the socket itself (its queue full): a cancel it
        # asked of itself would fall on whatever it awaits next.
        reader = self._reader
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
        self.hang_up = asyncio.get_running_loop().create_task(
            sockets.hang_up(self.ws, code, reason, HANG_UP_SECONDS, self.session.raw_send)
        )

    # -- lifecycle

    async def run(self) -> None:
        self.hub.sockets.add(self)
        self.hub.expiry.note(self.session.expires_at)
        await self.hub.add(self.private, self.listener)
        # After subscribing, so a newer socket's eviction notice cannot be missed. Redis
        # down: the cap waits for it, the socket is served.
        # Counted again by Hub.recount_sockets when Redis lost the count (or was down here).
        self.opened_at = time.time()
        with contextlib.suppress(*REDIS_UNAVAILABLE):
            await sockets.register(
                self.svc.redis,
                self.user_id,
                self.socket_id,
                self.session.max_sockets,
                self.opened_at,
            )
        await presence.mark_online(self.svc.redis, self.user_id, self.svc.settings.redis_buckets)
        self.send({"type": "hello", "user": {"id": self.user_id, "name": self.name}})
        # The socket's own task is its pump: what the client sends is taken in the
        # protocol's callback (``_take``), or queued for the pump to read when declined
        # (``_read_declined``). Only on another server does a second task read.
        taken = sockets.take_receives(self.session.raw_send, self._take, self._wake_pump)
        self._declined = taken
        if taken is None:
            self._reader = asyncio.get_running_loop().create_task(self._read())
        try:
            await self._pump()
        finally:
            self.closed = True
            if taken is not None:
                taken.sink = taken.notify = None
            self._declined = None
            reader, self._reader = self._reader, None
            if reader is not None:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader
            if self.hang_up is not None:  # the close frame goes out before we return
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(self.hang_up), HANG_UP_SECONDS * 2)
            self.hub.sockets.discard(self)
            await self._cleanup()
            self.ws_log.end()

    async def _cleanup(self) -> None:
        """Every step runs even when one fails (Redis down: an unsubscribe refused), so
        the connection is never left among the hub's listeners."""
        steps: list[Callable[[], Coroutine[Any, Any, Any]]] = [
            lambda: self.hub.remove(self.private, self.listener),
            lambda: sockets.unregister(self.svc.redis, self.user_id, self.socket_id),
            lambda: self.hub.remove(LOBBY_CHANNEL, self.listener),
            lambda: self.hub.remove(LOBBY_CHAT, self.listener),
        ]
        for table_id in list(self.watches):
            steps.append(lambda table_id=table_id: self._unwatch(table_id))  # type: ignore[misc]
        for step in steps:
            try:
                await step()
            except REDIS_UNAVAILABLE:
                log.warning("Redis unavailable while closing a socket of user %s", self.user_id)
            except Exception:
                log.exception("closing a socket of user %s", self.user_id)

    async def _read(self) -> None:
        """A reading task, for a server whose protocol has no lean queue to take messages
        from in its callback: each message is handled as the pump handles a declined
        one, and the pump is woken to end when the client has left."""
        while not self.closed and await self._read_one():
            pass

    async def _read_declined(self) -> None:
        """Read what the protocol's callback declined (``_take``), in order: each read
        returns at once, the messages being queued already."""
        queue = self._declined
        while queue is not None and queue.qsize() and not self.closed:
            if not await self._read_one():
                return

    async def _read_one(self) -> bool:
        """Read and handle one message; False once the client has left."""
        try:
            message = await self.ws.receive()
        except (WebSocketDisconnect, RuntimeError) as exc:
            self._left(getattr(exc, "code", None))
            return False
        self._on_message(message)
        return True

    def _left(self, code: int | None) -> None:
        """The client closed the socket, or its connection was lost."""
        self.ws_log.closed(code)
        self.closed = True
        self._wake_pump()

    def _on_message(self, message: Any) -> None:
        """One message from the client that ``_take`` did not take: a disconnect, a
        binary frame, a frame that may be too large, one beyond the rate."""
        if self.closed or self.closing:
            return
        if message["type"] == "websocket.disconnect":
            self._left(message.get("code"))
            return
        text = message.get("text")
        if text is None:
            data = message.get("bytes") or b""
            if len(data) > MAX_FRAME_BYTES:
                self._close_after(1009)
                return
            self.send(error_frame("bad_message", "Send JSON text frames."))
            return
        # The limit is in bytes: count them when the characters alone do not settle it.
        if len(text) > MAX_FRAME_BYTES or (
            len(text) * 4 > MAX_FRAME_BYTES and len(text.encode()) > MAX_FRAME_BYTES
        ):
            self._close_after(1009)
            return
        if not self._allow():
            self.refused += 1
            if self.refused >= FLOOD_CLOSE_AFTER:
                self._close_after(1008)  # after the error frames queued before it
                return
            self.send(error_frame("rate_limited", "Too many messages; slow down."))
            return
        self.refused = 0
        self._enqueue(("msg", text))

    def _close_after(self, code: int) -> None:
        """Close once the pump has written what is queued before the close; the client's
        further messages are ignored. A pump stuck behind a client that does not read
        gets ``DRAIN_SECONDS``: the socket is then closed from outside (``end``), the
        connection dropped if not even the close frame can be written."""
        self.closing = True
        self.push(("close", code))
        asyncio.get_running_loop().call_later(DRAIN_SECONDS, self._drained, code)

    def _drained(self, code: int) -> None:
        if not self.closed:
            self.end(code, "")

    def _allow(self) -> bool:
        self._refill()
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(RATE_PER_SECOND, self.tokens + (now - self.stamp) * RATE_PER_SECOND)
        self.stamp = now

    def _take(self, message: Any) -> bool:
        """The common message, taken in the protocol's callback
        (``sockets.take_receives``): a text frame plainly within the size limit, from a
        client within its rate, on a socket that is not closing, goes to the pump as
        ``_on_message`` would send it. Anything else (binary, a frame that may be too
        large, a refusal for rate, a close, a disconnect) is declined before anything
        changes, and the pump reads it and hands it to ``_on_message``."""
        if type(message) is not dict or message.get("type") != "websocket.receive":
            return False
        text = message.get("text")
        if type(text) is not str or len(text) * 4 > MAX_FRAME_BYTES or self.closed or self.closing:
            return False
        self._refill()
        if self.tokens < 1 or len(self.queue) >= MAX_QUEUE:
            return False
        self.tokens -= 1
        self.refused = 0
        self.push(("msg", text))
        return True

    async def _close(self, code: int) -> None:
        self.closed = True
        self.ws_log.closed(code)
        with contextlib.suppress(Exception):
            await self.ws.close(code=code)

    async def _write(self, frame: dict[str, Any]) -> None:
        await self._write_text(orjson.dumps(frame).decode())

    async def _write_text(self, text: str) -> None:
        if self.ws.application_state != WebSocketState.CONNECTED:
            self.closed = True
            return
        try:
            if self.direct is not None:
                await self.direct(text)
            else:
                await self.ws.send_text(text)
        except Exception:
            self.closed = True

    async def _write_frames(self, frames: list[dict[str, Any]]) -> None:
        if len(frames) == 1:
            await self._write(frames[0])
        elif frames:
            await self._write({"type": "batch", "frames": frames})

    # -- the pump: the only writer but for ``_write_now``, which runs while it waits

    async def _pump(self) -> None:
        queue = self.queue
        while not self.closed:
            declined = self._declined
            if declined is not None and declined.qsize():
                await self._read_declined()
                continue
            if not queue:
                wake = self._wake
                if wake is None:
                    wake = self._wake = Wake(asyncio.get_running_loop())
                await wake
                continue
            kind, item = queue.pop(0)
            try:
                if kind == "frame":
                    await self._write(item)
                elif kind == "msg":
                    await self._handle_text(item)
                elif kind == "close":
                    await self._close(item)
                else:
                    await self._handle_pub(*item)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                # Redis or the database not answering: retryable, not a fault of ours.
                if isinstance(exc, REDIS_UNAVAILABLE) or database_unreachable(exc):
                    log.warning("store unavailable for user %s on %s: %r", self.user_id, kind, exc)
                    busy = server_busy()
                    await self._write(error_frame(busy.code, busy.message))
                else:
                    log.exception("connection of user %s failed on %s", self.user_id, kind)
                    await self._write(error_frame("internal_error", "Something went wrong."))
            finally:
                # The pump waits for its next item holding nothing of this one: a commit's
                # payload (a deal's, every card dealt in it, is about 16 KiB a table)
                # would otherwise live on in this frame until the table's next commit.
                del item
        if (
            self.ws.application_state == WebSocketState.CONNECTED
            and self.ws.client_state == WebSocketState.CONNECTED
            and self.hang_up is None
        ):
            await self._close(1000)

    async def _handle_pub(self, channel: str, payload: Any) -> None:
        if channel.startswith("tch:"):
            watch = self.watches.get(payload.get("t", ""))
            if watch is None:
                return
            shared = shared_frames(payload, watch)  # the common case: no per-socket work
            if shared is not None:
                await self._write_text(shared)
                await self._count_presence(watch)
                return
            # One WebSocket message per commit: its records (a discard and the next
            # turn's clock, say) go out together as a "batch" when there are several.
            frames: list[dict[str, Any]] = []
            for record in payload.get("records", []):
                v = record["v"]
                if v <= watch.last_v:
                    continue  # already seen (a resync or a snapshot covered it)
                if v > watch.last_v + 1:
                    await self._write_frames(frames)
                    frames = []
                    if not await self._fill_gap(watch, v - 1):
                        return
                if v <= watch.last_v:
                    continue
                frames.append(watch.frame(record))
                watch.last_v = v
            await self._write_frames(frames)
            await self._count_presence(watch)
            return
        if channel.startswith("chat:") and not await self._may_see(payload):
            return
        await self._write(payload)  # lobby, chat and personal messages go out as they are

    async def _may_see(self, message: Any) -> bool:
        """Chat from a player blocked either way never reaches this viewer (the social
        layer keeps ``chat:hidden:{viewer}`` in step with the blocks)."""
        author = message.get("user_id") if isinstance(message, dict) else None
        if author is None:
            return True
        hidden = await self.svc.redis.sismember(f"chat:hidden:{self.user_id}", str(author))
        return not hidden

    async def _fill_gap(self, watch: TableWatch, upto: int) -> bool:
        """Versions were lost on the way (pub/sub is at most once): read them from the
        table's log, or send a fresh snapshot when the gap is too long to replay."""
        records = await self.svc.store.records_since(watch.table_id, watch.last_v, upto)
        if records is None:
            await self._snapshot(watch)
            return True
        for record in records:
            await self._write(watch.frame(record))
            watch.last_v = record["v"]
        return True

    async def _snapshot(self, watch: TableWatch) -> None:
        v, meta, state = await self.svc.load(watch.table_id)
        watch.update_meta(meta)
        watch.last_v = v
        frame = snapshot_frame(watch.table_id, v, meta, state, watch.seat)
        between_hands = state is not None and state.phase == HAND_OVER and state.hand_no > 0
        if meta.status == "finished" or between_hands:
            frame["result"] = await self._final_result(watch)
        await self._write(frame)

    async def _final_result(self, watch: TableWatch) -> dict[str, Any] | None:
        """The last hand's ``hand_ended`` event as this viewer saw it live, so that a
        table opened again after a hand ended (a reload on the score sheet, while the
        next hand waits for its cut; or on a finished game's result sheet) shows that
        sheet, with a finished game's rematch and replay, instead of a bare board. It is
        among the last records of the log (the hand's end, then the table's); None when
        the log no longer has it."""
        for record in reversed(await self.svc.store.log_from(watch.table_id, -FINAL_TAIL)):
            if record.get("k") == "g" and record.get("e", {}).get("type") == "hand_ended":
                return watch.frame(record)["event"]  # type: ignore[no-any-return]
        return None

    # -- client messages

    async def _handle_text(self, text: str) -> None:
        try:
            raw = orjson.loads(text)
        except orjson.JSONDecodeError:
            await self._write(error_frame("bad_json", "That frame is not valid JSON."))
            return
        try:
            msg = CLIENT_MESSAGE.validate_python(raw)
        except ValidationError as exc:
            cid = (
                raw.get("cid")
                if isinstance(raw, dict) and isinstance(raw.get("cid"), str)
                else None
            )
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "message"
            await self._write(
                error_frame(
                    "bad_message",
                    f"{where}: {first.get('msg', 'invalid')}",
                    cid[:64] if cid else None,
                )
            )
            return
        try:
            try:
                await self._dispatch(msg)
            except REDIS_UNAVAILABLE:
                log.warning("Redis unavailable for user %s", self.user_id)
                raise server_busy() from None
        except AppError as exc:
            metrics.REFUSALS.labels(exc.code).inc()
            cid = getattr(msg, "cid", None)
            await self._write(error_frame(exc.code, exc.message, cid))

    async def _dispatch(self, msg: Any) -> None:
        if isinstance(msg, Ping):
            await presence.mark_online(
                self.svc.redis, self.user_id, self.svc.settings.redis_buckets
            )
            await self._write({"type": "pong", "t": time.time()})
        elif isinstance(msg, LobbyMsg):
            await self._lobby(msg.on)
        elif isinstance(msg, Watch):
            await self._watch(msg.table, msg.last_v)
        elif isinstance(msg, Unwatch):
            await self._unwatch(msg.table)
        elif isinstance(msg, CommandMsg):
            await self._command(msg)
        elif isinstance(msg, LegalMsg):
            await self._legal(msg.table)
        elif isinstance(msg, CutMsg):
            v, _ = await self.svc.cut(msg.table, self.user_id, msg.position, msg.seed)
            await self._write({"type": "ack", "cid": msg.cid, "table": msg.table, "v": v})
        elif isinstance(msg, SeedMsg):
            v = await self.svc.add_client_seed(msg.table, self.user_id, msg.seed)
            await self._write({"type": "ack", "cid": msg.cid, "table": msg.table, "v": v})
        elif isinstance(msg, LeaveMsg):
            v = await self.svc.abandon(msg.table, self.user_id)
            await self._write({"type": "left", "table": msg.table, "v": v})
        elif isinstance(msg, EmoteMsg):
            sender = emotes.Sender(
                self.svc, self.ws.app.state.sessionmaker, self.user_id, self.name, self.watches
            )
            await emotes.send(sender, msg)

    async def _lobby(self, on: bool) -> None:
        if not on:
            await self.hub.remove(LOBBY_CHANNEL, self.listener)
            await self.hub.remove(LOBBY_CHAT, self.listener)
            return
        await self.hub.add(LOBBY_CHANNEL, self.listener)
        await self.hub.add(LOBBY_CHAT, self.listener)
        tables = await listing.waiting(self.svc.store, {})
        playing = await listing.playing(self.svc.store, {})
        await self._write({"type": "lobby", "tables": tables, "playing": playing})

    async def _watch(self, table_id: str, last_v: int | None) -> None:
        _, meta, _ = await self.svc.load(table_id)
        if not meta.may_watch(self.user_id):
            raise AppError("not_invited", "That table is private.", 403)
        watch = self.watches.get(table_id)
        if watch is None:
            watch = self.watches[table_id] = TableWatch(table_id, self.user_id)
            self.ws_log.watched(table_id)
            await self.hub.add(table_channel(table_id), self.listener)
            await self.hub.add(table_chat(table_id), self.listener)
        v, meta, state = await self.svc.load(table_id)
        watch.update_meta(meta)
        await self._count_presence(watch)
        if last_v is not None and 0 < last_v <= v:
            records = await self.svc.store.records_since(table_id, last_v, v)
            if records is not None:
                watch.last_v = last_v
                await self._write({"type": "resume", "table": table_id, "from": last_v, "v": v})
                for record in records:
                    await self._write(watch.frame(record))
                    watch.last_v = record["v"]
                return
        await self._snapshot(watch)

    async def _count_presence(self, watch: TableWatch) -> None:
        """Count this socket once among its player's sockets at a table where the player
        sits (from whenever it learns of the seat, waiting or playing), so that closing
        one of two tabs never starts the grace clock of a player still connected."""
        if watch.seat is not None and not watch.present:
            watch.present = True
            await absence.set_connected(self.svc, watch.table_id, self.user_id, True)

    async def _unwatch(self, table_id: str) -> None:
        watch = self.watches.pop(table_id, None)
        if watch is None:
            return
        for channel in (table_channel(table_id), table_chat(table_id)):
            try:  # both, even when Redis refuses the first unsubscribe
                await self.hub.remove(channel, self.listener)
            except REDIS_UNAVAILABLE:
                log.warning("Redis unavailable while leaving %s", channel)
        if watch.present:
            with contextlib.suppress(Exception):
                _, meta, _ = await self.svc.load(table_id)
                await absence.set_connected(
                    self.svc, table_id, self.user_id, False, playing=meta.status == "playing"
                )

    async def _command(self, msg: CommandMsg) -> None:
        try:
            command = command_from_dict(msg.command.model_dump(exclude_none=True))
        except (ValueError, KeyError) as exc:
            raise AppError("bad_card", str(exc)) from None
        v, records = await self.svc.command(msg.table, self.user_id, msg.cid, command)
        ack = {"type": "ack", "cid": msg.cid, "table": msg.table, "v": v}
        watch = self.watches.get(msg.table)
        if watch is not None and records and records[0]["v"] == watch.last_v + 1:
            # The mover sees its own move at once, in one message with the ack, instead
            # of a second message when its copy comes back through pub/sub (that copy is
            # then already seen and skipped). Not when this socket is behind: the
            # versions it still waits for are queued before the copy, in order.
            frames = [watch.frame(r) for r in records]
            watch.last_v = records[-1]["v"]
            await self._write({"type": "batch", "frames": [*frames, ack]})
            return
        await self._write(ack)

    async def _legal(self, table_id: str) -> None:
        v, meta, state = await self.svc.load(table_id)
        seat = meta.seat_of(self.user_id)
        if seat is None or state is None:
            raise AppError("not_seated", "You do not play at that table.", 403)
        commands = [command_to_dict(c) for c in legal_commands(state, seat)]
        await self._write({"type": "legal", "table": table_id, "v": v, "commands": commands})
