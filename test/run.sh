#!/usr/bin/env bash
#
# Installs everything the test suite needs on a fresh Debian/Ubuntu machine, then runs all of
# it: the type check and `bun test` (which also builds dist/svc and drives it). This is the
# README's test command; .ci/run calls exactly this.
#
# Installs when missing: bun (official installer when reachable, else `npm install -g bun`),
# bubblewrap (code sandboxes), the npm dependencies from bun.lock.
# Runs as any user; the apt-get steps need root (they are skipped with a note otherwise).

set -euo pipefail

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

ensure_bubblewrap() {
  command -v bwrap >/dev/null 2>&1 && return
  say "installing bubblewrap"
  apt_install bubblewrap || say "could not install bubblewrap (not root?); sandbox checks will report it missing"
}

main() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  ensure_bun
  ensure_bubblewrap
  say "bun $(bun --version); installing dependencies"
  bun install --frozen-lockfile
  say "type check"
  bun run typecheck
  say "bun test"
  bun test "$@"
}

main "$@"
