#!/usr/bin/env node
// What a model is given to read a whole page: the bytes of cdpprovider's
// outline (ui_current {"format": "outline"}) beside Playwright MCP's
// browser_snapshot, and whether every named link and every control of the
// snapshot is in the outline with its id; and how long ui_find takes on an
// unchanged page. On a browser and page servers that model.sh started.
// Writes the numbers as JSON and prints a markdown table.
//
//   node model.mjs --cdp http://127.0.0.1:PORT --provider /path/to/cdpprovider --out DIR
//                  [--page NAME=URL ...] [--real KIND:NAME=URL ...] [--find-page NAME]
//                  [--find-text TEXT] [--find-n 15] [--find-wait 60000] [--work DIR]
//   node model.mjs --table model.json        # prints a run's table again
//
// The pages' sets: a --page named p<digits> is generated (bench/pages.go),
// any other --page Debian documentation; a --real page is a saved
// real-world page of KIND (news, shop, blog, docs). Medians are given per
// set, and over each set's pages whose snapshot is 2,000 tokens or more.
//
// Both servers run as a host runs them, spawned and spoken to over stdio
// by the MCP TypeScript SDK's client, on the same browser: Playwright MCP
// (--cdp-endpoint) and `cdpprovider serve --connect CDP --tools`. The
// browser is left with one tab (cdp.mjs oneTab). Per page, in order:
// Playwright MCP loads it (browser_navigate), 500 ms, one browser_snapshot,
// then one ui_current {"format": "outline"} and one ui_current (the
// protocol's JSON, for reference). Each answer must be about the page (the
// snapshot names its URL, the outline's Document line holds it in <…>),
// or the run fails. The bytes are those of the tools' whole text, as the
// model gets it (UTF-8); the tokens, its o200k_base tokens. Then, over
// this script's own websocket, the page's viewport (innerWidth ×
// innerHeight, which must be the same for every page: the window
// setup.sh gives the browser) and its accessibility nodes
// (Accessibility.getFullAXTree of the main frame).
//
// The screen: when the provider's ui_current takes a "scope" (its input
// schema has the property), ui_current {"scope": "screen", "format":
// "outline"} and {"scope": "screen", "format": "json"} too, measured the
// same way; else the table says the screen was not measured. Either way
// every link and control of the page's JSON answer (screencheck.mjs
// controlsOf) is located (resources/read of uicontext://locate/{id}), one
// at a time, after the reads, and counted on screen (visible part at
// least 4×4 points) or off it. With the screen read, each one on screen
// must be in the screen outline with its id, and none off screen may be
// unless one of its descendants is on screen (screencheck.mjs
// checkScreen): misses are counted per page, the first kept in the JSON,
// and the script exits with status 3.
//
// The check: every line of the snapshot whose role is link with a
// non-empty name, or a control role (button, textbox, searchbox, checkbox,
// radio, combobox, listbox, option, slider, spinbutton, switch, menuitem,
// menuitemcheckbox, menuitemradio, tab), named or not, must be matched by
// a line of the outline of the same kind of role (CONTROLS below) and the
// same name, white space and case aside, that ends with an id (#…); an
// unnamed one, by any line of its kind left once the named are matched.
// Each outline line matches at most one snapshot line. Unmatched lines are
// misses: counted per page, the first ones kept in the JSON, and the
// script exits with status 3.
//
// ui_find: on --find-page (none: ui_find is not timed), after the page's
// reads, a wait until the provider has used less than 50 ms of CPU time
// in a second, at most --find-wait ms (it walks a page after its first
// read to keep its tree, at 50k for seconds; the time asked of is that of
// an unchanged page answered from the kept tree), one warm-up call, then
// --find-n calls of ui_find {"text": --find-text} in a row, each timed
// (the client's round trip, from the request to the decoded answer). Each
// answer must hold a Heading line with the text and an id, or the run
// fails. The provider's CPU time over the timed calls (from /proc), a
// call's share, is given too: it is what the calls cost whatever else the
// machine runs. The default text, "Section 584:", is the heading of the last
// section of the generated p50k page: the search walks the whole tree.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Browser, oneTab, sessionFor, evaluate } from './cdp.mjs';
import { controlsOf, outlineIds, onScreen, checkScreen } from './screencheck.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const argv = process.argv.slice(2);
const values = (name) => argv.flatMap((a, i) => (a === name ? [argv[i + 1]] : []));
const value = (name, dflt) => values(name).at(-1) ?? dflt;

