// node check-bundle.mjs BUNDLE VERSION (run in release/, after npm ci)
//
// Reads an MCP Bundle as Claude Desktop does, with the pinned mcpb's own
// code (unpackExtension, getMcpConfigForManifest): unpacks it into a
// temporary directory, prints its files and its user settings, resolves
// its command and arguments for each system (platform_overrides, then
// the settings' defaults or the person's choices) and checks that each
// names an executable file of the bundle, and that the bundle holds
// nothing else. Then, on this system, it starts the server as the host
// would, once with the defaults and once with other choices, and checks
// the MCP handshake: the server's version is VERSION, and it offers
// tools exactly when the setting says so. Exits 1 on the first failure.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { getMcpConfigForManifest, unpackExtension } from "@anthropic-ai/mcpb";

const [bundlePath, version] = process.argv.slice(2);
if (!bundlePath || !version) {
  console.error("usage: node check-bundle.mjs BUNDLE VERSION");
  process.exit(2);
}
const fail = (msg) => {
  console.error(`check-bundle: ${msg}`);
  process.exit(1);
};

const dir = mkdtempSync(join(tmpdir(), "cdpprovider-bundle-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
if (!(await unpackExtension({ mcpbPath: bundlePath, outputDir: dir, silent: true }))) {
  fail(`mcpb could not unpack ${bundlePath}`);
}

const files = [];
const walk = (d) => {
  for (const name of readdirSync(d)) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else files.push(relative(dir, p).split(sep).join("/"));
  }
};
walk(dir);
files.sort();
console.log("bundle files:");
for (const f of files) {
  const st = statSync(join(dir, f));
  console.log(`  ${(st.mode & 0o777).toString(8)} ${String(st.size).padStart(9)} ${f}`);
}

const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
if (manifest.version !== version) fail(`manifest.json says version ${manifest.version}, want ${version}`);
console.log("user settings:");
for (const [key, c] of Object.entries(manifest.user_config ?? {})) {
  console.log(`  ${key}: ${c.type}, default ${JSON.stringify(c.default)} ("${c.title}")`);
}

// resolve is the command and arguments a host on platform runs for the
// person's choices (userConfig), as mcpb resolves them.
const realPlatform = process.platform;
async function resolve(platform, userConfig) {
  Object.defineProperty(process, "platform", { value: platform });
  try {
    return await getMcpConfigForManifest({
      manifest,
      extensionPath: dir,
      systemDirs: { HOME: tmpdir() },
      userConfig,
      pathSeparator: platform === "win32" ? "\\" : "/",
    });
  } finally {
    Object.defineProperty(process, "platform", { value: realPlatform });
  }
}

// The files each system's command starts: the command itself, and on
// macOS and Linux the binaries the launcher picks among.
const started = new Set(["manifest.json"]);
for (const platform of ["darwin", "linux", "win32"]) {
  const cfg = await resolve(platform, {});
  console.log(`${platform}: ${cfg.command} ${cfg.args.join(" ")}`);
  const rel = relative(dir, cfg.command).split(sep).join("/");
  if (rel.startsWith("..") || !files.includes(rel)) fail(`${platform}'s command ${cfg.command} is not a file of the bundle`);
  if ((statSync(cfg.command).mode & 0o111) === 0) fail(`${platform}'s command ${rel} is not executable`);
  if (cfg.args.some((a) => a.includes("${"))) fail(`${platform}'s arguments keep a variable: ${cfg.args.join(" ")}`);
  started.add(rel);
  if (rel.endsWith(".sh")) {
    const os = platform === "darwin" ? "darwin" : "linux";
    for (const arch of ["amd64", "arm64"]) {
      const bin = `server/cdpprovider-${os}-${arch}`;
      if (!files.includes(bin)) fail(`${platform}'s launcher would start ${bin}, which the bundle lacks`);
      if ((statSync(join(dir, bin)).mode & 0o111) === 0) fail(`${bin} is not executable`);
      started.add(bin);
    }
  }
}
const unstarted = files.filter((f) => !started.has(f));
if (unstarted.length > 0) fail(`the bundle holds files no system starts: ${unstarted.join(", ")}`);

// handshake starts cfg's command as a host does and returns the
// initialize result.
function handshake(cfg) {
  return new Promise((resolveResult, reject) => {
    const child = spawn(cfg.command, cfg.args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...cfg.env } });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no answer to initialize in 20 s; stderr: ${err}`));
    }, 20000);
    child.stderr.on("data", (d) => (err += d));
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.includes('"id":1'));
      if (!line) return;
      clearTimeout(timer);
      child.stdin.end(); // serve ends when its stdin closes
      const msg = JSON.parse(line);
      if (msg.error) reject(new Error(`initialize: ${JSON.stringify(msg.error)}`));
      else resolveResult(msg.result);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (!out.includes('"id":1')) reject(new Error(`exited (${code}) before answering; stderr: ${err}`));
    });
    child.stdin.write(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "check-bundle", version: "0" } } }) + "\n",
    );
  });
}

const here = { linux: "linux", darwin: "darwin", win32: "win32" }[realPlatform];
if (!here) fail(`cannot start the bundle on ${realPlatform}`);
for (const choices of [{}, { browser: "http://127.0.0.1:9", tools: false, max_bytes: 50000 }]) {
  const cfg = await resolve(here, choices);
  const result = await handshake(cfg).catch((e) => fail(`${cfg.command} ${cfg.args.join(" ")}: ${e.message}`));
  const tools = Boolean(result.capabilities?.tools);
  const wantTools = choices.tools ?? manifest.user_config.tools.default;
  console.log(`started ${relative(dir, cfg.command)} ${cfg.args.join(" ")}: ${result.serverInfo.name} ${result.serverInfo.version}, tools ${tools ? "on" : "off"}`);
  if (result.serverInfo.version !== version) fail(`the server says version ${result.serverInfo.version}, want ${version}`);
  if (tools !== wantTools) fail(`tools are ${tools ? "on" : "off"} with the setting ${wantTools}`);
}
console.log("check-bundle: ok");
