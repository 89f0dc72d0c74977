#!/usr/bin/env node
// Times one subject's snapshot of each page, on a browser and page server
// that run.sh started, and writes the numbers as JSON.
//
//   node measure.mjs --subject raw|cdmcp|pwmcp|ours --cdp http://127.0.0.1:PORT
//                    --pages http://127.0.0.1:PORT/ --page p1k [--page p10k ...]
//                    --out DIR [--provider /path/to/cdpprovider] [--work DIR] [-n 7]
//
// Subjects:
//   raw    Accessibility.getFullAXTree of the tab's main frame, over this
//          script's own websocket (also counts the page's AX nodes);
//   cdmcp  chrome-devtools-mcp's take_snapshot tool;
//   pwmcp  Playwright MCP's browser_snapshot tool;
//   ours   cdpprovider's resources/read of uicontext://current.
// The MCP servers run as a host runs them: spawned, spoken to over stdio by
// the MCP TypeScript SDK's client. Each is pointed at the same browser.
//
// The browser is left with one tab (cdp.mjs oneTab). Per page: the page
// is loaded (the peers with their own navigation tool, the others over
// CDP), then after 300 ms the first call is timed on its own, and then n
// calls in a row. A call's time is the client's round trip: from sending the
// request to having decoded the answer. Every answer must contain the
// page's title, or the run fails: a fast answer about the wrong page is no
// result.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { Browser, oneTab, navigate } from './cdp.mjs';

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
const OUT = value('--out');
const WORK = value('--work', OUT);
const PROVIDER = value('--provider');
const N = Number(value('-n', '7'));
const SETTLE_MS = 300; // after the load event, before the first call
const TIMEOUT_MS = 10 * 60 * 1000; // of one call or one navigation
const BIN = new URL('./node_modules/.bin/', import.meta.url).pathname;

if (!['raw', 'cdmcp', 'pwmcp', 'ours'].includes(SUBJECT) || !CDP || !PAGES || !NAMES.length || !OUT || (SUBJECT === 'ours' && !PROVIDER)) {
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
  const result = { subject: SUBJECT, label: s.label, browser: b.product, when: new Date().toISOString(), n: N, pages: [] };
  try {
    await s.start?.();
    await s.ready?.();
    result.server = s.server;
    console.error(`[${SUBJECT}] ${s.server.name} ${s.server.version}`);
    for (const name of NAMES) {
      const url = new URL(`${name}.html`, PAGES).href;
      const t0 = now();
      await s.load(url);
      const navMs = now() - t0;
      await sleep(SETTLE_MS);
      const times = [];
      let firstMs, text;
      for (let i = 0; i <= N; i++) {
        const a = now();
        text = await s.snap();
        const ms = now() - a;
        if (!text.includes(titleOf(name))) throw new Error(`${SUBJECT} ${name}: the answer does not contain "${titleOf(name)}": ${text.slice(0, 300)}`);
        if (i === 0) firstMs = ms;
        else times.push(ms);
      }
      const row = { page: name, url, navMs: round(navMs), firstMs: round(firstMs), ...summary(times), textBytes: Buffer.byteLength(text), lines: text.split('\n').length };
      if (SUBJECT === 'raw') Object.assign(row, await axCount(b, tab));
      result.pages.push(row);
      fs.writeFileSync(path.join(OUT, `${SUBJECT}-${name}.txt`), text);
      console.log(`${SUBJECT}\t${name}\tmedian ${row.median} ms\tmin ${row.min}\tmax ${row.max}\tfirst ${row.firstMs} ms\t${row.textBytes} B`);
    }
  } finally {
    await s.stop?.();
    b.close();
  }
  fs.writeFileSync(path.join(OUT, `${SUBJECT}.json`), JSON.stringify(result, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
