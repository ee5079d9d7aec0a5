// The one WebSocket: reconnects by itself and resumes every watched table from the last
// version it saw (watch {table, last_v}); the server replays what was missed or sends a
// fresh snapshot. Outgoing messages are paced below the server's 20 per second.

type Frame = { type: string; [key: string]: any };
type Listener = (frame: Frame) => void;
export type SocketState = "connecting" | "open" | "down";

const MAX_PER_SECOND = 15;

export class GameSocket {
  private ws: WebSocket | null = null;
  private listeners = new Map<string, Set<Listener>>();
  private stateListeners = new Set<(s: SocketState) => void>();
  private watched = new Map<string, number | null>();
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
  hasConnected = false;

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.timer);
    window.clearInterval(this.pinger);
    this.ws?.close();
    this.ws = null;
    this.watched.clear();
    this.setState("down");
  }

  /** Test hook and "lost connection" simulation: close without stopping. */
  drop(): void {
    this.ws?.close();
  }

  private connect(): void {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    this.setState("connecting");
    ws.onopen = () => {
      this.retry = 0;
      this.hasConnected = true;
      this.setState("open");
      if (this.lobby) this.rawSend({ type: "lobby", on: true });
      for (const [table, v] of this.watched) this.rawSend(watchMsg(table, v));
      this.send({ type: "ping" });
      window.clearInterval(this.pinger);
      this.pinger = window.setInterval(() => this.send({ type: "ping" }), 20000);
    };
    ws.onmessage = (msg) => this.receive(msg.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      window.clearInterval(this.pinger);
      if (this.stopped) return;
      this.setState("down");
      const delay = Math.min(5000, 300 * 2 ** this.retry++);
      this.timer = window.setTimeout(() => this.connect(), delay);
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
    if (frame.type === "pong" && typeof frame.t === "number") {
      this.clockOffset = frame.t - Date.now() / 1000;
    }
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
    if (this.state === "open") this.send(watchMsg(table, null));
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

  serverNow(): number {
    return Date.now() / 1000 + this.clockOffset;
  }
}

function watchMsg(table: string, v: number | null): Frame {
  return v ? { type: "watch", table, last_v: v } : { type: "watch", table };
}

export const socket = new GameSocket();
