// The table's regions (the data-region hooks) and any reason the screen is not playable:
// a region outside the viewport, two regions over each other (a region inside another,
// like a seat's clock, is not an overlap), a meld area that scrolls or hides its rows
// (test_phone_journeys.py). The chat drawer and the sheets are checked on their own.
() => {
  const vw = innerWidth, vh = innerHeight, out = [];
  const de = document.documentElement;
  if (de.scrollHeight > vh + 1 || document.body.scrollHeight > vh + 1) out.push(`page scrolls: ${de.scrollHeight} > ${vh}`);
  if (de.scrollWidth > vw + 1) out.push(`page scrolls sideways: ${de.scrollWidth} > ${vw}`);
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const name = (el) => `${el.dataset.region}${el.dataset.seat ?? el.dataset.team ?? ''}`;
  const regions = [...document.querySelectorAll('[data-region]')]
    .filter((el) => !['chat', 'sheet', 'choices'].includes(el.dataset.region) && shown(el));
  for (const el of regions) {
    const r = el.getBoundingClientRect();
    if (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1)
      out.push(`${name(el)} outside: ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.right)},${Math.round(r.bottom)}`);
  }
  for (let i = 0; i < regions.length; i++) {
    for (let j = i + 1; j < regions.length; j++) {
      const a = regions[i], b = regions[j];
      if (a.contains(b) || b.contains(a)) continue;
      const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 1 && h > 1) out.push(`${name(a)} over ${name(b)}: ${Math.round(w)}x${Math.round(h)} px`);
    }
  }
  for (const z of document.querySelectorAll('[data-region=melds]')) {
    if (z.scrollHeight > z.clientHeight + 1 || z.scrollWidth > z.clientWidth + 1)
      out.push(`melds${z.dataset.team} (${z.className}) hide or scroll: ${z.scrollWidth}x${z.scrollHeight} in ${z.clientWidth}x${z.clientHeight}`);
  }
  for (const want of ['hand', 'stock', 'pile', 'melds', 'seat'])
    if (!regions.some((el) => el.dataset.region === want)) out.push(`no ${want} region shown`);
  return out;
}
