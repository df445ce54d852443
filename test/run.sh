#!/usr/bin/env bash
#
# Installs everything the test suite needs on a fresh Debian/Ubuntu machine, then runs all of
# it: the type check and `bun test` (which also builds dist/svc and drives it). This is the
# README's test command; .ci/run calls exactly this.
#
# Installs when missing: bun (official installer when reachable, else `npm install -g bun`),
# bubblewrap (code sandboxes), libsecp256k1 (receipt signing), chromium (the browser tests of the web console and the OAuth consent page), litestream v0.5.18 (the backup tests run it for real: the
# release tarball when github.com is reachable, else `go install` through the Go module
# proxy, a ~2 minute build; when neither works the run stops with an error), the npm
# dependencies from bun.lock.
# Runs as any user; the apt-get steps need root (they are skipped with a note otherwise).
# litestream goes to /usr/local/bin as root, else to ~/.local/bin (put first on PATH).

set -euo pipefail

# The litestream release svc is tested with; `litestream version` prints exactly this.
LITESTREAM_VERSION=v0.5.18
LITESTREAM_MODULE=github.com/benbjohnson/litestream
# Scratch space for the litestream download or build; removed on exit.
WORK_DIR=""

say() { printf 'test/run.sh: %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else return 1; fi
}

apt_install() {
  local pkg="$1"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q "$pkg" >/dev/null 2>&1 ||
    { as_root apt-get update -q >/dev/null 2>&1 && as_root apt-get install -y -q "$pkg" >/dev/null; }
}

ensure_bun() {
  if command -v bun >/dev/null 2>&1; then return; fi
  if [ -x "${HOME:-/root}/.bun/bin/bun" ]; then
    export PATH="${HOME:-/root}/.bun/bin:$PATH"
    return
  fi
  if curl -fsS --max-time 5 -o /dev/null https://bun.sh/install 2>/dev/null; then
    say "installing bun (bun.sh)"
    curl -fsSL https://bun.sh/install | bash >/dev/null
    export PATH="${HOME:-/root}/.bun/bin:$PATH"
  else
    say "installing bun (npm registry)"
    command -v npm >/dev/null 2>&1 || apt_install npm
    npm install -g bun >/dev/null 2>&1 || as_root npm install -g bun >/dev/null
    PATH="$(npm prefix -g)/bin:$PATH"
    export PATH
  fi
  command -v bun >/dev/null 2>&1 || { say "bun did not install"; exit 1; }
}

# Debian's chromium: the console's and the consent page's browser tests drive it headless (playwright-core, its
# executable at /usr/bin/chromium). Without root the test skips itself with a note.
ensure_chromium() {
  command -v chromium >/dev/null 2>&1 && return
  say "installing chromium (the browser tests of the console and the OAuth consent page)"
  apt_install chromium || say "could not install chromium (not root?); the consent page's browser test will be skipped"
}

ensure_bubblewrap() {
  command -v bwrap >/dev/null 2>&1 && return
  say "installing bubblewrap"
  apt_install bubblewrap || say "could not install bubblewrap (not root?); sandbox checks will report it missing"
}

# libsecp256k1: receipts are signed with it when it is installed (receipts.secp256k1 = "auto");
# the tests check it signs byte for byte as the JavaScript implementation does. The package is
# named for its soname, which differs by release.
ensure_libsecp256k1() {
  ldconfig -p 2>/dev/null | grep -qE 'libsecp256k1\.so\.[12] ' && return
  say "installing libsecp256k1"
  apt_install libsecp256k1-2 2>/dev/null || apt_install libsecp256k1-1 ||
    say "could not install libsecp256k1 (not root?); its tests will be skipped and receipts signed in JavaScript"
}

# What `BIN version` prints (its first line), or nothing.
litestream_version_of() {
  "$1" version 2>/dev/null | head -n 1 || true
}

# Where litestream goes: /usr/local/bin as root, else ~/.local/bin.
litestream_dir() {
  if [ "$(id -u)" -eq 0 ]; then echo /usr/local/bin; else echo "${HOME:?HOME is not set}/.local/bin"; fi
}

