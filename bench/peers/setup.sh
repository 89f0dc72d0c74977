# Shared by run.sh, light.sh and model.sh (sourced, not run): the checks,
# the pinned npm packages, the builds, starting and stopping the page server
# and the browser, and the pages of light-pages.tsv. It sets HERE, ROOT, WORK,
# OUT and MANIFEST, and stops whatever it started when the script that
# sourced it ends.
#
# Needs Go, Node.js (20.19 or later) with npm, and a Chromium: $CHROME, else
# chromium on PATH. It never downloads a browser.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="${WORK:-$HERE/.work}"
OUT="$WORK/out"
MANIFEST="$HERE/light-pages.tsv"
REAL_MANIFEST="${REAL_MANIFEST:-$HERE/real-pages.tsv}"
export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1

die() { echo "bench/peers: $*" >&2; exit 1; }
for tool in go node npm curl sha256sum; do command -v "$tool" >/dev/null || die "needs $tool on PATH"; done
CHROME="${CHROME:-$(command -v chromium || true)}"
[ -n "$CHROME" ] && [ -x "$CHROME" ] || die "no Chromium: set \$CHROME or put chromium on PATH (it is never downloaded)"

rm -rf "$OUT" && mkdir -p "$OUT" "$WORK/logs"

# npm_ci installs the peers, pinned by package-lock.json, once.
npm_ci() {
  if [ ! -f "$HERE/node_modules/.package-lock.json" ] || [ "$HERE/package-lock.json" -nt "$HERE/node_modules/.package-lock.json" ]; then
    echo "== npm ci (once)"
    (cd "$HERE" && npm ci --no-audit --no-fund)
  fi
}

# build_pageserver and build_provider build from this checkout into $WORK.
build_pageserver() { (cd "$ROOT" && go build -o "$WORK/pageserver" ./bench/peers/pageserver); }
build_provider() { (cd "$ROOT" && go build -o "$WORK/cdpprovider" ./cmd/cdpprovider); }

WINDOW="${WINDOW:-1280,800}" # the browser's window, width,height
STARTED=()   # process ids to stop (each leads a process group of its own)
PROFILE=""   # the running browser's temporary profile
CHROME_PID=""
stop_pid() {
  local pid="$1"
  kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}