const TABLE = value('--table'); // a model.json to print as the table, nothing run
const CDP = value('--cdp');
const PROVIDER = value('--provider');
const OUT = value('--out');
const WORK = value('--work', OUT);
// PAGES in the order given: --page NAME=URL and --real KIND:NAME=URL.
const PAGES = argv.flatMap((a, i) => {
  const p = argv[i + 1] ?? '';
  const eq = p.indexOf('=');
  if (a === '--page') return [{ name: p.slice(0, eq), url: p.slice(eq + 1), set: /^p\d/.test(p) ? 'generated' : 'docs' }];
  if (a !== '--real') return [];
  const m = p.match(/^([a-z]+):([^=]+)=(.+)$/);
  return [m ? { name: m[2], url: m[3], set: 'real', kind: m[1] } : { name: '', url: '' }];
});
const FIND_PAGE = value('--find-page');
const FIND_TEXT = value('--find-text', 'Section 584:');
const FIND_N = Number(value('--find-n', '15'));
const FIND_WAIT_MS = Number(value('--find-wait', '60000'));
const SETTLE_MS = 500; // after the load, before the snapshot
const TIMEOUT_MS = 5 * 60 * 1000; // of one call
const BIN = new URL('./node_modules/.bin/', import.meta.url).pathname;

if (!TABLE && (!CDP || !PROVIDER || !OUT || !PAGES.length || PAGES.some((p) => !p.name || !p.url) || !(FIND_N >= 1) || !(FIND_WAIT_MS >= 0))) {
  console.error(fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('//')).join('\n'));
  process.exit(2);
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const bytes = (s) => Buffer.byteLength(s, 'utf8');
// tokens is what a model pays for a text: its o200k_base tokens (the
// tokenizer of current OpenAI models, gpt-tokenizer pinned in
// package.json), special-token text counted as plain text.
const tokens = (s) => countTokens(s, { disallowedSpecial: new Set() });
const textOf = (r) => (r.content ?? r.contents ?? []).map((c) => c.text ?? '').join('\n');
const norm = (s) => s.replace(/\s+/g, ' ').trim();

// CONTROLS maps each role of the snapshot that is checked to its kind,
// and each role of the outline to the same kind: a snapshot line is
// matched by an outline line of its kind.
const CONTROLS = {
  link: 'link', button: 'button', textbox: 'textbox', searchbox: 'textbox', checkbox: 'checkbox', radio: 'radio',
  combobox: 'combobox', listbox: 'listbox', option: 'option', slider: 'slider', spinbutton: 'spinbutton',
  switch: 'switch', menuitem: 'menuitem', menuitemcheckbox: 'menuitem', menuitemradio: 'menuitem', tab: 'tab',
};
const OURS = {
  Link: 'link', Button: 'button', TextField: 'textbox', TextArea: 'textbox', CheckBox: 'checkbox', RadioButton: 'radio',
  ComboBox: 'combobox', ListBox: 'listbox', Option: 'option', Slider: 'slider', SpinButton: 'spinbutton',
  Switch: 'switch', MenuItem: 'menuitem', Tab: 'tab',
};

// unquote reads the quoted string at the start of s, as JSON or Go's %q
// writes it, and returns it and the rest of s; null when s does not start
// with a quote.
function unquote(s) {
  if (s[0] !== '"') return null;
  let out = '';
  for (let i = 1; i < s.length; i++) {
    const c = s[i];
    if (c === '"') return [out, s.slice(i + 1)];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = s[++i];
    const simple = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/', a: '\x07', b: '\b', f: '\f', v: '\v', "'": "'" };
    if (e in simple) out += simple[e];
    else if (e === 'x') { out += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16)); i += 2; }
    else if (e === 'u') { out += String.fromCharCode(parseInt(s.slice(i + 1, i + 5), 16)); i += 4; }
    else if (e === 'U') { out += String.fromCodePoint(parseInt(s.slice(i + 1, i + 9), 16)); i += 8; }
    else out += e;
  }
  return null;
}

