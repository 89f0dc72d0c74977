// A small Chrome DevTools Protocol client: one websocket to the browser,
// flat sessions for page targets, calls and events. Enough to prepare the
// tab, navigate it, and time Accessibility.getFullAXTree.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const WebSocket = require('ws');

export class Browser {
  // connect opens the browser's websocket, found from its HTTP debugging
  // address (http://127.0.0.1:PORT).
  static async connect(httpURL) {
    const version = await (await fetch(new URL('/json/version', httpURL))).json();
    const b = new Browser(version);
    await b.#open(version.webSocketDebuggerUrl);
    return b;
  }

  #ws;
  #next = 0;
  #pending = new Map();
  #listeners = new Set();

  constructor(version) {
    this.product = version.Browser; // "Chrome/156.0.8078.114"
  }

  #open(url) {
    return new Promise((resolve, reject) => {
      this.#ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 1 << 30 });
      this.#ws.once('open', resolve);
      this.#ws.once('error', reject);
      this.#ws.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        if (msg.id === undefined) {
          for (const l of this.#listeners) l(msg);
          return;
        }
        const p = this.#pending.get(msg.id);
        this.#pending.delete(msg.id);
        if (!p) return;
        if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
        else p.resolve(msg.result);
      });
      this.#ws.on('close', () => {
        for (const p of this.#pending.values()) p.reject(new Error(`${p.method}: the browser closed the connection`));
        this.#pending.clear();
      });
    });
  }

  // call sends a command, on the browser or on a session, and returns its
  // result.
  call(method, params = {}, sessionId = undefined) {
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      this.#ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  // event resolves with the first event of that method on that session
  // (undefined: the browser's own) that arrives after the call, or rejects
  // after timeoutMs.
  event(method, sessionId, timeoutMs) {
    return new Promise((resolve, reject) => {
      const l = (msg) => {
        if (msg.method === method && msg.sessionId === sessionId) {
          clearTimeout(timer);
          this.#listeners.delete(l);
          resolve(msg.params);
        }
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(l);
        reject(new Error(`no ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#listeners.add(l);
    });
  }

  close() {
    this.#ws.close();
  }
}

// oneTab leaves the browser with exactly one page tab, showing
// about:blank, brought to the front, and returns a flat session attached
// to it with the Page domain enabled. Each subject starts from this, so
// that no tab left by the one before (a peer may open its own) is read by
// the next.
export async function oneTab(b) {
  const { targetInfos } = await b.call('Target.getTargets');
  const pages = targetInfos.filter((t) => t.type === 'page');
  const { targetId } = await b.call('Target.createTarget', { url: 'about:blank' });
  for (const t of pages) await b.call('Target.closeTarget', { targetId: t.targetId });
  await b.call('Target.activateTarget', { targetId });
  const { sessionId } = await b.call('Target.attachToTarget', { targetId, flatten: true });
  await b.call('Page.enable', {}, sessionId);
  return { targetId, sessionId };
}

// navigate loads url in the session's tab and waits for its load event.
export async function navigate(b, tab, url, timeoutMs) {
  const loaded = b.event('Page.loadEventFired', tab.sessionId, timeoutMs);
  const r = await b.call('Page.navigate', { url }, tab.sessionId);
  if (r.errorText) throw new Error(`navigate to ${url}: ${r.errorText}`);
  await loaded;
}

// sessionFor returns a flat session attached to the tab that shows url:
// tab's own when it does (a subject that loads pages with its own tool may
// open a tab of its own), else the one other page tab that does, attached
// once and kept in tab.others.
export async function sessionFor(b, tab, url) {
  const { targetInfos } = await b.call('Target.getTargets');
  const showing = targetInfos.filter((t) => t.type === 'page' && t.url === url);
  if (showing.some((t) => t.targetId === tab.targetId)) return tab.sessionId;
  if (showing.length !== 1) throw new Error(`${showing.length} tabs show ${url}, not the harness's own`);
  tab.others ??= new Map();
  const { targetId } = showing[0];
  if (!tab.others.has(targetId)) {
    const { sessionId } = await b.call('Target.attachToTarget', { targetId, flatten: true });
    tab.others.set(targetId, sessionId);
  }
  return tab.others.get(targetId);
}

// evaluate runs expression in the main world of the session's page (its
// top frame's default context) and returns its value.
export async function evaluate(b, sessionId, expression) {
  const r = await b.call('Runtime.evaluate', { expression, returnByValue: true }, sessionId);
  if (r.exceptionDetails) throw new Error(`evaluate: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
  return r.result.value;
}