# ensure_litestream DIR: the pinned litestream is the first one on PATH, installed into DIR
# (put first on PATH when it is not on it) unless already there. Exits 1 when it cannot be
# installed: the backup tests need the real binary.
ensure_litestream() {
  local dir="$1" asset="" go=""
  case ":$PATH:" in
    *":$dir:"*) ;;
    *) export PATH="$dir:$PATH" ;;
  esac
  if [ "$(litestream_version_of litestream)" = "$LITESTREAM_VERSION" ]; then return; fi
  WORK_DIR="$(mktemp -d)"
  case "$(uname -m)" in
    x86_64 | amd64) asset="litestream-${LITESTREAM_VERSION#v}-linux-x86_64.tar.gz" ;;
    aarch64 | arm64) asset="litestream-${LITESTREAM_VERSION#v}-linux-arm64.tar.gz" ;;
  esac
  # --connect-timeout fails fast when github.com is unreachable (name lookup and connect);
  # --max-time bounds a stalled download.
  if [ -n "$asset" ] && command -v curl >/dev/null 2>&1 &&
    curl -fsSL --connect-timeout 5 --max-time 60 -o "$WORK_DIR/$asset" \
      "https://github.com/benbjohnson/litestream/releases/download/$LITESTREAM_VERSION/$asset" 2>/dev/null &&
    tar -xzf "$WORK_DIR/$asset" -C "$WORK_DIR" 2>/dev/null &&
    [ "$(litestream_version_of "$WORK_DIR/litestream")" = "$LITESTREAM_VERSION" ]; then
    say "litestream $LITESTREAM_VERSION: release download"
    mkdir -p "$WORK_DIR/bin"
    mv "$WORK_DIR/litestream" "$WORK_DIR/bin/litestream"
  else
    if command -v go >/dev/null 2>&1; then
      go="$(command -v go)"
    elif [ -x /usr/local/go/bin/go ]; then
      go=/usr/local/go/bin/go
    else
      say "litestream: not installed (no download and no Go); replication stays off until it is installed: see docs/backup.md"
      say "the test suite needs litestream $LITESTREAM_VERSION: install it into $dir (or install Go) and run again"
      exit 1
    fi
    # CGO_ENABLED=0 as in the release builds: pure Go SQLite, no C compiler needed.
    say "litestream $LITESTREAM_VERSION: no release download; building it with $go install (Go module proxy; about 2 minutes on 2 cores)"
    if ! (cd "$WORK_DIR" && GOBIN="$WORK_DIR/bin" CGO_ENABLED=0 "$go" install "$LITESTREAM_MODULE/cmd/litestream@$LITESTREAM_VERSION") >"$WORK_DIR/go.log" 2>&1 ||
      [ "$(litestream_version_of "$WORK_DIR/bin/litestream")" != "$LITESTREAM_VERSION" ]; then
      say "go install $LITESTREAM_MODULE/cmd/litestream@$LITESTREAM_VERSION failed:"
      tail -n 40 "$WORK_DIR/go.log" >&2
      exit 1
    fi
  fi
  mkdir -p "$dir"
  install -m 0755 "$WORK_DIR/bin/litestream" "$dir/litestream.new"
  mv -f "$dir/litestream.new" "$dir/litestream"
  # Another litestream earlier on PATH would still win; the tests would run the wrong one.
  if [ "$(litestream_version_of litestream)" != "$LITESTREAM_VERSION" ]; then
    say "installed $dir/litestream, but $(command -v litestream) comes first on PATH and is not $LITESTREAM_VERSION"
    exit 1
  fi
  say "litestream $LITESTREAM_VERSION: installed $dir/litestream"
}

main() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  trap 'if [ -n "$WORK_DIR" ]; then rm -rf "$WORK_DIR"; fi' EXIT
  ensure_bun
  ensure_bubblewrap
  ensure_libsecp256k1
  ensure_chromium
  ensure_litestream "$(litestream_dir)"
  say "bun $(bun --version); installing dependencies"
  bun install --frozen-lockfile
  say "type check"
  bun run typecheck
  say "bun test"
  # Every response the harness sees is checked against the OpenAPI document and recorded here;
  # afterwards every operation must have had a checked success (scripts/openapi-coverage.ts).
  SVC_OPENAPI_COVERAGE="$(mktemp)"
  export SVC_OPENAPI_COVERAGE
  # Bun ignores a timeout in bunfig.toml; this is where the per-test limit is set.
  # The failures are repeated at the very end, so the last lines of a long log name them.
  local log status
  log="$(mktemp)"
  set +e
  bun test --timeout 30000 "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -ne 0 ]; then
    say "bun test failed (exit $status); the failing tests:"
    grep -E '^\(fail\)' "$log" | head -n 50 >&2 || true
    rm -f "$log" "$SVC_OPENAPI_COVERAGE"
    exit "$status"
  fi
  rm -f "$log"
  if [ "$#" -eq 0 ]; then
    bun scripts/openapi-coverage.ts "$SVC_OPENAPI_COVERAGE"
  fi
  rm -f "$SVC_OPENAPI_COVERAGE"
}

main "$@"
