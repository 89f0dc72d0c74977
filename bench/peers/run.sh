#!/usr/bin/env bash
# Times cdpprovider's uicontext://current beside the two peer MCP servers,
# chrome-devtools-mcp (take_snapshot) and Playwright MCP (browser_snapshot),
# and the raw Accessibility.getFullAXTree, on one headless Chromium and the
# generated pages of bench/pages.go. Prints markdown tables; see
# bench/ANCHORS.md for what they mean.
#
#   bash bench/peers/run.sh                          # pages p100 p1k p10k p50k, every subject
#   PAGES="p100 p1k" bash bench/peers/run.sh         # some pages
#   SUBJECTS="raw ours" bash bench/peers/run.sh      # some subjects: raw cdmcp pwmcp ours
#   N=15 bash bench/peers/run.sh                     # timed calls per cell (default 7)
#   LOOP=30 LOOPS="1000" bash bench/peers/run.sh     # agent-loop turns (default 15; 0: off), pauses in ms (default "1000 100")
#   AFTERLOAD=10 bash bench/peers/run.sh             # reads after a load (default 5; 0: off)
#   CHROME=/path/to/chromium bash bench/peers/run.sh
#
# Needs Go, Node.js (20.19 or later) with npm, and a Chromium: $CHROME, else
# chromium on PATH. It never downloads a browser. It installs the pinned
# npm packages (package-lock.json) into bench/peers/node_modules once,
# builds cdpprovider and the page server from this checkout, and starts
# its own Chromium (temporary profile) and page server, both on 127.0.0.1
# with ports of their own, so it disturbs no browser already running. It
# stops what it started when it ends. Work files and results go to $WORK
# (default bench/peers/.work): results in $WORK/out. It exits with status 3
# when a subject gave stale answers in the agent loop or after a load (the
# tables name them), 0 otherwise.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="${WORK:-$HERE/.work}"
OUT="$WORK/out"
PAGES="${PAGES:-p100 p1k p10k p50k}"
SUBJECTS="${SUBJECTS:-raw cdmcp pwmcp ours}"
N="${N:-7}"
LOOP="${LOOP:-15}"               # agent-loop turns per page and pause; 0: no loop
LOOPS="${LOOPS-1000 100}"        # the loop's pauses, ms: one loop per pause
AFTERLOAD="${AFTERLOAD:-5}"      # reads after a load per page; 0: none
TIMEOUT="${TIMEOUT:-3600}" # seconds, for each subject's whole run
export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1

die() { echo "bench/peers: $*" >&2; exit 1; }
for tool in go node npm curl; do command -v "$tool" >/dev/null || die "needs $tool on PATH"; done
CHROME="${CHROME:-$(command -v chromium || true)}"
[ -n "$CHROME" ] && [ -x "$CHROME" ] || die "no Chromium: set \$CHROME or put chromium on PATH (it is never downloaded)"

rm -rf "$OUT" && mkdir -p "$OUT" "$WORK/logs"

# The peers, pinned by package-lock.json.
if [ ! -f "$HERE/node_modules/.package-lock.json" ] || [ "$HERE/package-lock.json" -nt "$HERE/node_modules/.package-lock.json" ]; then
  echo "== npm ci (once)"
  (cd "$HERE" && npm ci --no-audit --no-fund)
fi

echo "== go build"
(cd "$ROOT" && go build -o "$WORK/cdpprovider" ./cmd/cdpprovider && go build -o "$WORK/pageserver" ./bench/peers/pageserver)

STARTED=()   # process ids to stop
PROFILE=""
cleanup() {
  for pid in "${STARTED[@]}"; do
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  done
  for pid in "${STARTED[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  [ -n "$PROFILE" ] && rm -rf "$PROFILE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The page server, on a free loopback port.
setsid "$WORK/pageserver" -addr 127.0.0.1:0 >"$WORK/pages.url" 2>"$WORK/logs/pageserver.log" &
STARTED+=($!)
for _ in $(seq 100); do [ -s "$WORK/pages.url" ] && break; sleep 0.1; done
PAGE_URL="$(head -1 "$WORK/pages.url")"
[ -n "$PAGE_URL" ] || die "the page server did not start (see $WORK/logs/pageserver.log)"

# The browser: headless, a temporary profile, a free debugging port on
# 127.0.0.1 (read from DevToolsActivePort), in a process group of its own.
PROFILE="$(mktemp -d -t cdpprovider-peers-XXXXXX)"
flags=(--headless=new --disable-gpu --no-first-run --no-default-browser-check
  --disable-background-networking --disable-component-update --disable-sync --disable-default-apps
  --password-store=basic --user-data-dir="$PROFILE"
  --remote-debugging-address=127.0.0.1 --remote-debugging-port=0)
[ "$(id -u)" = 0 ] && flags+=(--no-sandbox)
setsid "$CHROME" "${flags[@]}" about:blank >"$WORK/logs/chromium.log" 2>&1 &
STARTED+=($!)
for _ in $(seq 150); do [ -s "$PROFILE/DevToolsActivePort" ] && break; sleep 0.1; done
PORT="$(head -1 "$PROFILE/DevToolsActivePort" 2>/dev/null || true)"
[ -n "$PORT" ] || die "Chromium did not open its debugging port (see $WORK/logs/chromium.log)"
CDP="http://127.0.0.1:$PORT"
curl -sf "$CDP/json/version" | grep '"Browser"' || die "no answer from $CDP"

pages=(); for p in $PAGES; do pages+=(--page "$p"); done
loop=(--loop "$LOOP"); [ -n "$LOOPS" ] || loop=(--loop 0)
for pause in $LOOPS; do loop+=(--loop-pause "$pause"); done
stale=()
for subject in $SUBJECTS; do
  echo "== $subject"
  rc=0
  timeout "$TIMEOUT" node "$HERE/measure.mjs" --subject "$subject" --cdp "$CDP" --pages "$PAGE_URL" "${pages[@]}" \
    --out "$OUT" --work "$WORK" --provider "$WORK/cdpprovider" -n "$N" "${loop[@]}" --afterload "$AFTERLOAD" || rc=$?
  case "$rc" in
  0) ;;
  3) stale+=("$subject"); echo "bench/peers: $subject gave STALE answers (see $OUT/$subject.json and $OUT/$subject-*-stale.txt)" >&2 ;;
  *) echo "bench/peers: $subject failed (see $OUT/$subject.stderr.log)" >&2 ;;
  esac
done

echo
node "$HERE/table.mjs" "$OUT" | tee "$OUT/table.md"
if [ "${#stale[@]}" -gt 0 ]; then
  echo "bench/peers: STALE answers from ${stale[*]}: their numbers are not of the page as it was" >&2
  exit 3
fi
