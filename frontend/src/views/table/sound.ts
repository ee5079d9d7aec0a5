// Table sounds synthesised with the Web Audio API (no audio files, no licences). No
// AudioContext exists before the player's first click or key press (browsers block
// audio until then, and starting one early only logs warnings); mute is remembered.

export type Sound = "turn" | "draw" | "discard" | "meld" | "canasta" | "tick" | "warn" | "win" | "lose";

const KEY = "buraco.mute";
let ctx: AudioContext | null = null;
let gestured = false;
// Test hook: which sounds actually played.
const played: string[] = ((window as any).__soundLog ??= []);

function onGesture(): void {
  gestured = true;
  document.removeEventListener("pointerdown", onGesture, true);
  document.removeEventListener("keydown", onGesture, true);
}
document.addEventListener("pointerdown", onGesture, true);
document.addEventListener("keydown", onGesture, true);

export function muted(): boolean {
  return localStorage.getItem(KEY) === "1";
}

export function setMuted(on: boolean): void {
  localStorage.setItem(KEY, on ? "1" : "0");
}

function audio(): AudioContext | null {
  if (!gestured || muted()) return null;
  try {
    ctx ??= new AudioContext();
  } catch {
    return null;
  }
  if (ctx.state === "suspended") void ctx.resume();
  return ctx;
}

/** One enveloped note: a quick attack and an exponential fall, so nothing clicks. */
function note(ac: AudioContext, freq: number, at: number, dur: number, type: OscillatorType = "sine", vol = 0.12): void {
  const osc = ac.createOscillator();
  const gain = ac.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, at);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(vol, at + 0.012);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  osc.connect(gain).connect(ac.destination);
  osc.start(at);
  osc.stop(at + dur + 0.02);
}

/** A short filtered noise burst: a card sliding on felt. */
function swish(ac: AudioContext, at: number, dur: number, freq: number, vol = 0.18): void {
  const frames = Math.floor(ac.sampleRate * dur);
  const buf = ac.createBuffer(1, frames, ac.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames) ** 2;
  const src = ac.createBufferSource();
  src.buffer = buf;
  const filter = ac.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = freq;
  const gain = ac.createGain();
  gain.gain.value = vol;
  src.connect(filter).connect(gain).connect(ac.destination);
  src.start(at);
}

const SCORES: Record<Sound, (ac: AudioContext, t: number) => void> = {
  turn: (ac, t) => { note(ac, 660, t, 0.18, "triangle"); note(ac, 990, t + 0.11, 0.26, "triangle"); },
  draw: (ac, t) => swish(ac, t, 0.12, 2400),
  discard: (ac, t) => { swish(ac, t, 0.09, 1200, 0.22); note(ac, 180, t, 0.1, "sine", 0.08); },
  meld: (ac, t) => [523, 659, 784].forEach((f, i) => note(ac, f, t + i * 0.06, 0.2, "triangle", 0.09)),
  canasta: (ac, t) => [523, 659, 784, 1047, 1319].forEach((f, i) => note(ac, f, t + i * 0.07, 0.35, "triangle", 0.1)),
  tick: (ac, t) => note(ac, 1200, t, 0.05, "square", 0.04),
  // your last 10 s begin: two short high beeps (then the tick of each second)
  warn: (ac, t) => { note(ac, 1320, t, 0.09, "square", 0.06); note(ac, 1320, t + 0.14, 0.09, "square", 0.06); },
  win: (ac, t) => [523, 659, 784, 1047].forEach((f, i) => note(ac, f, t + i * 0.12, 0.45, "triangle", 0.12)),
  lose: (ac, t) => [392, 330, 262].forEach((f, i) => note(ac, f, t + i * 0.16, 0.45, "sine", 0.1)),
};

export function play(name: Sound): void {
  const ac = audio();
  if (!ac) return;
  SCORES[name](ac, ac.currentTime + 0.01);
  played.push(name);
}
