#!/usr/bin/env node
// Times one subject's snapshot of each page, on a browser and page server
// that run.sh started, and writes the numbers as JSON.
//
//   node measure.mjs --subject raw|cdmcp|pwmcp|ours|screen --cdp http://127.0.0.1:PORT
//                    --pages http://127.0.0.1:PORT/ --page p1k [--page p10k ...]
//                    [--real NAME=URL ...] --out DIR [--provider /path/to/cdpprovider]
//                    [--work DIR] [-n 7] [--first 1]
//                    [--loop 15] [--loop-pause 1000 [--loop-pause 100 ...]] [--afterload 5]
//
// --loop, --loop-pause and --afterload default to $LOOP, $LOOP_PAUSE and
// $AFTERLOAD, else 15, 1000 and 5; 0 turns the loop or the after-load
// reads off.
//
// Subjects:
//   raw    Accessibility.getFullAXTree of the tab's main frame, over this
//          script's own websocket (also counts the page's AX nodes);
//   cdmcp  chrome-devtools-mcp's take_snapshot tool;
//   pwmcp  Playwright MCP's browser_snapshot tool;
//   ours   cdpprovider's resources/read of uicontext://current;
//   screen cdpprovider's ui_current {"scope": "screen"} (serve --tools), the
//          JSON of what is on screen; the run fails at once when the
//          provider's ui_current takes no "scope".
// The MCP servers run as a host runs them: spawned, spoken to over stdio by
// the MCP TypeScript SDK's client. Each is pointed at the same browser.
//
// The browser is left with one tab (cdp.mjs oneTab). Per page: the page
// is loaded (the peers with their own navigation tool, the others over
// CDP), then after 300 ms the first call is timed on its own, and then n
// calls in a row. With --first K (default 1), the page is loaded K times,
// the first call after each load timed the same way (no subscription: a
// host with tools only), and the first call's time is their median (all
// kept in the JSON). A call's time is the client's round trip: from
// sending the request to having decoded the answer. Every answer must
// contain the page's title (a generated page) or its address (a --real
// page: a saved page served by run.sh, whose title is its own), or the run
// fails: a fast answer about the wrong page is no result.
//
// Then, per page, two more measurements:
//
// The agent loop, once per --loop-pause: --loop turns of a pause (untimed),
// a change to the text of the page's first visible paragraph or heading
// (its first text node's data set to a new string with the turn's number,
// in the page's main world over this script's own websocket), and at once
// one call, timed. An answer that does not contain the new text is stale:
// counted, the first one kept in SUBJECT-PAGE-loopPAUSE-stale.txt.
//
// The first read after a load, --afterload times: the same text changed
// (untimed), the page loaded again as above, 1000 ms, one call, timed. An
// answer without the page's title, or still with the text changed before
// the load, is stale: counted, the first kept in
// SUBJECT-PAGE-afterload-stale.txt.
//
// The agent loop and the reads after a load are not run on --real pages:
// they change a paragraph of the generated pages' <main>.
//
// Stale answers do not stop the run: they are in the JSON and the tables,
// named on stderr, and the script exits with status 3.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { Browser, oneTab, navigate, sessionFor, evaluate } from './cdp.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const argv = process.argv.slice(2);
const values = (name) => argv.flatMap((a, i) => (a === name ? [argv[i + 1]] : []));
const value = (name, dflt) => values(name).at(-1) ?? dflt;

const SUBJECT = value('--subject');
const CDP = value('--cdp');
const PAGES = value('--pages');
const NAMES = values('--page');
// REAL are the saved pages, by name and address.
const REAL = values('--real').map((p) => ({ name: p.slice(0, p.indexOf('=')), url: p.slice(p.indexOf('=') + 1) }));
const FIRST = Number(value('--first', '1'));
const OUT = value('--out');
const WORK = value('--work', OUT);
const PROVIDER = value('--provider');
const N = Number(value('-n', '7'));
const LOOP = Number(value('--loop', process.env.LOOP || '15'));
const LOOP_PAUSES = (values('--loop-pause').length ? values('--loop-pause') : [process.env.LOOP_PAUSE || '1000']).map(Number);
const AFTERLOAD = Number(value('--afterload', process.env.AFTERLOAD || '5'));
const AFTERLOAD_WAIT_MS = 1000; // after the load, before the after-load read
const SETTLE_MS = 300; // after the load event, before the first call
const TIMEOUT_MS = 10 * 60 * 1000; // of one call or one navigation
const BIN = new URL('./node_modules/.bin/', import.meta.url).pathname;

