// boxScript (measure.go): called on an element, its box and the clip
// around it in the frame's viewport. {{page}} is page.js.
function(content, page) {
  const el = this;
  if (!el.isConnected || el.ownerDocument !== document) return {gone: true};
  const px = (v) => parseFloat(v) || 0;
  const big = 1e9;
  const vv = visualViewport;
  let cx0 = 0, cy0 = 0, cx1 = vv ? vv.width : document.documentElement.clientWidth, cy1 = vv ? vv.height : document.documentElement.clientHeight;
  const style = getComputedStyle(el);
  let box = null;
  if (el.getClientRects().length) {
    const r = el.getBoundingClientRect();
    box = [r.x, r.y, r.width, r.height];
    if (content) {
      const l = px(style.borderLeftWidth) + px(style.paddingLeft), t = px(style.borderTopWidth) + px(style.paddingTop);
      box = [r.x + l, r.y + t,
        r.width - l - px(style.borderRightWidth) - px(style.paddingRight),
        r.height - t - px(style.borderBottomWidth) - px(style.paddingBottom)];
    }
  } else if (style.display === 'contents') {
    const range = document.createRange();
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    if (r.width || r.height) box = [r.x, r.y, r.width, r.height];
  }
  const root = document.documentElement;
  const bodyToViewport = getComputedStyle(root).overflowX === 'visible' && getComputedStyle(root).overflowY === 'visible';
  const up = (e) => e.assignedSlot || e.parentElement || (e.parentNode instanceof ShadowRoot ? e.parentNode.host : null);
  let pos = style.position;
  for (let a = up(el); a && a !== root; a = up(a)) {
    const s = getComputedStyle(a);
    if (s.display === 'contents') continue;
    const contain = s.contain, paint = /paint|strict|content/.test(contain);
    const holdsFixed = s.transform !== 'none' || s.perspective !== 'none' || s.filter !== 'none' ||
      /transform|perspective|filter/.test(s.willChange) || paint || /layout/.test(contain);
    if (pos === 'fixed' && !holdsFixed) continue;
    if (pos === 'absolute' && s.position === 'static' && !holdsFixed) continue;
    pos = s.position;
    if (a === document.body && bodyToViewport) continue;
    const clipX = s.overflowX !== 'visible' || paint, clipY = s.overflowY !== 'visible' || paint;
    if (!clipX && !clipY) continue;
    const r = a.getBoundingClientRect();
    const bl = px(s.borderLeftWidth), br = px(s.borderRightWidth), bt = px(s.borderTopWidth), bb = px(s.borderBottomWidth);
    const sbX = Math.max(0, a.offsetWidth - a.clientWidth - Math.round(bl) - Math.round(br));
    const sbY = Math.max(0, a.offsetHeight - a.clientHeight - Math.round(bt) - Math.round(bb));
    if (clipX) { cx0 = Math.max(cx0, r.x + bl); cx1 = Math.min(cx1, r.right - br - sbX); }
    if (clipY) { cy0 = Math.max(cy0, r.y + bt); cy1 = Math.min(cy1, r.bottom - bb - sbY); }
  }
  const out = {box, clip: [cx0, cy0, Math.max(0, cx1 - cx0), Math.max(0, cy1 - cy0)]};
  if (page) out.page = {{page}};
  return out;
}
