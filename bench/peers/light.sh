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
MANIFEST="$HERE/light-pages.tsv"
export PROVIDER_FLAGS REST_FLAGS

# fetch_pages brings each package=version of the manifest to $WORK/pages
# once, and checks every page's sha256.
fetch_pages() {
  local pkg ver file sum updated=""
  mkdir -p "$WORK/debs" "$WORK/pages"
  while IFS=$'\t' read -r pkg ver file sum; do
    local stamp="$WORK/pages/.unpacked-$pkg-${ver//:/%3a}"
    [ -f "$stamp" ] && continue
    local dir="$WORK/debs/$pkg"
    rm -rf "$dir" && mkdir -p "$dir"
    echo "== apt-get download $pkg=$ver"
    if ! (cd "$dir" && apt-get download -q "$pkg=$ver" >"$WORK/logs/apt.log" 2>&1); then
      if [ -z "$updated" ] && [ "$(id -u)" = 0 ]; then apt-get update -q >/dev/null 2>&1 || true; updated=1; fi
      if ! (cd "$dir" && apt-get download -q "$pkg=$ver" >"$WORK/logs/apt.log" 2>&1); then
        echo "bench/peers: $pkg $ver is not in the archive (Debian has $(apt-cache policy "$pkg" | awk '/Candidate/ {print $2}')); trying that one, the pages' sha256 will tell" >&2
        (cd "$dir" && apt-get download -q "$pkg" >"$WORK/logs/apt.log" 2>&1) || die "apt-get download $pkg failed (see $WORK/logs/apt.log)"
      fi
    fi
    local deb
    deb="$(ls "$dir"/*.deb)"
    dpkg-deb -x "$deb" "$WORK/pages"
    touch "$WORK/pages/.unpacked-$pkg-$(dpkg-deb -f "$deb" Version | sed 's/:/%3a/g')"
  done < <(tail -n +2 "$MANIFEST" | grep -v '^#' | awk -F'\t' '!seen[$1 FS $2]++')
  local bad=0
  while IFS=$'\t' read -r pkg ver file sum; do
    local got
    got="$(sha256sum "$WORK/pages/$file" 2>/dev/null | cut -d' ' -f1 || true)"
    if [ "$got" != "$sum" ]; then
      echo "bench/peers: $file of $pkg $ver: sha256 ${got:-(no such file)}, the manifest says $sum" >&2
      bad=1
    fi
  done < <(tail -n +2 "$MANIFEST" | grep -v '^#')
  [ "$bad" = 0 ] || die "pages differ from light-pages.tsv: the package's version changed (see $WORK/debs). Choose pages anew and update the manifest (bench/LIGHT.md says how)"
}

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
