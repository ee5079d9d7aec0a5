// The two parts of the Spanish dictionary (vite.config.ts, "spanish-in-two").
declare module "virtual:es-first" {
  const words: Record<string, string>;
  export default words;
}
declare module "virtual:es-later" {
  const words: Record<string, string>;
  export default words;
}