const count = (x) => Number.isInteger(x) && x >= 0;
if (!['raw', 'cdmcp', 'pwmcp', 'ours', 'screen'].includes(SUBJECT) || ![N, LOOP, AFTERLOAD, ...LOOP_PAUSES].every(count) || !(FIRST >= 1) || !CDP || !PAGES || !(NAMES.length + REAL.length) ||
  REAL.some((p) => !p.name || !p.url) || !OUT || (['ours', 'screen'].includes(SUBJECT) && !PROVIDER)) {
  console.error(fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('//')).join('\n'));
  process.exit(2);
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x) => Math.round(x * 100) / 100;

function summary(times) {
  const s = [...times].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median: round(median), min: round(s[0]), max: round(s.at(-1)), n: s.length };
}

// The text of an MCP result: a tool's text content or a resource's text.
const textOf = (r) => (r.content ?? r.contents ?? []).map((c) => c.text ?? '').join('\n');

// titleOf is the title every answer about the page must contain.
const titleOf = (name) => `Synthetic page ~${name.replace(/^p/, '')}`;

// A subject: how to start it, load a page, and take one snapshot.
function subjects(b, tab) {
  const mcp = (label, command, args) => ({
    label,
    async start() {
      const stderr = fs.createWriteStream(path.join(OUT, `${SUBJECT}.stderr.log`));
      const transport = new StdioClientTransport({
        command, args, cwd: WORK, stderr: 'pipe',
        env: { ...process.env, CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
      });
      transport.stderr?.pipe(stderr);
      this.client = new Client({ name: 'cdpprovider-peers', version: '1' });
      await this.client.connect(transport);
      this.server = { ...this.client.getServerVersion(), command: [path.basename(command), ...args].join(' ') };
    },
    async stop() { await this.client?.close(); },
  });
  return {
    raw: {
      label: 'raw getFullAXTree',
      server: { name: 'Accessibility.getFullAXTree', version: b.product },
      async load(url) { await navigate(b, tab, url, TIMEOUT_MS); },
      async snap() {
        const r = await b.call('Accessibility.getFullAXTree', {}, tab.sessionId);
        return JSON.stringify(r);
      },
    },
    ours: {
      ...mcp('cdpprovider uicontext://current', PROVIDER, ['serve', '--connect', CDP]),
      // The provider connects to the browser on its first read; the peers
      // connect while they load the first page, which is not timed either.
      async ready() { await this.snap(); },
      async load(url) { await navigate(b, tab, url, TIMEOUT_MS); },
      async snap() { return textOf(await this.client.readResource({ uri: 'uicontext://current' }, { timeout: TIMEOUT_MS })); },
    },
    screen: {
      ...mcp('cdpprovider ui_current {"scope": "screen"}', PROVIDER, ['serve', '--connect', CDP, '--tools']),
      async ready() {
        const { tools } = await this.client.listTools();
        if (!tools.find((t) => t.name === 'ui_current')?.inputSchema?.properties?.scope) {
          throw new Error('the provider\'s ui_current takes no "scope": no screen to time');
        }
        await this.snap();
      },
      async load(url) { await navigate(b, tab, url, TIMEOUT_MS); },
      async snap() {
        const r = await this.client.callTool({ name: 'ui_current', arguments: { scope: 'screen' } }, undefined, { timeout: TIMEOUT_MS });
        if (r.isError) throw new Error(`ui_current: ${textOf(r).slice(0, 500)}`);
        return textOf(r);
      },
    },
    cdmcp: {
      ...mcp('chrome-devtools-mcp take_snapshot', path.join(BIN, 'chrome-devtools-mcp'), ['--browserUrl', CDP, '--no-usage-statistics', '--no-performance-crux']),
      async load(url) {
        // Its page-scoped tools want the page's id, from list_pages.
        const pages = textOf(await this.tool('list_pages', {}));
        const m = pages.match(/^(\d+):.*\[selected\]/m) ?? pages.match(/^(\d+):/m);
        if (!m) throw new Error(`no page id in list_pages: ${pages.slice(0, 300)}`);
        this.pageId = Number(m[1]);
        await this.tool('navigate_page', { pageId: this.pageId, type: 'url', url });
      },
      async snap() { return textOf(await this.tool('take_snapshot', { pageId: this.pageId })); },
      async tool(name, args) {
        const r = await this.client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT_MS });
        if (r.isError) throw new Error(`${name}: ${textOf(r).slice(0, 500)}`);
        return r;
      },
    },
    pwmcp: {
      ...mcp('Playwright MCP browser_snapshot', path.join(BIN, 'playwright-mcp'), ['--cdp-endpoint', CDP, '--output-dir', path.join(WORK, 'playwright-mcp-output')]),
      async load(url) { await this.tool('browser_navigate', { url }); },
      async snap() { return textOf(await this.tool('browser_snapshot', {})); },
      async tool(name, args) {
        const r = await this.client.callTool({ name, arguments: args }, undefined, { timeout: TIMEOUT_MS });
        if (r.isError) throw new Error(`${name}: ${textOf(r).slice(0, 500)}`);
        return r;
      },
    },
  };
}

