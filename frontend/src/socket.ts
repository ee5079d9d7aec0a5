// The one WebSocket: reconnects by itself and resumes every watched table from the last
// version it saw (watch {table, last_v}); the server replays what was missed or sends a
// fresh snapshot. Outgoing messages are paced below the server's 20 per second.
//
// A table page's socket is opened as /ws?table=ID, and the balancer picks the app process
// by that ID (deploy/Caddyfile), so all of a table's players and spectators share one
// process and only that one receives the table's moves
// (docs/decisions/0028-sockets-routed-by-table.md). Opening a table switches to a socket
// routed by it; leaving for the lobby keeps the one there is.

type Frame = { type: string; [key: string]: any };
type Listener = (frame: Frame) => void;
export type SocketState = "connecting" | "open" | "down";

const MAX_PER_SECOND = 15;
const RETRY_BASE_MS = 400;
const RETRY_CAP_MS = 15000;

/** Close codes the server uses on purpose (docs/protocol.md). */
export const CLOSE = { SESSION_ENDED: 4001, BAD_ORIGIN: 4003, TOO_MANY: 4008, TOO_SLOW: 4009, RESTART: 1012 } as const;

/** Full-jitter exponential backoff: a random wait up to base * 2^attempt (capped), so
 * thousands of clients dropped by one restart do not all come back at the same instant. */
export function backoff(attempt: number, random = Math.random): number {
  return Math.round(random() * Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt));
}

export class GameSocket {
  private ws: WebSocket | null = null;
  private listeners = new Map<string, Set<Listener>>();
  private stateListeners = new Set<(s: SocketState) => void>();
  private watched = new Map<string, number | null>();
  private route: string | null = null; // the table the socket is routed by (?table=)
  private switching = false; // closing one socket for another routed by a new table
  private lobby = false;
  private queue: string[] = [];
  private sent: number[] = [];
  private retry = 0;
  private timer: number | undefined;
  private flushTimer: number | undefined;
  private pinger: number | undefined;
  private stopped = true;
  state: SocketState = "down";
  clockOffset = 0; // server time - local time, in seconds
  private pingSent = 0; // when the last ping went (ms, local clock)
  private bestRtt = Infinity; // the shortest ping round trip seen (ms)
  hasConnected = false;
  closeCode = 0; // why the last socket closed (0: it has not)
  restarting = false; // the server said it is shutting down (a restart)
  private endListeners = new Set<() => void>();

