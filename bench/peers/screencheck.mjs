// The check of a screen answer (ui_current {"scope": "screen"}) against
// locate, for model.mjs: pure functions of the page's JSON answer, each
// control's location and the screen outline's text, so that the rule is
// tested on its own (screencheck.test.mjs, node --test) without a browser.
//
// The rule (bench/MODEL.md): every link and control of the page's JSON
// answer that locates onscreen with a visible part of at least 4×4 points
// must be in the screen outline with its id; none that locates offscreen
// may be, except as the ancestor of an element on screen.

// CONTROL_ROLES are the protocol's roles (docs/protocol.md §5.4) of links
// and of what a person operates.
export const CONTROL_ROLES = new Set([
  'Link', 'Button', 'TextField', 'TextArea', 'CheckBox', 'RadioButton', 'Switch', 'ComboBox', 'ListBox',
  'Option', 'Slider', 'SpinButton', 'MenuItem', 'Tab', 'TreeItem',
]);

// MIN_VISIBLE is the least width and height, in points, of the visible
// part of an element the screen answer must hold: a person cannot see or
// hit less, and a sliver at the viewport's edge is not asked of it.
export const MIN_VISIBLE = 4;

// controlsOf returns the links and controls of a current answer (the
// protocol's JSON, parsed), in reading order, each with its descendants'
// ids: those inside a Document only (the Tabs of a Window are the
// browser's, not the page's), and no Option of a ComboBox (a closed
// <select>'s list, which a person does not see until it opens).
export function controlsOf(root) {
  const out = [];
  const walk = (el, inDocument, inComboBox) => {
    const doc = inDocument || el.role === 'Document';
    if (doc && CONTROL_ROLES.has(el.role) && !(el.role === 'Option' && inComboBox)) {
      out.push({ id: el.id, role: el.role, title: el.title ?? '', descendants: descendantIds(el) });
    }
    for (const c of el.children ?? []) walk(c, doc, inComboBox || el.role === 'ComboBox');
  };
  walk(root, false, false);
  return out;
}

function descendantIds(el) {
  const ids = [];
  const walk = (e) => {
    for (const c of e.children ?? []) {
      ids.push(c.id);
      walk(c);
    }
  };
  walk(el);
  return ids;
}

// outlineIds returns the ids an outline names: each line's last field,
// " #id".
export function outlineIds(text) {
  const ids = new Set();
  for (const l of text.split('\n')) {
    const m = l.match(/ #([A-Za-z0-9._~-]+)$/);
    if (m) ids.add(m[1]);
  }
  return ids;
}

// onScreen says whether a location (the JSON of a locate) is on screen
// with a visible part of at least MIN_VISIBLE×MIN_VISIBLE points.
export function onScreen(loc) {
  return loc?.state === 'onscreen' && loc.visible?.width >= MIN_VISIBLE && loc.visible?.height >= MIN_VISIBLE;
}

// checkScreen checks a screen outline's ids against the controls'
// locations. locations maps an id to its location (an object with state,
// or {error} when locate failed). anyOnScreen(ids) resolves whether any of
// those elements is on screen (locating them): asked only of an offscreen
// control that the screen outline holds, which is right when one of its
// descendants is on screen. It returns the counts and the misses: missing
// (on screen, not in the outline) and extra (offscreen, in the outline,
// nothing of it on screen).
export async function checkScreen(controls, locations, screenIds, anyOnScreen) {
  const r = { controls: controls.length, onscreen: 0, small: 0, offscreen: 0, unplaced: 0, missing: [], extra: [] };
  for (const c of controls) {
    const loc = locations.get(c.id);
    if (!loc || loc.error || !loc.state) {
      r.unplaced++;
      continue;
    }
    if (onScreen(loc)) {
      r.onscreen++;
      if (!screenIds.has(c.id)) r.missing.push(c);
    } else if (loc.state === 'onscreen') {
      r.small++; // visible, but less than 4×4: not asked either way
    } else if (loc.state === 'offscreen') {
      r.offscreen++;
      if (screenIds.has(c.id) && !(c.descendants.length && (await anyOnScreen(c.descendants)))) r.extra.push(c);
    } else {
      r.unplaced++; // gone: the page changed under the reads
    }
  }
  return r;
}