// snapshotItems returns the checked lines of a browser_snapshot: role and
// name. A snapshot line is "- role "name" [attr]… [ref=eN]…", its name
// quoted when it has one (JSON's quoting); YAML puts a line in single
// quotes when it holds ": ". The options of a combobox (a closed <select>'s
// list, which a person does not see until it opens; the outline gives the
// ComboBox and its value) are not checked, nor what is in an [aria-hidden]
// subtree (the snapshot lists it, marked; Chrome's accessibility tree, and
// so the outline, leaves it out as the page asks: a saved page without its
// scripts and styles shows its closed modals so).
function snapshotItems(text) {
  const items = [];
  const above = []; // the lines above, by indent: role and whether aria-hidden
  for (let l of text.split('\n')) {
    const sq = l.match(/^(\s*- )'(.*)'(:?)$/);
    if (sq) l = sq[1] + sq[2].replaceAll("''", "'") + sq[3];
    // "- combobox [ref=e5]:" and "- button [ref=e7]: Close" have no name
    const m = l.match(/^(\s*)- ([a-z]+)(?: (".*)| \[.*|:)?$/);
    if (!m) continue;
    const depth = m[1].length / 2;
    above.length = depth;
    above[depth] = { role: m[2], hidden: / \[aria-hidden\]/.test(l.replace(/"(?:[^"\\]|\\.)*"/g, '')) };
    if (!(m[2] in CONTROLS)) continue;
    if (m[2] === 'option' && above.slice(0, depth).some((a) => a?.role === 'combobox')) continue;
    if (above.some((a) => a?.hidden)) continue;
    const q = m[3] ? unquote(m[3]) : null;
    const name = q ? norm(q[0]) : '';
    if (m[2] === 'link' && !name) continue;
    items.push({ role: m[2], kind: CONTROLS[m[2]], name, line: l.trim() });
  }
  return items;
}

// plainTitle returns the title a line of an element writes without
// quotes, from what follows the role and a space: up to the first part
// after it (= "value", [states], <url>, level=N, ("description"),
// (+N omitted), #id); null when the line has none so.
function plainTitle(rest) {
  if (!rest || /^(["\[<#(]|= |level=)/.test(rest)) return null;
  let end = rest.length;
  for (const f of [' = ', ' [', ' <', ' level=', ' (', ' #']) {
    const j = rest.indexOf(f);
    if (j >= 0 && j < end) end = j;
  }
  return rest.slice(0, end);
}

// outlineItems returns the lines of an outline that can match: kind,
// title and id. A line is "Role title … #id" after its indent, the title
// quoted when it is not plain words. A line
// without a title whose element is named from its content (the outline
// says each thing once) is named by the text of the lines below it; when
// they have none, by its description ("…"), which Chrome gives a link
// named by nothing but its title attribute and Playwright names it by.
function outlineItems(text) {
  const items = [];
  const lines = text.split('\n');
  const indent = (l) => l.length - l.trimStart().length;
  lines.forEach((l, i) => {
    const m = l.match(/^\s*([A-Z][A-Za-z]*)(?: (.*))?$/);
    if (!m || !(m[1] in OURS)) return;
    const plain = plainTitle(m[2]);
    const q = m[2] ? (plain !== null ? [plain] : unquote(m[2])) : null;
    const id = l.match(/ #(\S+)$/)?.[1];
    let name = q ? norm(q[0]) : '';
    if (!q) {
      const said = [];
      for (const below of lines.slice(i + 1)) {
        if (indent(below) <= indent(l)) break;
        const texts = below.replace(/ \("(?:[^"\\]|\\.)*"\)/g, ''); // not the descriptions below: their titles and texts name it
        const role = below.match(/^\s*[A-Z][A-Za-z]* (.*)$/);
        const plainBelow = role ? plainTitle(role[1]) : null;
        if (plainBelow) said.push(plainBelow);
        for (const t of texts.match(/"(?:[^"\\]|\\.)*"/g) ?? []) said.push(unquote(t)?.[0] ?? '');
      }
      name = norm(said.join(' '));
      if (!name) {
        const d = l.match(/ \((".*")\)(?: \(\+\d+ omitted\))? #\S+$/);
        if (d) name = norm(unquote(d[1])?.[0] ?? '');
      }
    }
    items.push({ kind: OURS[m[1]], name, id, line: l.trim() });
  });
  return items;
}

// key is what a snapshot item and an outline item match on: the kind and
// the name, white space aside (a name from content has spaces where its
// parts had none, and none where they had some), case aside (Chrome's name
// from content is the text as shown, after CSS text-transform: "SKIP TO
// CONTENT"; Playwright's is the DOM's text: "Skip to content").
const key = (item) => `${item.kind}\t${item.name.replace(/\s+/g, '').toLowerCase()}`;

// match pairs each snapshot item with an outline item of its kind and
// name that has an id; then each unnamed snapshot item left (a control
// the snapshot names from nothing, as a menuitem around a link) with any
// outline item of its kind left, whatever the outline names it from its
// content. It returns the snapshot items left unmatched.
function match(snap, ours) {
  const pool = new Map();
  for (const o of ours) {
    if (!o.id) continue;
    const k = key(o);
    pool.set(k, (pool.get(k) ?? 0) + 1);
  }
  const left = [];
  for (const s of snap) {
    const k = key(s);
    const n = pool.get(k) ?? 0;
    if (n > 0) pool.set(k, n - 1);
    else left.push(s);
  }
  const ofKind = new Map();
  for (const [k, n] of pool) {
    const kind = k.split('\t')[0];
    ofKind.set(kind, (ofKind.get(kind) ?? 0) + n);
  }
  const misses = [];
  for (const s of left) {
    const n = ofKind.get(s.kind) ?? 0;
    if (!s.name && n > 0) ofKind.set(s.kind, n - 1);
    else misses.push(s);
  }
  return misses;
}

function client(label, command, args) {
  return {
    label,
    async start() {
      const stderr = fs.createWriteStream(path.join(OUT, `model-${label}.stderr.log`));
      const transport = new StdioClientTransport({ command, args, cwd: WORK, stderr: 'pipe', env: { ...process.env } });
      transport.stderr?.pipe(stderr);
      this.client = new Client({ name: 'cdpprovider-model', version: '1' });
      await this.client.connect(transport);
      this.pid = transport.pid;
      this.server = { ...this.client.getServerVersion(), command: [path.basename(command), ...args].join(' ') };
      this.tools = (await this.client.listTools()).tools;
    },
    async tool(name, args) {
      const r = await this.client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT_MS });
      if (r.isError) throw new Error(`${label} ${name}: ${textOf(r).slice(0, 500)}`);
      return textOf(r);
    },
    // locate reads uicontext://locate/{id}: the location, or {error}
    // when the element cannot be placed.
    async locate(id) {
      try {
        return JSON.parse(textOf(await this.client.readResource({ uri: `uicontext://locate/${id}` }, { timeout: TIMEOUT_MS })));
      } catch (e) {
        return { error: String(e.message ?? e).slice(0, 200) };
      }
    },
    async stop() { await this.client?.close(); },
  };
}

async function main() {
  if (TABLE) {
    console.log(table(JSON.parse(fs.readFileSync(TABLE, 'utf8'))));
    return;
  }
  fs.mkdirSync(OUT, { recursive: true });
  const b = await Browser.connect(CDP);
  const tab = await oneTab(b);
  const pw = client('pwmcp', path.join(BIN, 'playwright-mcp'), ['--cdp-endpoint', CDP, '--output-dir', path.join(WORK, 'playwright-mcp-output')]);
  const ours = client('ours', PROVIDER, ['serve', '--connect', CDP, '--tools']);
  const result = { browser: b.product, when: new Date().toISOString(), pages: [] };
  let missing = 0;
  try {
    await pw.start();
    await ours.start();
    result.servers = { pwmcp: pw.server, ours: ours.server };
    const current = ours.tools.find((t) => t.name === 'ui_current');
    result.screen = Boolean(current?.inputSchema?.properties?.scope);
    if (!result.screen) console.error('the provider\'s ui_current has no "scope": the screen is not measured');
    for (const { name, url, set, kind } of PAGES) {
      await pw.tool('browser_navigate', { url });
      await sleep(SETTLE_MS);
      const snap = await pw.tool('browser_snapshot', {});
      const outline = await ours.tool('ui_current', { format: 'outline' });
      const json = await ours.tool('ui_current', {});
      if (!snap.includes(url)) throw new Error(`${name}: the snapshot does not name ${url}: ${snap.slice(0, 300)}`);
      if (!outline.includes(`<${url}>`)) throw new Error(`${name}: the outline does not hold <${url}>: ${outline.slice(0, 300)}`);
      fs.writeFileSync(path.join(OUT, `model-${name.replaceAll("/", "-")}.pwmcp.txt`), snap);
      fs.writeFileSync(path.join(OUT, `model-${name.replaceAll("/", "-")}.outline.txt`), outline);
      fs.writeFileSync(path.join(OUT, `model-${name.replaceAll("/", "-")}.json`), json);
      let screen, screenJson;
      if (result.screen) {
        screen = await ours.tool('ui_current', { scope: 'screen', format: 'outline' });
        screenJson = await ours.tool('ui_current', { scope: 'screen', format: 'json' });
        fs.writeFileSync(path.join(OUT, `model-${name.replaceAll("/", "-")}.screen.txt`), screen);
        fs.writeFileSync(path.join(OUT, `model-${name.replaceAll("/", "-")}.screen.json`), screenJson);
      }
      const want = snapshotItems(snap);
      const misses = match(want, outlineItems(outline));
      missing += misses.length;
      const row = {
        page: name, set, kind, url, snapshotBytes: bytes(snap), outlineBytes: bytes(outline), jsonBytes: bytes(json),
        snapshotTokens: tokens(snap), outlineTokens: tokens(outline), jsonTokens: tokens(json),
        ratio: round(bytes(outline) / bytes(snap), 3), checked: want.length, misses: misses.length,
        firstMisses: misses.slice(0, 10).map((m) => m.line),
      };
      if (screen !== undefined) {
        Object.assign(row, { screenBytes: bytes(screen), screenTokens: tokens(screen), screenJsonBytes: bytes(screenJson), screenJsonTokens: tokens(screenJson) });
      }
      Object.assign(row, await pageFacts(b, tab, url));
      row.located = await locateControls(ours, JSON.parse(json).root, screen);
      missing += row.located.missing + row.located.extra;
      result.pages.push(row);
      console.error(`${name}\tsnapshot ${row.snapshotBytes} B ${row.snapshotTokens} tok\toutline ${row.outlineBytes} B ${row.outlineTokens} tok\t${row.ratio}× bytes\t${round(row.outlineTokens / row.snapshotTokens, 3)}× tokens\tchecked ${row.checked}\tmisses ${row.misses}` +
        `\tAX nodes ${row.axNodes}\tviewport ${row.viewport}\tcontrols ${row.located.controls}, on screen ${row.located.onscreen}` +
        (screen !== undefined ? `\tscreen ${row.screenTokens} tok, missing ${row.located.missing}, extra ${row.located.extra}` : ''));
      for (const m of row.firstMisses) console.error(`  MISSING ${m}`);
      for (const m of row.located.firstMissing ?? []) console.error(`  NOT ON SCREEN OUTLINE ${m}`);
      for (const m of row.located.firstExtra ?? []) console.error(`  OFFSCREEN IN SCREEN OUTLINE ${m}`);
      if (name === FIND_PAGE) result.find = await timeFind(ours, name);
    }
  } finally {
    await pw.stop();
    await ours.stop();
    b.close();
  }
  result.missing = missing;
  fs.writeFileSync(path.join(OUT, 'model.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(table(result));
  if (missing) {
    console.error(`MISSING: ${missing} named links or controls of the snapshots are not in the outline with an id, or links and controls on screen not in the screen outline, or off screen in it (see model.json)`);
    process.exitCode = 3;
  }
}

// pageFacts reads, over this script's own websocket, the viewport of the
// tab that shows url (CSS pixels, and the device scale) and the number of
// its main frame's accessibility nodes.
async function pageFacts(b, tab, url) {
  const sessionId = await sessionFor(b, tab, url);
  const viewport = await evaluate(b, sessionId, '`${innerWidth}×${innerHeight}` + (devicePixelRatio === 1 ? "" : ` @${devicePixelRatio}x`)');
  const { nodes } = await b.call('Accessibility.getFullAXTree', {}, sessionId);
  await b.call('Accessibility.disable', {}, sessionId);
  return { viewport, axNodes: nodes.length };
}

// locateControls locates every link and control of the page's JSON
// answer, one at a time, and counts them on screen or off; with the
// screen outline, checks it (screencheck.mjs checkScreen).
async function locateControls(ours, answer, screen) {
  const controls = controlsOf(answer);
  const locations = new Map();
  const t0 = now();
  for (const c of controls) locations.set(c.id, await ours.locate(c.id));
  const located = { ms: Math.round(now() - t0) };
  const anyOnScreen = async (ids) => {
    for (const id of ids) if (onScreen(await ours.locate(id))) return true;
    return false;
  };
  const r = await checkScreen(controls, locations, screen === undefined ? new Set() : outlineIds(screen), anyOnScreen);
  const line = (c) => `${c.role}${c.title ? ` ${JSON.stringify(c.title.slice(0, 60))}` : ''} #${c.id}`;
  Object.assign(located, { controls: r.controls, onscreen: r.onscreen, small: r.small, offscreen: r.offscreen, unplaced: r.unplaced });
  if (screen === undefined) return { ...located, missing: 0, extra: 0 };
  return {
    ...located, missing: r.missing.length, extra: r.extra.length,
    firstMissing: r.missing.slice(0, 10).map(line), firstExtra: r.extra.slice(0, 10).map(line),
  };
}

// timeFind times ui_find on the page as it is, unchanged since the reads
// before it.
async function timeFind(ours, page) {
  const args = { text: FIND_TEXT };
  const check = (text) => {
    const ok = text.split('\n').some((l) => /^Heading /.test(l) && l.includes(FIND_TEXT) && / #\S+/.test(l));
    if (!ok) throw new Error(`ui_find on ${page}: no Heading with "${FIND_TEXT}" and an id in ${text.slice(0, 500)}`);
  };
  const idle = await settle(ours.pid); // the provider's walk of the page, which keeps its tree, ends
  check(await ours.tool('ui_find', args)); // warm-up
  const times = [];
  const cpu0 = cpuMs(ours.pid);
  for (let i = 0; i < FIND_N; i++) {
    const a = now();
    const text = await ours.tool('ui_find', args);
    times.push(now() - a);
    check(text);
  }
  const cpu = cpuMs(ours.pid) - cpu0;
  const r = {
    page, args, n: FIND_N, waitMs: FIND_WAIT_MS, median: round(median(times)), min: round(Math.min(...times)), max: round(Math.max(...times)),
    providerCpuMs: round(cpu / FIND_N), idleAfterMs: idle, load: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  };
  console.error(`ui_find ${page} ${JSON.stringify(args)}\tmedian ${r.median} ms\tmin ${r.min}\tmax ${r.max}\tprovider CPU ${r.providerCpuMs} ms a call\tidle after ${r.idleAfterMs} ms\tload ${r.load}`);
  return r;
}

// settle waits until the process has used less than 50 ms of CPU time
// in a second, at most FIND_WAIT_MS, and returns how long it waited (ms),
// or -1 when it never did.
async function settle(pid) {
  const start = now();
  let last = cpuMs(pid);
  while (now() - start < FIND_WAIT_MS) {
    await sleep(1000);
    const c = cpuMs(pid);
    if (c - last < 50) return Math.round(now() - start);
    last = c;
  }
  return -1;
}

// cpuMs is the CPU time, user and system, the process has used so far,
// from /proc (Linux); NaN elsewhere.
function cpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ, 100 on Linux)
  } catch {
    return NaN;
  }
}

const kb = (n) => (n / 1024).toFixed(1);

// table is the run as markdown: a row a page, then the medians per set of
// pages, over all of a set and over its pages whose snapshot is 2,000
// tokens or more.
function table(r) {
  const x = (a, b) => `${(a / b).toFixed(2)}×`;
  const screenCols = r.screen ? ' screen tokens | screen ÷ snapshot | screen JSON tokens | screen missing | screen extra |' : '';
  const lines = [
    `Viewport ${[...new Set(r.pages.map((p) => p.viewport))].join(', ')} (CSS pixels), ${r.browser}; ` +
      (r.screen ? 'the screen read with ui_current {"scope": "screen"}.' : 'the screen was not measured: the provider\'s ui_current has no "scope".'),
    '',
    `| page | set | AX nodes | \`browser_snapshot\` tokens | outline tokens | **÷ (tokens)** | snapshot bytes | outline bytes | ÷ (bytes) | (protocol JSON tokens) | checked | missing | links and controls | on screen |${screenCols}`,
    `|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${r.screen ? '---:|---:|---:|---:|---:|' : ''}`,
  ];
  for (const p of r.pages) {
    const l = p.located;
    lines.push(`| ${p.page} | ${p.kind ?? p.set} | ${p.axNodes.toLocaleString('en-US')} | ${p.snapshotTokens.toLocaleString('en-US')} | ${p.outlineTokens.toLocaleString('en-US')} | **${x(p.outlineTokens, p.snapshotTokens)}** | ` +
      `${kb(p.snapshotBytes)} KiB | ${kb(p.outlineBytes)} KiB | ${p.ratio.toFixed(2)}× | ${p.jsonTokens.toLocaleString('en-US')} | ${p.checked} | ${p.misses} | ${l.controls} | ${l.onscreen} |` +
      (r.screen ? ` ${p.screenTokens.toLocaleString('en-US')} | ${(p.screenTokens / p.snapshotTokens).toFixed(3)}× | ${p.screenJsonTokens.toLocaleString('en-US')} | ${l.missing} | ${l.extra} |` : ''));
  }
  const big = (ps) => ps.filter((p) => p.snapshotTokens >= 2000);
  const sets = [
    ['all pages', r.pages],
    ['Debian documentation', r.pages.filter((p) => p.set === 'docs')],
    ['saved real-world pages', r.pages.filter((p) => p.set === 'real')],
    ...['news', 'shop', 'blog', 'docs'].map((k) => [`real: ${k}`, r.pages.filter((p) => p.set === 'real' && p.kind === k)]),
    ['generated', r.pages.filter((p) => p.set === 'generated')],
  ];
  const groups = sets.flatMap(([label, ps]) => [[label, ps], [`${label}, snapshot ≥ 2,000 tokens`, big(ps)]]);
  lines.push('');
  lines.push(`| median over | pages | **outline ÷ snapshot, tokens** | outline ÷ snapshot, bytes | (protocol JSON ÷ snapshot, tokens) | missing | on screen of the links and controls |${r.screen ? ' **screen ÷ snapshot, tokens** | screen ÷ snapshot, bytes | screen ÷ outline, tokens | screen missing | screen extra |' : ''}`);
  lines.push(`|---|---:|---:|---:|---:|---:|---:|${r.screen ? '---:|---:|---:|---:|---:|' : ''}`);
  for (const [label, ps] of groups) {
    // A kind's row of its large pages only when some of its pages are not.
    if (!ps.length || (label.startsWith('real: ') && label.endsWith('tokens') && ps.length === groups.find(([l]) => l === label.split(',')[0])[1].length)) continue;
    const med = (f) => median(ps.map(f));
    const sum = (f) => ps.reduce((s, p) => s + f(p), 0);
    lines.push(`| ${label} | ${ps.length} | **${med((p) => p.outlineTokens / p.snapshotTokens).toFixed(2)}×** | ${med((p) => p.outlineBytes / p.snapshotBytes).toFixed(2)}× | ` +
      `${med((p) => p.jsonTokens / p.snapshotTokens).toFixed(2)}× | ${sum((p) => p.misses)} | ${(100 * med((p) => (p.located.controls ? p.located.onscreen / p.located.controls : 0))).toFixed(0)}% |` +
      (r.screen ? ` **${med((p) => p.screenTokens / p.snapshotTokens).toFixed(3)}×** | ${med((p) => p.screenBytes / p.snapshotBytes).toFixed(3)}× | ${med((p) => p.screenTokens / p.outlineTokens).toFixed(3)}× | ${sum((p) => p.located.missing)} | ${sum((p) => p.located.extra)} |` : ''));
  }
  if (r.find) {
    lines.push('');
    lines.push(`ui_find ${JSON.stringify(r.find.args)} on ${r.find.page}, unchanged: median **${r.find.median} ms** ` +
      `(min ${r.find.min}, max ${r.find.max}, ${r.find.n} calls after a warm-up); the provider's CPU time ${r.find.providerCpuMs} ms a call; ` +
      `${r.find.idleAfterMs < 0 ? 'the provider never rested before' : `the provider rested ${r.find.idleAfterMs} ms after the page's reads`}; ` +
      `load average ${r.find.load}.`);
  }
  return lines.join('\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
