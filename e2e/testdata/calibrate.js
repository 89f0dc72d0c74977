// Records where the page area's top-left corner is on the screen, from
// real pointer events: the tests read window.__origin to calibrate locate.
addEventListener('mousemove', e => {
  window.__origin = {X: e.screenX - e.clientX, Y: e.screenY - e.clientY};
}, {capture: true, passive: true});