// editScript is the script that changes the page: the first text node of
// its first visible paragraph or heading in <main> (not the h1, which holds
// the title every answer must show) gets the data text. It returns the
// element's tag, or null when there is none.
const editScript = (text) => `(() => {
  for (const el of document.querySelectorAll('main p, main h2, main h3, main h4')) {
    if (el.firstChild?.nodeType === Node.TEXT_NODE && el.checkVisibility()) {
      el.firstChild.data = ${JSON.stringify(text)};
      return el.tagName;
    }
  }
  return null;
})()`;

// edit sets the text of the page's first visible paragraph or heading.
async function edit(b, tab, url, text) {
  const sessionId = await sessionFor(b, tab, url);
  const tag = await evaluate(b, sessionId, editScript(text));
  if (!tag) throw new Error(`${url}: no visible paragraph or heading with text to change`);
}

// nonce tells one run's changes from another's.
const nonce = () => Math.random().toString(36).slice(2, 8);

// keepStale writes the first stale answer of a measurement beside the
// others, and says so on stderr.
function keepStale(name, what, turn, text, why) {
  const file = path.join(OUT, `${SUBJECT}-${name}-${what}-stale.txt`);
  if (!fs.existsSync(file)) fs.writeFileSync(file, text);
  console.error(`[${SUBJECT}] STALE ${name} ${what} turn ${turn}: ${why} (${path.basename(file)})`);
}

// agentLoop times LOOP turns of: pause, change one text of the page, one
// call at once. Answers without the new text are stale.
async function agentLoop(b, tab, s, name, url, pauseMs) {
  const times = [], staleTurns = [];
  const id = nonce();
  for (let turn = 1; turn <= LOOP; turn++) {
    await sleep(pauseMs);
    const text = `Loop ${id} turn ${turn} after ${pauseMs} ms`;
    await edit(b, tab, url, text);
    const a = now();
    const answer = await s.snap();
    times.push(now() - a);
    if (!answer.includes(text)) {
      staleTurns.push(turn);
      keepStale(name, `loop${pauseMs}`, turn, answer, `the answer lacks "${text}"`);
    }
  }
  return { pauseMs, ...summary(times), stale: staleTurns.length, staleTurns };
}

// afterLoad times AFTERLOAD reads, each AFTERLOAD_WAIT_MS after the page
// was loaded again. The text changed before the load must be gone, and the
// title there.
async function afterLoad(b, tab, s, name, url) {
  const times = [], staleTurns = [];
  const id = nonce();
  for (let turn = 1; turn <= AFTERLOAD; turn++) {
    const before = `Before load ${id} turn ${turn} gone`;
    await edit(b, tab, url, before);
    await s.load(url);
    await sleep(AFTERLOAD_WAIT_MS);
    const a = now();
    const answer = await s.snap();
    times.push(now() - a);
    const title = titleOf(name);
    if (!answer.includes(title) || answer.includes(before)) {
      staleTurns.push(turn);
      keepStale(name, 'afterload', turn, answer, answer.includes(title) ? `the answer still has "${before}", from before the load` : `the answer lacks "${title}"`);
    }
  }
  return { waitMs: AFTERLOAD_WAIT_MS, ...summary(times), stale: staleTurns.length, staleTurns };
}

