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
const order = ['cdmcp', 'pwmcp', 'ours', 'raw'];
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
console.log(`${first.browser}, headless; ${first.n} timed calls per cell, ${new Date(first.when).toISOString().slice(0, 16).replace('T', ' ')} UTC.`);
console.log('Servers: ' + runs.filter((r) => r.server).map((r) => `${r.server.name} ${r.server.version}`).join('; ') + '.');
console.log();
console.log(table('Median (min–max) of the timed calls, after the first:', (p) => `${ms(p.median)} ms (${ms(p.min)}–${ms(p.max)})`));
console.log();
console.log(table('The first call, 300 ms after the page loaded:', (p) => `${ms(p.firstMs)} ms`));
console.log();
console.log(table('Answer size (text of the result; raw: the JSON of the call):', (p) => size(p.textBytes)));
