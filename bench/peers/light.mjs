#!/usr/bin/env node
// What the browser's renderer processes spend while a person browses, with
// one client attached (a "subject"), on a browser and page server that
// light.sh started. Writes the numbers as JSON; with --table, prints the
// JSON files of a run as a markdown table.
//
//   node light.mjs --subject none|raw|unread|subscribed|pwmcp|rested
//                  --cdp http://127.0.0.1:PORT --pages http://127.0.0.1:PORT/
//                  --manifest light-pages.tsv --out DIR [--limit 30]
//                  [--work DIR] [--provider /path/to/cdpprovider]
//   node light.mjs --table DIR
//
// $PROVIDER_FLAGS are added to `cdpprovider serve` in every provider
// subject, and $REST_FLAGS (default --rest-after 2s) in rested's.
//
// The person: one tab, over this script's own websocket. For each page of
// the manifest in order: the tab is navigated to it (Page.navigate, and
// the load event), 1.5 s, Tab pressed five times 150 ms apart, one mouse
// wheel turn (600 px down, at the viewport's centre), 1.5 s. The page's
// cost is the renderer processes' CPU time over that: the sum of the
// cpuTime of every process of type "renderer" that
// SystemInfo.getProcessInfo lists, read just before the navigation and
// just after the last wait. The pages are on one origin, so one renderer
// process shows them all; its id is kept per page, and a page shown by
// another renderer is named on stderr. The first three pages are
// browsed once first, not measured (the renderer, its caches and the
// subject's first work settle).
//
// The subjects, each spoken to as its kind of client would:
//   none        nothing else is attached;
//   raw         a client with a websocket of its own makes one
//               Accessibility.getFullAXTree of the tab after each load;
//   unread      cdpprovider serve (an MCP host's stdio child), read once
//               at the start, then never again;
//   subscribed  cdpprovider serve, read once at the start, subscribed to
//               uicontext://current, read again after each
//               notifications/resources/updated (one read at a time; a
//               notification during a read makes one more read after it);
//   pwmcp       Playwright MCP on the same browser: it loads each page
//               (browser_navigate, instead of the person's Page.navigate),
//               then one browser_snapshot;
//   rested      cdpprovider serve with $REST_FLAGS, read once at the
//               start; per page, after the person's browsing, 3 s more,
//               then one read of uicontext://current, timed, and right
//               after it one getFullAXTree of the tab over the person's
//               connection, timed (its round trip and JSON.parse). The
//               read must contain the page's title.
// A subject's work after a load runs beside the person's waits; the page's
// measurement ends when both are done.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { Browser, oneTab, navigate, sessionFor, evaluate } from './cdp.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { ResourceUpdatedNotificationSchema } = require('@modelcontextprotocol/sdk/types.js');

const argv = process.argv.slice(2);
const value = (name, dflt) => {
  const i = argv.lastIndexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};

const ORDER = ['none', 'raw', 'unread', 'subscribed', 'pwmcp', 'rested'];
const SUBJECT = value('--subject');
const CDP = value('--cdp');
const PAGES = value('--pages');
const MANIFEST = value('--manifest');
const OUT = value('--out');
const WORK = value('--work', OUT);
const LIMIT = Number(value('--limit', '30'));
const PROVIDER = value('--provider');
const PROVIDER_FLAGS = (process.env.PROVIDER_FLAGS ?? '').split(/\s+/).filter(Boolean);
const REST_FLAGS = (process.env.REST_FLAGS ?? '--rest-after 2s').split(/\s+/).filter(Boolean);
const BIN = new URL('./node_modules/.bin/', import.meta.url).pathname;
const URI = 'uicontext://current';

const WARMUP = 3; // pages browsed first, unmeasured
const WAIT_MS = 1500; // after the load, and after the scroll
const TABS = 5;
const TAB_GAP_MS = 150;
const WHEEL_PX = 600;
const REST_MS = 3000; // rested: after the browsing, before the timed read
const TIMEOUT_MS = 2 * 60 * 1000; // of one call or one navigation

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x) => Math.round(x * 100) / 100;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return null;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

function usage() {
  console.error(fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('//')).join('\n'));
  process.exit(2);
}

