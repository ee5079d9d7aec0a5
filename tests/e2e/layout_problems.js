// What must be visible together on the table screen, and any reason it is not
// (test_table_screen.py): page scroll, parts outside the viewport, small targets.
() => {
  const vw = innerWidth, vh = innerHeight, out = [];
  const de = document.documentElement;
  if (de.scrollHeight > vh + 1 || document.body.scrollHeight > vh + 1) out.push(`page scrolls: ${de.scrollHeight} > ${vh}`);
  if (de.scrollWidth > vw + 1) out.push(`page scrolls sideways: ${de.scrollWidth} > ${vw}`);
  const inside = (el, name) => {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) { out.push(`${name} not shown`); return; }
    if (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1)
      out.push(`${name} outside: ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.right)},${Math.round(r.bottom)}`);
  };
  for (const sel of ['#hand', '#stock', '#pile', '.actions-bar', '.zones.ours', '.zones.theirs'])
    document.querySelector(sel) ? inside(document.querySelector(sel), sel) : out.push(`${sel} missing`);
  // The status line in sight and read whole: beside your seat, or under the piles on a
  // phone on its side (the other copy then hidden from sight).
  const statuses = [...document.querySelectorAll('.status')].filter((el) => el.getBoundingClientRect().width > 2);
  if (!statuses.length) out.push('status not shown');
  for (const el of statuses) {
    inside(el, 'status');
    if (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1) out.push(`status cut: ${el.textContent}`);
  }
  document.querySelectorAll('.seat').forEach((s) => inside(s, `seat ${s.dataset.seat}`));
  const cards = [...document.querySelectorAll('#hand .card')];
  if (cards.length) { inside(cards[0], 'first card'); inside(cards[cards.length - 1], 'last card'); }
  document.querySelectorAll('.actions-bar .btn').forEach((b) => {
    if (getComputedStyle(b).display === 'none') return;
    inside(b, `button ${b.id}`);
    if (b.getBoundingClientRect().height < 40) out.push(`button ${b.id} under 40 px`);
  });
  // Every side's score is read whole, its name too (names of the test's length: a long
  // name may give way, the score never).
  const bar = document.querySelector('.scorebar');
  document.querySelectorAll('.scorebar .side-score').forEach((s, i) => {
    const name = s.querySelector('.side-name'), r = s.getBoundingClientRect();
    const b = bar.getBoundingClientRect();
    if (name && name.scrollWidth > name.clientWidth + 1) out.push(`score name ${i} cut: ${name.textContent}`);
    if (r.right > b.right + 1 || r.bottom > b.bottom + 1 || !r.width) out.push(`score ${i} cut by its bar`);
    inside(s, `score ${i}`);
  });
  const target = document.querySelector('.scorebar .muted');
  if (target) {
    const r = target.getBoundingClientRect(), b = bar.getBoundingClientRect();
    if (target.scrollWidth > target.clientWidth + 1 || r.right > b.right + 1 || r.bottom > b.bottom + 1)
      out.push(`target score cut: ${target.textContent}`);
  }
  for (const sel of ['#stock', '#pile']) {
    const r = document.querySelector(sel).getBoundingClientRect();
    if (r.height < 44 || r.width < 44) out.push(`${sel} smaller than 44 px`);
  }
  return out;
}