  /** Connects, routed by ``table`` when the page opens on a table. */
  start(table: string | null = null): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.route = table;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.timer);
    window.clearInterval(this.pinger);
    this.ws?.close();
    this.ws = null;
    this.watched.clear();
    this.route = null;
    this.switching = false;
    this.setState("down");
  }

  /** The player asked to connect again (after 4008: the game was opened elsewhere). */
  reconnect(): void {
    window.clearTimeout(this.timer);
    this.stopped = false;
    this.retry = 0;
    if (!this.ws) this.connect();
  }

  /** The session ended (logout elsewhere, password changed...): sign in again. */
  onSessionEnded(fn: () => void): void {
    this.endListeners.add(fn);
  }

  /** Test hook and "lost connection" simulation: close without stopping. */
  drop(): void {
    this.ws?.close();
  }

  /** The socket's address: routed by the table it was opened for, if any. */
  url(): string {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const query = this.route ? `?table=${encodeURIComponent(this.route)}` : "";
    return `${proto}//${location.host}/ws${query}`;
  }

  /** Between the old socket's close and the new one's open while switching to a socket
   * routed by another table: not a lost connection, so no banner. */
  get isSwitching(): boolean {
    return this.switching;
  }

  private connect(): void {
    const ws = new WebSocket(this.url());
    this.ws = ws;
    this.setState("connecting");
    ws.onopen = () => {
      this.retry = 0;
      this.hasConnected = true;
      this.restarting = false;
      this.switching = false;
      this.setState("open");
      if (this.lobby) this.rawSend({ type: "lobby", on: true });
      for (const [table, v] of this.watched) this.rawSend(watchMsg(table, v));
      this.ping();
      window.clearInterval(this.pinger);
      this.pinger = window.setInterval(() => this.ping(), 20000);
    };
    ws.onmessage = (msg) => this.receive(msg.data);
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.switching = false;
      window.clearInterval(this.pinger);
      if (this.stopped) return;
      this.closeCode = ev.code;
      if (ev.code === CLOSE.SESSION_ENDED) {
        this.stop();
        this.endListeners.forEach((fn) => fn());
        return;
      }
      this.setState("down");
      // Refused (bad origin) or replaced by a newer tab: trying again would only loop.
      if (ev.code === CLOSE.BAD_ORIGIN || ev.code === CLOSE.TOO_MANY) return;
      this.timer = window.setTimeout(() => this.connect(), backoff(this.retry++));
    };
  }

  private receive(data: string): void {
    let frame: Frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (frame.type === "batch" && Array.isArray(frame.frames)) {
      // several records of one commit in one message: handled one by one, in order
      frame.frames.forEach((inner: Frame) => this.dispatch(inner));
      return;
    }
    this.dispatch(frame);
  }

  private dispatch(frame: Frame): void {
    if (frame.type === "server_restart") this.restarting = true;
    if (frame.type === "pong" && typeof frame.t === "number") this.onPong(frame.t);
    if ((frame.type === "snapshot" || frame.type === "event") && this.watched.has(frame.table)) {
      this.watched.set(frame.table, frame.v);
    }
    this.listeners.get(frame.type)?.forEach((fn) => fn(frame));
    this.listeners.get("*")?.forEach((fn) => fn(frame));
  }

  on(type: string, fn: Listener): () => void {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(fn);
    return () => this.listeners.get(type)?.delete(fn);
  }

  onState(fn: (s: SocketState) => void): void {
    this.stateListeners.add(fn);
  }

  private setState(s: SocketState): void {
    this.state = s;
    this.stateListeners.forEach((fn) => fn(s));
  }

  setLobby(on: boolean): void {
    this.lobby = on;
    if (this.state === "open") this.send({ type: "lobby", on });
  }

  watch(table: string): void {
    if (!this.watched.has(table)) this.watched.set(table, null);
    if (this.route !== table) {
      this.route = table;
      // A socket routed otherwise (the lobby's, another table's) is swapped for one routed
      // by this table; the new one watches every watched table as it opens.
      if (this.ws) {
        this.switchSocket();
        return;
      }
    }
    if (this.state === "open") this.send(watchMsg(table, null));
  }

  private switchSocket(): void {
    const old = this.ws;
    this.ws = null; // its close is not a lost connection: onclose ignores it
    old?.close();
    window.clearInterval(this.pinger);
    window.clearTimeout(this.timer);
    this.switching = true;
    this.connect();
  }

  unwatch(table: string): void {
    if (this.watched.delete(table)) this.send({ type: "unwatch", table });
  }

  lastV(table: string): number | null {
    return this.watched.get(table) ?? null;
  }

  send(msg: Frame): void {
    this.queue.push(JSON.stringify(msg));
    this.flush();
  }

  private rawSend(msg: Frame): void {
    this.queue.unshift(JSON.stringify(msg));
    this.flush();
  }

  private flush(): void {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const now = performance.now();
    this.sent = this.sent.filter((at) => now - at < 1000);
    while (this.queue.length && this.sent.length < MAX_PER_SECOND) {
      this.ws.send(this.queue.shift()!);
      this.sent.push(now);
    }
    if (this.queue.length) {
      window.clearTimeout(this.flushTimer);
      this.flushTimer = window.setTimeout(() => this.flush(), 1000 - (now - this.sent[0]) + 5);
    }
  }

  private ping(): void {
    this.pingSent = Date.now();
    this.send({ type: "ping" });
  }

  /** The server's clock against ours, NTP-style: its time is taken for the middle of the
   * round trip, and only from a round trip about as short as the shortest seen (a slow
   * one says less about when the server read its clock). The bar rises a little with
   * each pong, so a network that got slower for good is followed too. */
  private onPong(t: number): void {
    const now = Date.now();
    if (!this.pingSent) {
      this.clockOffset = t - now / 1000; // no round trip known: better than nothing
      return;
    }
    const rtt = now - this.pingSent;
    if (rtt <= this.bestRtt + 50) {
      this.clockOffset = t - (this.pingSent + now) / 2000;
      this.bestRtt = Math.min(this.bestRtt, rtt);
    }
    this.bestRtt += 5;
  }

  serverNow(): number {
    return Date.now() / 1000 + this.clockOffset;
  }
}

function watchMsg(table: string, v: number | null): Frame {
  return v ? { type: "watch", table, last_v: v } : { type: "watch", table };
}

export const socket = new GameSocket();