// pages reads the manifest: package, version, path in the package, sha256,
// tab-separated, after a header line.
function pages() {
  const rows = fs.readFileSync(MANIFEST, 'utf8').split('\n').slice(1).filter((l) => l.trim() && !l.startsWith('#'));
  return rows.slice(0, LIMIT).map((l) => {
    const [pkg, version, file] = l.split('\t');
    return { pkg, version, file, url: new URL(file.replace(/^\.?\//, ''), PAGES).href };
  });
}

// rendererCPU is the CPU time, in ms, of every renderer process, and
// their ids.
async function rendererCPU(b) {
  const { processInfo } = await b.call('SystemInfo.getProcessInfo');
  const r = processInfo.filter((p) => p.type === 'renderer');
  return { ms: r.reduce((s, p) => s + p.cpuTime * 1000, 0), ids: r.map((p) => p.id).sort((x, y) => x - y) };
}

// The text of an MCP result: a tool's text content or a resource's text.
const textOf = (r) => (r.content ?? r.contents ?? []).map((c) => c.text ?? '').join('\n');

// hasTitle tells whether an answer contains the title, as it is or as
// JSON writes it (Go's escapes <, > and &), its white space as it is or
// collapsed to single spaces (an accessible name collapses it, a
// no-break space included: "5.7.\u00a0Privileges" is "5.7. Privileges").
const hasTitle = (text, title) => [title, title.replace(/\s+/g, ' ')].some((t) => {
  const json = JSON.stringify(t).slice(1, -1);
  const goJSON = json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  return [t, json, goJSON].some((x) => text.includes(x));
});

// mcp is a subject that an MCP host runs: spawned, spoken to over stdio by
// the MCP TypeScript SDK's client.
const mcp = (label, command, args) => ({
  label,
  async start() {
    const stderr = fs.createWriteStream(path.join(OUT, `light-${SUBJECT}.stderr.log`));
    const transport = new StdioClientTransport({ command, args, cwd: WORK, stderr: 'pipe', env: { ...process.env } });
    transport.stderr?.pipe(stderr);
    this.client = new Client({ name: 'cdpprovider-light', version: '1' });
    await this.client.connect(transport);
    this.server = { ...this.client.getServerVersion(), command: [path.basename(command), ...args].join(' ') };
  },
  async stop() { await this.client?.close(); },
  async read() {
    return textOf(await this.client.readResource({ uri: URI }, { timeout: TIMEOUT_MS }));
  },
  async tool(name, args) {
    const r = await this.client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT_MS });
    if (r.isError) throw new Error(`${name}: ${textOf(r).slice(0, 500)}`);
    return r;
  },
});

const serve = (flags) => ['serve', '--connect', CDP, ...PROVIDER_FLAGS, ...flags];

// subjects: start (before the warm-up), load (only pwmcp loads the page
// itself), afterLoad (beside the person's waits), rest (rested's timed
// read), reads (how many reads so far, after the first).
function subjects(b, tab) {
  return {
    none: { label: 'nothing (the person alone)' },
    raw: {
      label: 'raw getFullAXTree at each load',
      async start() {
        this.b = await Browser.connect(CDP);
        const { sessionId } = await this.b.call('Target.attachToTarget', { targetId: tab.targetId, flatten: true });
        this.sessionId = sessionId;
        this.server = { name: 'Accessibility.getFullAXTree', version: this.b.product };
      },
      async afterLoad(pg) {
        const { nodes } = await this.b.call('Accessibility.getFullAXTree', {}, this.sessionId);
        pg.axNodes = nodes.length;
      },
      stop() { this.b?.close(); },
    },
    unread: {
      ...mcp('cdpprovider, read once at the start', PROVIDER, serve([])),
      async ready() { await this.read(); },
    },
    subscribed: {
      ...mcp('cdpprovider, subscribed, read at each update', PROVIDER, serve([])),
      n: 0,
      async ready() {
        await this.read();
        this.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (msg) => {
          if (msg.params.uri === URI) this.kick();
        });
        await this.client.subscribeResource({ uri: URI });
      },
      // kick reads after a notification: one read at a time, one more
      // after it when notifications came during it.
      kick() {
        if (this.reading) {
          this.again = true;
          return;
        }
        this.reading = (async () => {
          do {
            this.again = false;
            try {
              await this.read();
            } catch (e) {
              this.error ??= e;
            }
            this.n++;
          } while (this.again);
          this.reading = null;
        })();
      },
      reads() { return this.n; },
      async idle() {
        while (this.reading) await this.reading;
        if (this.error) throw this.error;
      },
    },
    pwmcp: {
      ...mcp('Playwright MCP, browser_navigate and one browser_snapshot a page', path.join(BIN, 'playwright-mcp'),
        ['--cdp-endpoint', CDP, '--output-dir', path.join(WORK, 'playwright-mcp-output')]),
      async load(url) { await this.tool('browser_navigate', { url }); },
      async afterLoad(pg) { pg.snapshotBytes = Buffer.byteLength(textOf(await this.tool('browser_snapshot', {}))); },
    },
    rested: {
      ...mcp(`cdpprovider ${REST_FLAGS.join(' ')}, read once at the start`, PROVIDER, serve(REST_FLAGS)),
      async ready() { await this.read(); },
      async rest(pg, sessionId) {
        let t = now();
        const text = await this.read();
        pg.readMs = round(now() - t);
        if (!hasTitle(text, pg.title)) {
          const kept = path.join(OUT, 'rested-missing-title.json');
          fs.writeFileSync(kept, text);
          throw new Error(`rested ${pg.file}: the read does not contain the title ${JSON.stringify(pg.title)} (the answer is in ${kept}): ${text.slice(0, 300)}`);
        }
        pg.readBytes = Buffer.byteLength(text);
        t = now();
        const { nodes } = await b.call('Accessibility.getFullAXTree', {}, sessionId);
        pg.rawMs = round(now() - t);
        pg.axNodes = nodes.length;
        pg.ratio = round(pg.readMs / pg.rawMs);
        // Like for like: the raw call as the first on the page rested
        // again (a Tab changes it, the provider rests, Chrome's
        // accessibility tree is let go), as the read was: the call right
        // after the read finds the tree the read had Chrome build.
        await pressTab(b, sessionId);
        await sleep(REST_MS);
        t = now();
        await b.call('Accessibility.getFullAXTree', {}, sessionId);
        pg.rawFirstMs = round(now() - t);
        pg.ratioFirst = round(pg.readMs / pg.rawFirstMs);
      },
    },
  };
}

