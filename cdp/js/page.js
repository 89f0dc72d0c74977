// pageScript (measure.go): what locate needs of a top frame's window and
// page area.
(() => {
  const k = [outerWidth, outerHeight, innerWidth, innerHeight, devicePixelRatio].join();
  let a = globalThis.__cdpproviderArea;
  if (!a || a.k !== k) {
    const edge = (f, v) => {
      let lo = v - 1, hi = v + 1;
      while (hi - lo > 1 / 128) { const m = (lo + hi) / 2; if (matchMedia('(min-' + f + ': ' + m + 'px)').matches) lo = m; else hi = m; }
      return lo - 1 / 128;
    };
    a = globalThis.__cdpproviderArea = {k, w: edge('width', innerWidth), h: edge('height', innerHeight)};
  }
  return {sx: screenX, sy: screenY, ow: outerWidth, oh: outerHeight, w: a.w, h: a.h, dpr: devicePixelRatio,
    vw: visualViewport.width, vh: visualViewport.height, shown: document.visibilityState === 'visible'};
})()
