// Init script of the table tests (test_table_screen.py): counts every Web Animation
// started (on what, and its id: fly, glide, canasta...), every AudioContext made, every main-thread task over 50 ms.
(() => {
  window.__anims = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    const id = args[1] && typeof args[1] === 'object' ? args[1].id || '' : '';
    window.__anims.push({ cls: String(this.className), fx: this.dataset ? this.dataset.fx || '' : '', id });
    return animate.apply(this, args);
  };
  window.__audioContexts = 0;
  const AC = window.AudioContext;
  if (AC) window.AudioContext = class extends AC { constructor(...a) { super(...a); window.__audioContexts++; } };
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__longTasks.push(e.duration)))
      .observe({ type: 'longtask', buffered: false });
  } catch (e) {}
})();
