// Tests of screencheck.mjs: node --test bench/peers/screencheck.test.mjs

import test from 'node:test';
import assert from 'node:assert/strict';
import { controlsOf, outlineIds, onScreen, checkScreen } from './screencheck.mjs';

// page is a current answer: a Window's Tab (the browser's, not checked),
// a Document with a link on screen, a link below the screen, a closed
// select and its options, a button whose box is off screen but whose
// image overflows onto it, and a link of 3×3 points.
const page = {
  id: 'app', role: 'Application', children: [{
    id: 'w', role: 'Window', children: [
      { id: 'tl', role: 'TabList', children: [{ id: 'tab', role: 'Tab', title: 'News' }] },
      {
        id: 'doc', role: 'Document', children: [
          { id: 'top', role: 'Link', title: 'Home' },
          { id: 'low', role: 'Link', title: 'Comments' },
          { id: 'sel', role: 'ComboBox', children: [{ id: 'opt', role: 'Option', title: 'One' }] },
          { id: 'btn', role: 'Button', children: [{ id: 'img', role: 'Image', title: 'Menu' }] },
          { id: 'dot', role: 'Link', title: '·' },
        ],
      },
    ],
  }],
};

const at = (state, w = 100, h = 20) => ({ state, frame: { x: 0, y: 0, width: w, height: h }, ...(state === 'onscreen' ? { visible: { x: 0, y: 0, width: w, height: h } } : {}) });

const locations = new Map([
  ['top', at('onscreen')],
  ['low', at('offscreen')],
  ['sel', at('onscreen')],
  ['btn', at('offscreen')],
  ['img', at('onscreen')],
  ['dot', at('onscreen', 3, 3)],
]);
const anyOnScreen = async (ids) => ids.some((id) => onScreen(locations.get(id)));

test('controlsOf takes the page\'s links and controls, not the browser\'s tabs nor a closed select\'s options', () => {
  assert.deepEqual(controlsOf(page).map((c) => c.id), ['top', 'low', 'sel', 'btn', 'dot']);
  assert.deepEqual(controlsOf(page).find((c) => c.id === 'btn').descendants, ['img']);
});

test('outlineIds reads the id ending each line', () => {
  const ids = outlineIds('Document "News" <http://x/> #doc\n  Link "Home" #top\n  … 12 below\n  "text with #hash"');
  assert.deepEqual([...ids], ['doc', 'top']);
});

test('a screen outline with every control on screen and nothing else passes', async () => {
  const screen = outlineIds('Document #doc\n  Link "Home" #top\n  ComboBox "One" #sel\n  Button #btn\n    Image "Menu" #img');
  const r = await checkScreen(controlsOf(page), locations, screen, anyOnScreen);
  assert.deepEqual([r.onscreen, r.offscreen, r.small, r.unplaced], [2, 2, 1, 0]);
  assert.deepEqual(r.missing, []);
  assert.deepEqual(r.extra, [], 'the offscreen Button is the ancestor of an Image on screen');
});

test('a control on screen left out is missing; one off screen put in is extra', async () => {
  const screen = outlineIds('Document #doc\n  Link "Comments" #low\n  ComboBox "One" #sel');
  const r = await checkScreen(controlsOf(page), locations, screen, anyOnScreen);
  assert.deepEqual(r.missing.map((c) => c.id), ['top']);
  assert.deepEqual(r.extra.map((c) => c.id), ['low']);
});

test('a link of less than 4×4 points is asked neither way', async () => {
  for (const text of ['Link "Home" #top\nComboBox #sel', 'Link "Home" #top\nComboBox #sel\nLink "·" #dot']) {
    const r = await checkScreen(controlsOf(page), locations, outlineIds(text), anyOnScreen);
    assert.equal(r.missing.length + r.extra.length, 0, text);
  }
});