cleanup() {
  [ -n "$CHROME_PID" ] && stop_pid "$CHROME_PID"
  for pid in "${STARTED[@]}"; do stop_pid "$pid"; done
  [ -n "$PROFILE" ] && rm -rf "$PROFILE"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_pageserver [FLAGS...] starts the page server on a free loopback
# port, with FLAGS (-dir DIR: a directory's files), and sets PAGE_URL.
start_pageserver() {
  setsid "$WORK/pageserver" -addr 127.0.0.1:0 "$@" >"$WORK/pages.url" 2>"$WORK/logs/pageserver.log" &
  STARTED+=($!)
  for _ in $(seq 100); do [ -s "$WORK/pages.url" ] && break; sleep 0.1; done
  PAGE_URL="$(head -1 "$WORK/pages.url")"
  [ -n "$PAGE_URL" ] || die "the page server did not start (see $WORK/logs/pageserver.log)"
}

# start_chrome starts the browser: headless, a temporary profile, a free
# debugging port on 127.0.0.1 (read from DevToolsActivePort), in a process
# group of its own. It sets CDP, and prints the browser's version. Its
# window is 1280×800 (WINDOW; the viewport of what is on screen, the same
# for every client), and it resolves no host name but localhost: a page
# that names another site (a saved page's scripts, images and ads) gets
# no address for it at once, and nothing leaves the machine.
start_chrome() {
  PROFILE="$(mktemp -d -t cdpprovider-peers-XXXXXX)"
  local flags=(--headless=new --disable-gpu --no-first-run --no-default-browser-check
    --disable-background-networking --disable-component-update --disable-sync --disable-default-apps
    --password-store=basic --user-data-dir="$PROFILE" --window-size="$WINDOW"
    --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"
    --remote-debugging-address=127.0.0.1 --remote-debugging-port=0)
  [ "$(id -u)" = 0 ] && flags+=(--no-sandbox)
  setsid "$CHROME" "${flags[@]}" about:blank >"$WORK/logs/chromium.log" 2>&1 &
  CHROME_PID=$!
  for _ in $(seq 150); do [ -s "$PROFILE/DevToolsActivePort" ] && break; sleep 0.1; done
  local port
  port="$(head -1 "$PROFILE/DevToolsActivePort" 2>/dev/null || true)"
  [ -n "$port" ] || die "Chromium did not open its debugging port (see $WORK/logs/chromium.log)"
  CDP="http://127.0.0.1:$port"
  curl -sf "$CDP/json/version" | grep '"Browser"' || die "no answer from $CDP"
}

# stop_chrome stops the browser start_chrome started and removes its
# profile.
stop_chrome() {
  [ -n "$CHROME_PID" ] && stop_pid "$CHROME_PID"
  CHROME_PID=""
  [ -n "$PROFILE" ] && rm -rf "$PROFILE"
  PROFILE=""
}

# fetch_pages brings each package=version of $MANIFEST (light-pages.tsv:
# real documentation pages from Debian packages, pinned by sha256) to
# $WORK/pages once, with `apt-get download` into $WORK/debs and dpkg-deb -x
# (nothing is installed), and checks every page's sha256.
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

# fetch_realpages brings the saved real-world pages of $REAL_MANIFEST
# (real-pages.tsv) to $WORK/real once: the Go module its header names, at
# its version, with `go mod download` (through the machine's Go module
# proxy, into the Go module cache), its hash checked against the h1: sum
# the header pins, then each page copied out of the unpacked module and
# its sha256 checked. The pages are others' content: only their list is
# in this repository.
fetch_realpages() {
  local module version sum
  read -r module version sum < <(sed -n 's/^# module \([^ ]*\) \([^ ]*\) \(h1:[^ ]*\)$/\1 \2 \3/p' "$REAL_MANIFEST")
  [ -n "$sum" ] || die "$REAL_MANIFEST has no '# module PATH VERSION h1:SUM' line"
  local dst="$WORK/real" stamp="$WORK/real/.fetched-$(sha256sum "$REAL_MANIFEST" | cut -c1-16)"
  [ -f "$stamp" ] && return 0
  echo "== go mod download $module@$version"
  local info dir got
  # From / (no go.mod there), so that this checkout's go.mod and go.sum are
  # not touched; GOFLAGS from the environment could ask for -mod=vendor.
  info="$(cd / && GOFLAGS= GOWORK=off go mod download -json "$module@$version")" || die "go mod download $module@$version failed: $info"
  dir="$(node -e 'const j = JSON.parse(process.argv[1]); if (j.Error) { console.error(j.Error); process.exit(1) } console.log(j.Dir)' "$info")" || die "go mod download $module@$version: no module"
  got="$(node -e 'console.log(JSON.parse(process.argv[1]).Sum)' "$info")"
  [ "$got" = "$sum" ] || die "$module@$version: go mod download's hash $got, $REAL_MANIFEST pins $sum"
  rm -rf "$dst" && mkdir -p "$dst"
  local name kind path sha rest bad=0
  while IFS=$'\t' read -r name kind path sha rest; do
    cp "$dir/$path" "$dst/$name.html" 2>/dev/null || { echo "bench/peers: $module@$version has no $path" >&2; bad=1; continue; }
    chmod u+w "$dst/$name.html"
    got="$(sha256sum "$dst/$name.html" | cut -d' ' -f1)"
    [ "$got" = "$sha" ] || { echo "bench/peers: $path of $module@$version: sha256 $got, $REAL_MANIFEST says $sha" >&2; bad=1; }
  done < <(real_pages)
  [ "$bad" = 0 ] || die "pages differ from $REAL_MANIFEST"
  touch "$stamp"
}

# real_pages prints the page lines of $REAL_MANIFEST: name, kind, path in
# the module, sha256, then the rest (the AX nodes, the page's address).
real_pages() { grep -v '^#' "$REAL_MANIFEST" | tail -n +2; }