// axCount counts the AX nodes of the tab's page, and of its iframes.
async function axCount(b, tab) {
  const { nodes } = await b.call('Accessibility.getFullAXTree', {}, tab.sessionId);
  const { frameTree } = await b.call('Page.getFrameTree', {}, tab.sessionId);
  let frames = 0, frameNodes = 0;
  const walk = async (ft) => {
    for (const c of ft.childFrames ?? []) {
      frames++;
      try {
        frameNodes += (await b.call('Accessibility.getFullAXTree', { frameId: c.frame.id }, tab.sessionId)).nodes.length;
      } catch { /* an out-of-process frame answers on its own session */ }
      await walk(c);
    }
  };
  await walk(frameTree);
  return { axNodes: nodes.length, frames, frameAxNodes: frameNodes };
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const b = await Browser.connect(CDP);
  const tab = await oneTab(b);
  const s = subjects(b, tab)[SUBJECT];
  const loopPauses = LOOP ? LOOP_PAUSES : [];
  const result = {
    subject: SUBJECT, label: s.label, browser: b.product, when: new Date().toISOString(), n: N, first: FIRST,
    loop: LOOP, loopPauses, afterLoad: AFTERLOAD, afterLoadWaitMs: AFTERLOAD_WAIT_MS, pages: [],
  };
  let stale = 0;
  try {
    await s.start?.();
    await s.ready?.();
    result.server = s.server;
    console.error(`[${SUBJECT}] ${s.server.name} ${s.server.version}`);
    const pages = [...NAMES.map((name) => ({ name, url: new URL(`${name}.html`, PAGES).href })), ...REAL.map((p) => ({ ...p, real: true }))];
    for (const { name, url, real } of pages) {
      // must is what every answer about the page holds.
      const must = real ? url : titleOf(name);
      const check = (text) => {
        if (!text.includes(must)) throw new Error(`${SUBJECT} ${name}: the answer does not contain "${must}": ${text.slice(0, 300)}`);
      };
      const firsts = [];
      let navMs, text;
      for (let k = 0; k < FIRST; k++) {
        const t0 = now();
        await s.load(url);
        navMs = now() - t0;
        await sleep(SETTLE_MS);
        const a = now();
        text = await s.snap();
        firsts.push(now() - a);
        check(text);
      }
      const times = [];
      for (let i = 0; i < N; i++) {
        const a = now();
        text = await s.snap();
        times.push(now() - a);
        check(text);
      }
      const firstMs = summary(firsts).median;
      const row = { page: name, url, real: Boolean(real), navMs: round(navMs), firstMs: round(firstMs), firsts: firsts.map(round), ...(N ? summary(times) : { n: 0 }), textBytes: Buffer.byteLength(text), lines: text.split('\n').length };
      if (SUBJECT === 'raw') Object.assign(row, await axCount(b, tab));
      result.pages.push(row);
      fs.writeFileSync(path.join(OUT, `${SUBJECT}-${name}.txt`), text);
      console.log(`${SUBJECT}\t${name}\tmedian ${row.median} ms\tmin ${row.min}\tmax ${row.max}\tfirst ${row.firstMs} ms\t${row.textBytes} B`);
      if (real) continue; // the loop and the reads after a load change the generated pages' <main>
      if (loopPauses.length) row.loops = [];
      for (const pauseMs of loopPauses) {
        const l = await agentLoop(b, tab, s, name, url, pauseMs);
        row.loops.push(l);
        stale += l.stale;
        console.log(`${SUBJECT}\t${name}\tloop ${pauseMs} ms\tmedian ${l.median} ms\tmin ${l.min}\tmax ${l.max}\tstale ${l.stale}/${l.n}`);
      }
      if (AFTERLOAD) {
        const l = (row.afterLoad = await afterLoad(b, tab, s, name, url));
        stale += l.stale;
        console.log(`${SUBJECT}\t${name}\tafter load\tmedian ${l.median} ms\tmin ${l.min}\tmax ${l.max}\tstale ${l.stale}/${l.n}`);
      }
    }
  } finally {
    await s.stop?.();
    b.close();
  }
  result.stale = stale;
  fs.writeFileSync(path.join(OUT, `${SUBJECT}.json`), JSON.stringify(result, null, 2) + '\n');
  if (stale) {
    console.error(`[${SUBJECT}] STALE ANSWERS: ${stale} (see ${SUBJECT}.json and the *-stale.txt files)`);
    process.exitCode = 3;
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