// press sends one key press of Tab to the session's page.
async function pressTab(b, sessionId) {
  const key = { key: 'Tab', code: 'Tab', windowsVirtualKeyCode: 9, nativeVirtualKeyCode: 9 };
  await b.call('Input.dispatchKeyEvent', { type: 'keyDown', ...key }, sessionId);
  await b.call('Input.dispatchKeyEvent', { type: 'keyUp', ...key }, sessionId);
}

// browse is the person on one page: load, wait, Tab five times, scroll,
// wait. It returns the page's row.
async function browse(b, tab, s, pg) {
  const row = { file: pg.file, pkg: pg.pkg };
  const cpu0 = await rendererCPU(b);
  const reads0 = s.reads?.() ?? 0;
  const t0 = now();
  if (s.load) await s.load(pg.url);
  else await navigate(b, tab, pg.url, TIMEOUT_MS);
  row.loadMs = round(now() - t0);
  const after = s.afterLoad?.(row);
  after?.catch(() => {}); // awaited below
  const sessionId = await sessionFor(b, tab, pg.url);
  row.title = await evaluate(b, sessionId, 'document.title');
  await sleep(WAIT_MS);
  for (let i = 0; i < TABS; i++) {
    await pressTab(b, sessionId);
    await sleep(TAB_GAP_MS);
  }
  const { cssLayoutViewport: vp } = await b.call('Page.getLayoutMetrics', {}, sessionId);
  await b.call('Input.dispatchMouseEvent', { type: 'mouseWheel', x: vp.clientWidth / 2, y: vp.clientHeight / 2, deltaX: 0, deltaY: WHEEL_PX }, sessionId);
  await sleep(WAIT_MS);
  row.focused = await evaluate(b, sessionId, 'document.activeElement?.tagName ?? null');
  row.scrollY = await evaluate(b, sessionId, 'Math.round(scrollY)');
  await after;
  await s.idle?.();
  const cpu1 = await rendererCPU(b);
  row.cpuMs = round(cpu1.ms - cpu0.ms);
  row.renderers = cpu1.ids;
  row.reads = (s.reads?.() ?? 0) - reads0;
  row.ms = round(now() - t0);
  if (s.rest) {
    await sleep(REST_MS);
    const cpu2 = await rendererCPU(b);
    row.restCpuMs = round(cpu2.ms - cpu1.ms);
    await s.rest(row, sessionId);
  }
  return row;
}

