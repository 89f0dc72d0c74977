#!/usr/bin/env bash
# What a person's browsing costs the browser's renderer processes with a
# client attached: nothing, a raw getFullAXTree at each load, cdpprovider
# read once, cdpprovider subscribed, Playwright MCP, cdpprovider resting.
# The pages are real documentation from Debian packages (light-pages.tsv,
# pinned by sha256), served offline on 127.0.0.1. Prints a markdown table;
# see bench/LIGHT.md for what it means.
#
#   bash bench/peers/light.sh                        # 30 pages, every subject (about 15 minutes)
#   PAGES_LIMIT=5 bash bench/peers/light.sh          # the first pages of the manifest only
#   SUBJECTS="none unread" bash bench/peers/light.sh # some subjects: none raw unread subscribed pwmcp rested
#   PROVIDER=/path/to/cdpprovider bash bench/peers/light.sh   # a prebuilt provider (default: built from this checkout)
#   PROVIDER_FLAGS="--log-level warn" bash ...       # more flags for `cdpprovider serve`, every provider subject
#   REST_FLAGS="--rest-after 5s" bash ...            # rested's flags (default --rest-after 2s)
#   CHROME=/path/to/chromium bash ...
#
# The pages: each package of light-pages.tsv at its version is fetched with
# `apt-get download` into $WORK/debs once and unpacked with dpkg-deb -x into
# $WORK/pages (nothing is installed); every page's sha256 must match the
# manifest. The browser is started anew, with a new temporary profile, for
# each subject. rested is skipped, with a note in the table, when the
# provider does not know $REST_FLAGS. Results in $WORK/out (light-*.json,
# light-table.md); default $WORK: bench/peers/.work.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
PAGES_LIMIT="${PAGES_LIMIT:-30}"
SUBJECTS="${SUBJECTS:-none raw unread subscribed pwmcp rested}"
PROVIDER="${PROVIDER:-}"
PROVIDER_FLAGS="${PROVIDER_FLAGS:-}"
REST_FLAGS="${REST_FLAGS:---rest-after 2s}"
TIMEOUT="${TIMEOUT:-1200}" # seconds, for each subject's whole run
export PROVIDER_FLAGS REST_FLAGS

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
start_pageserver -dir "$WORK/pages"

load0="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)"
failed=()
for subject in $SUBJECTS; do
  if [ "$subject" = rested ]; then
    # Go's flag package stops at an unknown flag (status 2) before it sees --help.
    # shellcheck disable=SC2086
    if ! msg="$("$PROVIDER" serve $PROVIDER_FLAGS $REST_FLAGS --help 2>&1)"; then
      echo "bench/peers: rested needs a provider that takes $REST_FLAGS ($(head -1 <<<"$msg")): skipped" >&2
      echo "needs a provider that takes \`$REST_FLAGS\`" >"$OUT/light-rested.skip"
      continue
    fi
  fi
  echo "== $subject"
  start_chrome >/dev/null
  set +e
  timeout "$TIMEOUT" node "$HERE/light.mjs" --subject "$subject" --cdp "$CDP" --pages "$PAGE_URL" \
    --manifest "$MANIFEST" --limit "$PAGES_LIMIT" --out "$OUT" --work "$WORK" --provider "$PROVIDER" 2>&1 |
    tee "$OUT/light-$subject.log"
  rc="${PIPESTATUS[0]}"
  set -e
  stop_chrome
  if [ "$rc" != 0 ]; then
    failed+=("$subject")
    echo "bench/peers: $subject failed (status $rc; see $OUT/light-$subject.log and light-$subject.stderr.log)" >&2
  fi
done

echo
{
  node "$HERE/light.mjs" --table "$OUT"
  echo
  echo "Load average (1, 5, 15 min): $load0 before, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true) after."
} | tee "$OUT/light-table.md"
[ "${#failed[@]}" = 0 ] || die "failed: ${failed[*]}"
