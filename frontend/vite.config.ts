import { defineConfig } from "vite";

// The FastAPI app serves dist/ at "/"; in development, vite proxies the API and socket.
export default defineConfig({
  build: { target: "es2022", assetsInlineLimit: 0, reportCompressedSize: false },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:8000",
      "/ws": { target: "ws://127.0.0.1:8000", ws: true },
    },
  },
});