async function measure() {
  fs.mkdirSync(OUT, { recursive: true });
  const list = pages();
  const b = await Browser.connect(CDP);
  const tab = await oneTab(b);
  const s = subjects(b, tab)[SUBJECT];
  const result = {
    subject: SUBJECT, label: s.label, browser: b.product, when: new Date().toISOString(),
    flags: { provider: PROVIDER_FLAGS, rest: SUBJECT === 'rested' ? REST_FLAGS : undefined },
    warmup: WARMUP, pages: [],
  };
  try {
    await s.start?.();
    await s.ready?.();
    result.server = s.server;
    console.error(`[${SUBJECT}] ${s.label}${s.server ? ` (${s.server.name} ${s.server.version})` : ''}`);
    for (const pg of list.slice(0, WARMUP)) await browse(b, tab, s, pg);
    let renderer;
    for (const pg of list) {
      const row = await browse(b, tab, s, pg);
      result.pages.push(row);
      const id = row.renderers.join(',');
      if (renderer !== undefined && id !== renderer) console.error(`[${SUBJECT}] ${pg.file}: the renderers changed (${renderer} -> ${id})`);
      renderer = id;
      const extra = [
        row.axNodes !== undefined ? `${row.axNodes} AX nodes` : '',
        s.reads ? `${row.reads} reads` : '',
        row.ratio !== undefined ? `read ${row.readMs} ms / raw ${row.rawMs} ms = ${row.ratio}, / raw first ${row.rawFirstMs} ms = ${row.ratioFirst}` : '',
      ].filter(Boolean).join('\t');
      console.log(`${SUBJECT}\t${row.cpuMs} ms\t${row.file}${extra ? `\t${extra}` : ''}`);
    }
  } finally {
    await s.stop?.();
    b.close();
  }
  const cpu = result.pages.map((p) => p.cpuMs);
  Object.assign(result, { medianCpuMs: round(median(cpu)), minCpuMs: Math.min(...cpu), maxCpuMs: Math.max(...cpu) });
  if (s.reads) result.reads = result.pages.reduce((n, p) => n + p.reads, 0);
  if (SUBJECT === 'rested') {
    result.medianRatio = round(median(result.pages.map((p) => p.ratio)));
    result.medianRatioFirst = round(median(result.pages.map((p) => p.ratioFirst)));
  }
  fs.writeFileSync(path.join(OUT, `light-${SUBJECT}.json`), JSON.stringify(result, null, 2) + '\n');
}

// table prints the run in DIR: one row a subject.
function table(dir) {
  const runs = new Map();
  for (const s of ORDER) {
    const f = path.join(dir, `light-${s}.json`);
    const skip = path.join(dir, `light-${s}.skip`);
    if (fs.existsSync(f)) runs.set(s, JSON.parse(fs.readFileSync(f, 'utf8')));
    else if (fs.existsSync(skip)) runs.set(s, { subject: s, skipped: fs.readFileSync(skip, 'utf8').trim() });
  }
  const done = [...runs.values()].filter((r) => !r.skipped);
  if (!done.length) {
    console.error(`no results in ${dir}`);
    process.exit(1);
  }
  const ms = (x) => `${Math.round(x).toLocaleString('en-US')} ms`;
  const first = done[0];
  const nodes = (runs.get('raw') ?? runs.get('rested'))?.pages?.map((p) => p.axNodes);
  console.log(`${first.browser}, headless; ${first.pages.length} pages, ${first.warmup} browsed first unmeasured; ${first.when.slice(0, 16).replace('T', ' ')} UTC.`);
  if (nodes?.length) console.log(`AX nodes per page: median ${Math.round(median(nodes)).toLocaleString('en-US')}, ${Math.min(...nodes).toLocaleString('en-US')}–${Math.max(...nodes).toLocaleString('en-US')}.`);
  console.log();
  const none = runs.get('none');
  console.log('| attached | renderer CPU per page (median) | × browsing alone | reads | first read after resting ÷ raw right after (median) | ÷ raw first after a rest (median) |');
  console.log('|---|---|---|---|---|---|');
  for (const r of runs.values()) {
    if (r.skipped) {
      console.log(`| ${r.subject} | skipped: ${r.skipped} | | | | |`);
      continue;
    }
    const x = none && !none.skipped ? `${(r.medianCpuMs / none.medianCpuMs).toFixed(2)}×` : '–';
    const reads = r.reads !== undefined ? `${r.reads} (${(r.reads / r.pages.length).toFixed(1)} a page)` : '';
    const ratio = r.medianRatio !== undefined ? `${r.medianRatio.toFixed(2)}×` : '';
    const ratioFirst = r.medianRatioFirst !== undefined ? `${r.medianRatioFirst.toFixed(2)}×` : '';
    console.log(`| ${r.subject}: ${r.label} | ${ms(r.medianCpuMs)} (${ms(r.minCpuMs)}–${ms(r.maxCpuMs)}) | ${x} | ${reads} | ${ratio} | ${ratioFirst} |`);
  }
}

const dir = value('--table');
if (dir) table(dir);
else {
  const providerSubject = ['unread', 'subscribed', 'rested'].includes(SUBJECT);
  if (!ORDER.includes(SUBJECT) || !CDP || !PAGES || !MANIFEST || !OUT || !(LIMIT > 0) || (providerSubject && !PROVIDER)) usage();
  measure().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
