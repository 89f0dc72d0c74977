// variants.mjs rewrites the page outlines of a model.sh run
// (.work/out/model-*.outline.txt) and gives the median of each rewrite's
// o200k_base tokens over the snapshot's of the same page: what each part
// of the outline costs a model (bench/MODEL.md).
//
//   node bench/peers/variants.mjs [bench/peers/.work/out]
import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const dir = process.argv[2] ?? new URL('./.work/out', import.meta.url).pathname;
const id = / #([A-Za-z0-9._~-]+)$/gm;
const plain = (t) => t.length > 0 && !/["=\[<(#`\\\]>)]/.test(t) && t.trim() === t;
const variants = {
  'as it is': (s) => s,
  'no ids at all': (s) => s.replace(id, ''),
  'ids without their last character': (s) => s.replace(id, (m, x) => ' #' + x.slice(0, -1)),
  'no addresses': (s) => s.replace(/ <[^>\n]*>/g, ''),
  'no quotes anywhere': (s) => s.replace(/"/g, ''),
  'no indent': (s) => s.replace(/^ +/gm, ''),
  'no level=N': (s) => s.replace(/ level=\d+/g, ''),
  'titles of plain words quoted': (s) => s.replace(/^( *[A-Z][A-Za-z]*) (?!["\[<#(]|= |level=)(.+?)(?= = | \[| <| level=| \(| #|$)/gm,
    (m, role, title) => (plain(title) ? `${role} "${title}"` : m)),
  'titles of plain words bare': (s) => s.replace(/^( *[A-Z][A-Za-z]*) "((?:[^"\\]|\\.)*)"/gm, (m, role, title) => (plain(title) ? `${role} ${title}` : m)),
};
const median = (a) => {
  const s = a.slice().sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ratios = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (const f of fs.readdirSync(dir)) {
  if (!f.endsWith('.outline.txt')) continue;
  const snapshot = countTokens(fs.readFileSync(path.join(dir, f.replace('.outline.txt', '.pwmcp.txt')), 'utf8'));
  const outline = fs.readFileSync(path.join(dir, f), 'utf8');
  for (const [k, v] of Object.entries(variants)) ratios[k].push(countTokens(v(outline)) / snapshot);
}
for (const [k, r] of Object.entries(ratios)) console.log(`${median(r).toFixed(3)}×\t${k}\t(${r.length} pages)`);
