import { readFileSync } from "node:fs";
import { defineConfig, type Plugin } from "vite";

// Spanish is the first load's dictionary (src/i18n.ts); the words only screens loaded on
// first use need (tournaments, replays, the cut, ratings, the rules screen) are a chunk of
// their own, "virtual:es-later", fetched with those screens. src/i18n/es.json stays the
// one file of Spanish words; this only splits what the bundle carries.
const LATER = /^(tn|replay|fair|cut|rating|learn)\./;
const FIRST = new Set(["tn.nextRound", "learn.title", "learn.help", "rating.title", "rating.provisional", "replay.open"]);

function spanishInTwo(): Plugin {
  const ids = ["virtual:es-first", "virtual:es-later"];
  return {
    name: "spanish-in-two",
    resolveId: (id) => (ids.includes(id) ? `\0${id}` : null),
    load(id) {
      if (!ids.some((x) => id === `\0${x}`)) return null;
      const file = new URL("./src/i18n/es.json", import.meta.url);
      this.addWatchFile(file.pathname);
      const all: Record<string, string> = JSON.parse(readFileSync(file, "utf8"));
      const later = id.endsWith("later");
      const part = Object.fromEntries(
        Object.entries(all).filter(([k]) => (LATER.test(k) && !FIRST.has(k)) === later),
      );
      return `export default ${JSON.stringify(part)};`;
    },
  };
}

// The FastAPI app serves dist/ at "/"; in development, vite proxies the API and socket.
export default defineConfig({
  plugins: [spanishInTwo()],
  build: { target: "es2022", assetsInlineLimit: 0, reportCompressedSize: false },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:8000",
      "/ws": { target: "ws://127.0.0.1:8000", ws: true },
    },
  },
});
