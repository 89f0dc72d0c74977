#!/usr/bin/env bash
# Times cdpprovider's uicontext://current beside the two peer MCP servers,
# chrome-devtools-mcp (take_snapshot) and Playwright MCP (browser_snapshot),
# and the raw Accessibility.getFullAXTree, on one headless Chromium and the
# generated pages of bench/pages.go. Prints markdown tables; see
# bench/ANCHORS.md for what they mean.
#
#   bash bench/peers/run.sh                          # pages p100 p1k p10k p50k, every subject
#   PAGES="p100 p1k" bash bench/peers/run.sh         # some pages
#   SUBJECTS="raw ours" bash bench/peers/run.sh      # some subjects: raw cdmcp pwmcp ours screen
#   N=15 bash bench/peers/run.sh                     # timed calls per cell (default 7)
#   LOOP=30 LOOPS="1000" bash bench/peers/run.sh     # agent-loop turns (default 15; 0: off), pauses in ms (default "1000 100")
#   AFTERLOAD=10 bash bench/peers/run.sh             # reads after a load (default 5; 0: off)
#   REAL_MIN_NODES=3000 bash bench/peers/run.sh      # also the saved pages of real-pages.tsv with that many AX nodes or more
#   FIRST=5 bash bench/peers/run.sh                  # loads per page, the first call after each timed (default 1)
#
# The first read after a load of a large page (bench/MODEL.md):
#   REAL_MIN_NODES=3000 PAGES=p50k SUBJECTS="pwmcp ours screen" FIRST=5 N=0 LOOP=0 AFTERLOAD=0 bash bench/peers/run.sh
#   PROVIDER=/path/to/cdpprovider bash ...           # a prebuilt provider (default: built from this checkout)
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
source "$(dirname "$0")/setup.sh"
PAGES="${PAGES:-p100 p1k p10k p50k}"
SUBJECTS="${SUBJECTS:-raw cdmcp pwmcp ours}"
N="${N:-7}"
LOOP="${LOOP:-15}"               # agent-loop turns per page and pause; 0: no loop
LOOPS="${LOOPS-1000 100}"        # the loop's pauses, ms: one loop per pause
AFTERLOAD="${AFTERLOAD:-5}"      # reads after a load per page; 0: none
REAL_MIN_NODES="${REAL_MIN_NODES:-}" # the saved pages of real-pages.tsv with this many AX nodes or more; empty: none
FIRST="${FIRST:-1}"              # loads per page, the first call after each timed
PROVIDER="${PROVIDER:-}"
TIMEOUT="${TIMEOUT:-3600}" # seconds, for each subject's whole run

npm_ci
echo "== go build"
if [ -z "$PROVIDER" ]; then
  build_provider
  PROVIDER="$WORK/cdpprovider"
fi
[ -x "$PROVIDER" ] && [ -f "$PROVIDER" ] || die "no provider at $PROVIDER"
PROVIDER="$(cd "$(dirname "$PROVIDER")" && pwd)/$(basename "$PROVIDER")"
build_pageserver
real=()
if [ -n "$REAL_MIN_NODES" ]; then
  fetch_realpages
  start_pageserver -dir "$WORK/real" -offline
  rm -f "$WORK/pages.url"
  while IFS=$'\t' read -r name _ _ _ nodes _; do
    [ "$nodes" -ge "$REAL_MIN_NODES" ] && real+=(--real "$name=$PAGE_URL$name.html")
  done < <(real_pages)
fi
start_pageserver
start_chrome

pages=(); for p in $PAGES; do pages+=(--page "$p"); done
loop=(--loop "$LOOP"); [ -n "$LOOPS" ] || loop=(--loop 0)
for pause in $LOOPS; do loop+=(--loop-pause "$pause"); done
stale=()
for subject in $SUBJECTS; do
  echo "== $subject"
  rc=0
  timeout "$TIMEOUT" node "$HERE/measure.mjs" --subject "$subject" --cdp "$CDP" --pages "$PAGE_URL" "${pages[@]}" "${real[@]}" \
    --out "$OUT" --work "$WORK" --provider "$PROVIDER" -n "$N" --first "$FIRST" "${loop[@]}" --afterload "$AFTERLOAD" || rc=$?
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
