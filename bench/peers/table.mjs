#!/usr/bin/env node
// Prints the JSON files measure.mjs wrote in DIR as markdown tables.
//
//   node table.mjs DIR

import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node table.mjs DIR');
  process.exit(2);
}
const order = ['cdmcp', 'pwmcp', 'ours', 'screen', 'raw'];
const runs = order
  .map((s) => path.join(dir, `${s}.json`))
  .filter((f) => fs.existsSync(f))
  .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
if (!runs.length) {
  console.error(`no results in ${dir}`);
  process.exit(1);
}
const raw = runs.find((r) => r.subject === 'raw');
const names = [...new Set(runs.flatMap((r) => r.pages.map((p) => p.page)))];
const row = (run, name) => run.pages.find((p) => p.page === name);
const ms = (x) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const size = (b) => (b >= 1e6 ? `${(b / 1e6).toFixed(2)} MB` : `${(b / 1e3).toFixed(1)} kB`);

function pageCell(name) {
  const r = raw && row(raw, name);
  if (!r) return name;
  const frames = r.frames ? `, +${r.frameAxNodes} in ${r.frames === 1 ? 'an iframe' : `${r.frames} iframes`}` : '';
  return `${name} (${r.axNodes.toLocaleString('en-US')}${frames})`;
}

function table(title, cell) {
  const out = [`${title}`, '', `| page (AX nodes) | ${runs.map((r) => r.label).join(' | ')} |`, `|---|${runs.map(() => '---').join('|')}|`];
  for (const name of names) {
    out.push(`| ${pageCell(name)} | ${runs.map((r) => (row(r, name) ? cell(row(r, name), r) : 'n/a')).join(' | ')} |`);
  }
  return out.join('\n');
}

const first = runs[0];
const extra = [
  first.loop && first.loopPauses?.length ? `the agent loop: ${plural(first.loop, 'turn')} per pause (${first.loopPauses.join(' and ')} ms)` : '',
  first.afterLoad ? `${plural(first.afterLoad, 'read')} after a load` : '',
].filter(Boolean);
console.log(`${first.browser}, headless; ${first.n} timed calls per cell${extra.map((e) => `; ${e}`).join('')}, ${new Date(first.when).toISOString().slice(0, 16).replace('T', ' ')} UTC.`);
console.log('Servers: ' + runs.filter((r) => r.server).map((r) => `${r.server.name} ${r.server.version}`).join('; ') + '.');
console.log();
if (runs.some((r) => r.n > 0)) {
  console.log(table('Median (min–max) of the timed calls, after the first:', (p) => (p.n ? `${ms(p.median)} ms (${ms(p.min)}–${ms(p.max)})` : 'n/a')));
  console.log();
}
console.log(table(`The first call, 300 ms after the page loaded${first.first > 1 ? ` (median of ${first.first} loads)` : ''}:`, (p) => `${ms(p.firstMs)} ms`));
console.log();
console.log(table('Answer size (text of the result; raw: the JSON of the call):', (p) => size(p.textBytes)));

// The agent loop and the first read after a load: median (min–max), its
// ratio to raw's median on the same page in the same run, and the stale
// answers, loudly.
const ratio = (m, run, name, pick) => {
  const r = raw && run !== raw && row(raw, name) && pick(row(raw, name));
  return r ? `, ${(m.median / r.median).toFixed(2)}× raw` : '';
};
const staleCell = (m) => (m.stale ? ` **STALE ${m.stale}/${m.n}**` : '');
const measured = (pick) => (p, run) => {
  const m = pick(p);
  return m ? `${ms(m.median)} ms (${ms(m.min)}–${ms(m.max)})${ratio(m, run, p.page, pick)}${staleCell(m)}` : 'n/a';
};
const stale = [];
const pauses = [...new Set(runs.flatMap((r) => r.pages.flatMap((p) => (p.loops ?? []).map((l) => l.pauseMs))))];
for (const pause of pauses) {
  const pick = (p) => p.loops?.find((l) => l.pauseMs === pause);
  const turns = Math.max(...runs.flatMap((r) => r.pages.map((p) => pick(p)?.n ?? 0)));
  console.log();
  console.log(table(`The agent loop, ${plural(turns, 'turn')} of a ${pause} ms pause, a change to one paragraph's text, one call at once; median (min–max), × raw:`, measured(pick)));
  for (const r of runs) for (const p of r.pages) if (pick(p)?.stale) stale.push(`${r.subject} ${p.page} loop ${pause} ms: ${pick(p).stale} of ${pick(p).n} (turns ${pick(p).staleTurns.join(', ')})`);
}
if (runs.some((r) => r.pages.some((p) => p.afterLoad))) {
  const pick = (p) => p.afterLoad;
  const reads = Math.max(...runs.flatMap((r) => r.pages.map((p) => pick(p)?.n ?? 0)));
  const wait = runs.find((r) => r.afterLoadWaitMs)?.afterLoadWaitMs;
  console.log();
  console.log(table(`The first read ${wait} ms after the page loaded again (${plural(reads, 'load')}); median (min–max), × raw:`, measured(pick)));
  for (const r of runs) for (const p of r.pages) if (pick(p)?.stale) stale.push(`${r.subject} ${p.page} after load: ${pick(p).stale} of ${pick(p).n} (turns ${pick(p).staleTurns.join(', ')})`);
}

// The first read after a load beside Playwright MCP's snapshot of the same
// page: each provider subject's first call ÷ browser_snapshot's, per page,
// and the median of those ratios over the saved real pages (the target of
// bench/MODEL.md is over them and p50k).
const pw = runs.find((r) => r.subject === 'pwmcp');
const ourRuns = runs.filter((r) => r.subject === 'ours' || r.subject === 'screen');
if (pw && ourRuns.length) {
  const div = (r, name) => {
    const a = row(r, name), b = row(pw, name);
    return a && b ? a.firstMs / b.firstMs : undefined;
  };
  const spread = (p) => (p.firsts?.length > 1 ? ` (${ms(Math.min(...p.firsts))}–${ms(Math.max(...p.firsts))})` : '');
  console.log();
  console.log(`The first call 300 ms after a load${first.first > 1 ? `, median (min–max) of ${first.first} loads` : ''}, beside Playwright MCP's browser_snapshot:`);
  console.log();
  console.log(`| page | ${pw.label} | ${ourRuns.map((r) => `${r.label} | ÷ snapshot`).join(' | ')} |`);
  console.log(`|---|---:|${ourRuns.map(() => '---:|---:').join('|')}|`);
  for (const name of names) {
    const b = row(pw, name);
    if (!b) continue;
    console.log(`| ${pageCell(name)} | ${ms(b.firstMs)} ms${spread(b)} | ${ourRuns.map((r) => (row(r, name) ? `${ms(row(r, name).firstMs)} ms${spread(row(r, name))} | **${div(r, name).toFixed(2)}×**` : 'n/a | n/a')).join(' | ')} |`);
  }
  const real = names.filter((n) => row(pw, n)?.real);
  if (real.length) {
    const med = (xs) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    };
    console.log(`| **median over the ${real.length} saved pages** | | ${ourRuns.map((r) => {
      const xs = real.map((n) => div(r, n)).filter((x) => x !== undefined);
      return xs.length ? ` | **${med(xs).toFixed(2)}×**` : ' | n/a';
    }).join(' | ')} |`);
  }
}

if (stale.length) {
  console.log();
  console.log('**STALE ANSWERS** (answers that did not show the page as it was; their times are in the medians above):');
  for (const line of stale) console.log(`- ${line}`);
}
