#!/usr/bin/env bash
#
# install.sh: build svc from this checkout and install it as a systemd service on a
# Debian/Ubuntu machine. Run as root from the checkout:
#
#   sudo ./install.sh                    install, or update in place (idempotent)
#   sudo ./install.sh --uninstall        remove the service and binary; keep config and data
#   sudo ./install.sh --uninstall --purge   also remove config, data, replicas and the user
#   ./install.sh --help
#
# Every step checks first and says "no change" when there is nothing to do, so a re-run is
# safe. Settings come from environment variables of the same name:
#
#   SVC_BIN_DIR        where the svc binary goes                 (default /usr/local/bin)
#   SVC_CONFIG_DIR     where svc.toml lives                      (default /etc/svc)
#   SVC_DATA_DIR       database, keys, receipts                  (default /var/lib/svc)
#   SVC_REPLICA        where Litestream replicates the database, one of:
#                      - file:///dir: a local dir, created for SVC_USER with mode 0700
#                      - any other URL, e.g. s3://bucket/path?endpoint=…&region=…, passed
#                        to svc setup as is (svc checks it)
#                      - off: no replication
#                      (default file://$SVC_DATA_DIR-replica: file:///var/lib/svc-replica)
#   SVC_LITESTREAM_BIN_DIR  where litestream is installed when missing
#                                                                (default /usr/local/bin)
#   SVC_USER           system user svc runs as; created when missing
#                                                                (default svc)
#   SVC_UNIT_DIR       where svc.service is installed            (default /etc/systemd/system)
#   SVC_LISTEN         host:port svc listens on                  (default 127.0.0.1:8080)
#   SVC_PUBLIC_URL     URL clients use to reach svc, e.g. https://svc.example.com
#                      (default empty: svc derives it from SVC_LISTEN)
#   SVC_ADMIN_TOKEN    optional: enable the admin API with this token (stored as sha256)
#   SVC_METRICS_TOKEN  optional: enable /metrics with this token (stored as sha256)
#
# The tokens are never printed (nor the user name, password or query of a replica URL). Bun
# (build only), bubblewrap (code sandboxes) and libsecp256k1 (fast receipt signing; optional)
# are installed when missing, and so is
# litestream v0.5.18 (replication): from the release tarball on github.com, else with
# `go install` when Go is there (a ~2 minute build), else not at all: svc then runs without
# replication until it is installed (see docs/backup.md). Existing keys and data are never
# replaced (`svc setup` keeps them).

set -euo pipefail

SCRIPT_NAME=install.sh
SRC_DIR=""
TMP_DIR=""
# Set by the install steps; a change in any of them restarts a running service.
CHANGED_BINARY=0
CHANGED_UNIT=0
CHANGED_CONFIG=0
CREATED_USER=0
# Marker in the config dir: present only when this script created the user.
USER_MARKER=".created-user"
# The litestream release svc is tested with; `litestream version` prints exactly this.
LITESTREAM_VERSION=v0.5.18
LITESTREAM_MODULE=github.com/benbjohnson/litestream
# The directory of a file:// SVC_REPLICA; empty for off and remote replicas (check_settings).
REPLICA_DIR=""

say() { printf '%s\n' "$*"; }
die() {
  printf '%s: %s\n' "$SCRIPT_NAME" "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
Usage: $SCRIPT_NAME [--uninstall] [--purge] [--help]

Build svc from this checkout and install it as a systemd service (run as root).
Re-running updates in place and says "no change" for every step with nothing to do.

  (no option)          install or update
  --uninstall          stop and remove the service and the binary; keep config and data
  --purge              with or without --uninstall: uninstall, then also remove the config
                       dir, the data dir, the replica dir (file:// SVC_REPLICA) and the user
                       (only if this script created it)
  -h, --help           show this help

Settings (environment variables):
  SVC_BIN_DIR        binary directory              (now: $SVC_BIN_DIR)
  SVC_CONFIG_DIR     config directory              (now: $SVC_CONFIG_DIR)
  SVC_DATA_DIR       data directory                (now: $SVC_DATA_DIR)
  SVC_REPLICA        replica URL: file:///dir, s3://bucket/path?…, or off
                                                   (now: $(replica_label))
  SVC_LITESTREAM_BIN_DIR  litestream directory     (now: $SVC_LITESTREAM_BIN_DIR)
  SVC_USER           user svc runs as              (now: $SVC_USER)
  SVC_UNIT_DIR       systemd unit directory        (now: $SVC_UNIT_DIR)
  SVC_LISTEN         listen address host:port      (now: $SVC_LISTEN)
  SVC_PUBLIC_URL     public URL                    (now: ${SVC_PUBLIC_URL:-derived from SVC_LISTEN})
  SVC_ADMIN_TOKEN    admin API token, optional     (now: $( [ -n "$SVC_ADMIN_TOKEN" ] && echo set || echo unset))
  SVC_METRICS_TOKEN  /metrics token, optional      (now: $( [ -n "$SVC_METRICS_TOKEN" ] && echo set || echo unset))

Example:
  sudo SVC_LISTEN=0.0.0.0:8080 SVC_PUBLIC_URL=https://svc.example.com ./install.sh
EOF
}

# --- settings ------------------------------------------------------------------------

load_settings() {
  SVC_BIN_DIR="${SVC_BIN_DIR:-/usr/local/bin}"
  SVC_CONFIG_DIR="${SVC_CONFIG_DIR:-/etc/svc}"
  SVC_DATA_DIR="${SVC_DATA_DIR:-/var/lib/svc}"
  SVC_USER="${SVC_USER:-svc}"
  SVC_UNIT_DIR="${SVC_UNIT_DIR:-/etc/systemd/system}"
  SVC_LISTEN="${SVC_LISTEN:-127.0.0.1:8080}"
  SVC_PUBLIC_URL="${SVC_PUBLIC_URL:-}"
  SVC_ADMIN_TOKEN="${SVC_ADMIN_TOKEN:-}"
  SVC_METRICS_TOKEN="${SVC_METRICS_TOKEN:-}"
  SVC_REPLICA="${SVC_REPLICA:-file://${SVC_DATA_DIR%/}-replica}"
  SVC_LITESTREAM_BIN_DIR="${SVC_LITESTREAM_BIN_DIR:-/usr/local/bin}"
  # Keep the settings (tokens above all) out of the environment of every command we run;
  # svc itself reads SVC_* variables and would treat them as overrides.
  export -n SVC_BIN_DIR SVC_CONFIG_DIR SVC_DATA_DIR SVC_USER SVC_UNIT_DIR SVC_LISTEN \
    SVC_PUBLIC_URL SVC_ADMIN_TOKEN SVC_METRICS_TOKEN SVC_REPLICA SVC_LITESTREAM_BIN_DIR
}

# The replica for messages: file URLs and "off" as they are; for any other URL the user
# name, password and query (which may hold credentials) are left out.
replica_label() {
  case "$SVC_REPLICA" in
    off | file://*)
      printf '%s\n' "$SVC_REPLICA"
      return
      ;;
    *://*) ;;
    *)
      printf '(not a URL; not shown)\n'
      return
      ;;
  esac
  local scheme="${SVC_REPLICA%%://*}" rest="${SVC_REPLICA#*://}" authority path="" query=""
  case "$rest" in *\?*) query="?…" ;; esac
  rest="${rest%%\?*}"
  authority="${rest%%/*}"
  [ "$authority" = "$rest" ] || path="/${rest#*/}"
  printf '%s://%s%s%s\n' "$scheme" "${authority##*@}" "$path" "$query"
}

check_settings() {
  local name value
  for name in SVC_BIN_DIR SVC_CONFIG_DIR SVC_DATA_DIR SVC_UNIT_DIR SVC_LITESTREAM_BIN_DIR; do
    value="${!name}"
    case "$value" in
      /*) ;;
      *) die "$name must be an absolute path, got \"$value\"" ;;
    esac
    case "$value" in
      *[[:space:]@\|\&\\]*) die "$name must not contain spaces or any of @ | & \\, got \"$value\"" ;;
    esac
  done
  case "$SVC_USER" in
    "" | *[!A-Za-z0-9._-]* | -*) die "SVC_USER must be a user name like svc, got \"$SVC_USER\"" ;;
  esac
  case "$SVC_LISTEN" in
    *:[0-9]*) ;;
    *) die "SVC_LISTEN must be host:port, got \"$SVC_LISTEN\"" ;;
  esac
  check_replica
}

# Sets REPLICA_DIR for a file:// replica. Remote URLs are left to `svc setup` to check.
check_replica() {
  case "$SVC_REPLICA" in
    off) return ;;
    file://*) ;;
    [A-Za-z]*://?*) return ;;
    *) die "SVC_REPLICA must be off, file:///absolute/dir or a URL such as s3://bucket/path (value not shown: it may hold credentials)" ;;
  esac
  local dir="${SVC_REPLICA#file://}"
  # Without its trailing slashes ("/" becomes empty and is refused below).
  dir="${dir%"${dir##*[!/]}"}"
  case "$dir" in
    /?*) ;;
    *) die "SVC_REPLICA must be file:///absolute/dir (three slashes, not /), got \"$SVC_REPLICA\"" ;;
  esac
  # The dir goes into the unit (sed, ReadWritePaths=) as is, and svc decodes %XX in the URL.
  case "$dir" in
    *[[:space:]@\|\&\\%?#]*) die "the SVC_REPLICA dir must not contain spaces or any of @ | & \\ % ? #, got \"$dir\"" ;;
  esac
  if [ "$dir" = "${SVC_DATA_DIR%/}" ] || [ "$dir" = "${SVC_CONFIG_DIR%/}" ]; then
    die "the SVC_REPLICA dir must be a directory of its own, not the data or config dir ($dir)"
  fi
  REPLICA_DIR="$dir"
  SVC_REPLICA="file://$dir"
}

require_root() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo ./$SCRIPT_NAME $*)"
}

systemd_running() { [ -d /run/systemd/system ]; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# Runs a command as $SVC_USER from /, directly when that is who we already are.
as_user() {
  if [ "$SVC_USER" = "$(id -un)" ]; then
    (cd / && "$@")
  elif command -v runuser >/dev/null 2>&1; then
    (cd / && runuser -u "$SVC_USER" -- "$@")
  else
    (cd / && setpriv --reuid="$SVC_USER" --regid="$(id -g "$SVC_USER")" --init-groups -- "$@")
  fi
}

# Prints the last lines of a log file after a failed command, then exits.
fail_with_log() {
  local what="$1" log="$2"
  printf '%s: %s failed:\n' "$SCRIPT_NAME" "$what" >&2
  tail -n 40 "$log" >&2 || true
  exit 1
}

# --- install steps -------------------------------------------------------------------

# Installs PKG with apt-get (its package lists refreshed when the first try fails: a fresh
# machine may have none); the exit status says whether it worked, $TMP_DIR/apt.log why not.
try_apt_package() {
  local pkg="$1"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >"$TMP_DIR/apt.log" 2>&1 && return
  DEBIAN_FRONTEND=noninteractive apt-get update -q >"$TMP_DIR/apt.log" 2>&1 &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >"$TMP_DIR/apt.log" 2>&1
}

ensure_apt_package() {
  try_apt_package "$1" || fail_with_log "apt-get install $1" "$TMP_DIR/apt.log"
}

ensure_bun() {
  if command -v bun >/dev/null 2>&1; then
    say "bun: present ($(bun --version))"
    return
  fi
  local bun_home="${BUN_INSTALL:-${HOME:-/root}/.bun}"
  if [ -x "$bun_home/bin/bun" ]; then
    PATH="$bun_home/bin:$PATH"
    say "bun: present ($(bun --version), $bun_home/bin)"
    return
  fi
  if command -v curl >/dev/null 2>&1 && curl -fsS --max-time 5 -o /dev/null https://bun.sh/install 2>/dev/null; then
    say "bun: installing with the official installer (bun.sh)"
    command -v unzip >/dev/null 2>&1 || ensure_apt_package unzip
    curl -fsSL https://bun.sh/install | BUN_INSTALL="$bun_home" bash >"$TMP_DIR/bun.log" 2>&1 ||
      fail_with_log "bun installer" "$TMP_DIR/bun.log"
    PATH="$bun_home/bin:$PATH"
  else
    say "bun: bun.sh unreachable; installing with npm"
    command -v npm >/dev/null 2>&1 || ensure_apt_package npm
    npm install -g bun >"$TMP_DIR/bun.log" 2>&1 || fail_with_log "npm install -g bun" "$TMP_DIR/bun.log"
    PATH="$(npm prefix -g)/bin:$PATH"
  fi
  export PATH
  command -v bun >/dev/null 2>&1 || die "bun was installed but is not on PATH"
  say "bun: installed ($(bun --version))"
}

ensure_bubblewrap() {
  if command -v bwrap >/dev/null 2>&1; then
    say "bubblewrap: present ($(bwrap --version 2>/dev/null | head -n 1))"
    return
  fi
  ensure_apt_package bubblewrap
  say "bubblewrap: installed ($(bwrap --version 2>/dev/null | head -n 1))"
}

# libsecp256k1 (receipt signatures at ~1/5 the CPU of the JavaScript implementation; svc uses it
# when it is there: receipts.secp256k1 = "auto"). The package is named for its soname, which
# differs by release; none installed is not an error: svc signs with its JavaScript one.
ensure_libsecp256k1() {
  if ldconfig -p 2>/dev/null | grep -qE 'libsecp256k1\.so\.[12] '; then
    say "libsecp256k1: present"
    return
  fi
  local pkg
  for pkg in libsecp256k1-2 libsecp256k1-1; do
    if try_apt_package "$pkg"; then
      say "libsecp256k1: installed ($pkg)"
      return
    fi
  done
  say "libsecp256k1: not available here; receipts are signed by the JavaScript implementation (about 5x the CPU per signature)"
}

# What `BIN version` prints (its first line), or nothing.
litestream_version_of() {
  "$1" version 2>/dev/null | head -n 1 || true
}

# Fetches the release tarball for this machine into DIR and checks that it holds a
# litestream binary of the pinned version. Fails fast when github.com is unreachable
# (--connect-timeout covers name lookup and connect); --max-time bounds a stalled download.
litestream_download() {
  local dir="$1" asset
  case "$(uname -m)" in
    x86_64 | amd64) asset="litestream-${LITESTREAM_VERSION#v}-linux-x86_64.tar.gz" ;;
    aarch64 | arm64) asset="litestream-${LITESTREAM_VERSION#v}-linux-arm64.tar.gz" ;;
    *) return 1 ;;
  esac
  command -v curl >/dev/null 2>&1 || return 1
  curl -fsSL --connect-timeout 5 --max-time 60 -o "$dir/$asset" \
    "https://github.com/benbjohnson/litestream/releases/download/$LITESTREAM_VERSION/$asset" 2>/dev/null || return 1
  tar -xzf "$dir/$asset" -C "$dir" 2>/dev/null || return 1
  [ -f "$dir/litestream" ] && [ "$(litestream_version_of "$dir/litestream")" = "$LITESTREAM_VERSION" ]
}

# Prints the go command: on PATH, else the official tarball's /usr/local/go/bin/go.
find_go() {
  if command -v go >/dev/null 2>&1; then
    command -v go
  elif [ -x /usr/local/go/bin/go ]; then
    printf '%s\n' /usr/local/go/bin/go
  else
    return 1
  fi
}

# Builds litestream from source into DIR/bin with `go install` (the Go module proxy, not
# github.com). CGO_ENABLED=0 as in the release builds: pure Go SQLite, no C compiler needed.
# Output goes to DIR/go.log.
litestream_go_install() {
  local dir="$1" go="$2"
  local -a go_env=(GOBIN="$dir/bin" CGO_ENABLED=0)
  # Go keeps its caches under $HOME; without one (some provisioning tools), use the temp
  # dir, with a module cache that rm -rf can remove.
  if [ -z "${HOME:-}" ]; then
    go_env+=(GOPATH="$dir/gopath" GOCACHE="$dir/gocache" GOFLAGS="${GOFLAGS:+$GOFLAGS }-modcacherw")
  fi
  (cd "$dir" && env "${go_env[@]}" "$go" install "$LITESTREAM_MODULE/cmd/litestream@$LITESTREAM_VERSION") >"$dir/go.log" 2>&1 &&
    [ -f "$dir/bin/litestream" ] && [ "$(litestream_version_of "$dir/bin/litestream")" = "$LITESTREAM_VERSION" ]
}

# Copies FILE to $SVC_LITESTREAM_BIN_DIR/litestream (mode 0755) atomically.
place_litestream() {
  local built="$1" target="$SVC_LITESTREAM_BIN_DIR/litestream"
  mkdir -p "$SVC_LITESTREAM_BIN_DIR"
  install -m 0755 "$built" "$target.new"
  mv -f "$target.new" "$target"
}

# svc finds litestream on the service's PATH (backup.litestream = "litestream"), which
# under systemd is /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin.
note_litestream_path() {
  case "${SVC_LITESTREAM_BIN_DIR%/}" in
    /usr/local/sbin | /usr/local/bin | /usr/sbin | /usr/bin | /sbin | /bin) ;;
    *) say "litestream: note: $SVC_LITESTREAM_BIN_DIR is not on the service's PATH; set backup.litestream = \"$SVC_LITESTREAM_BIN_DIR/litestream\" in $SVC_CONFIG_DIR/svc.toml" ;;
  esac
}

# The pinned litestream: kept when present, else downloaded, else built with Go, else left
# out with a note (svc runs without replication until it is installed; not an error).
ensure_litestream() {
  local target="$SVC_LITESTREAM_BIN_DIR/litestream" candidate version other=""
  for candidate in "$target" "$(command -v litestream 2>/dev/null || true)"; do
    if [ ! -f "$candidate" ] || [ ! -x "$candidate" ]; then
      continue
    fi
    version="$(litestream_version_of "$candidate")"
    if [ "$version" = "$LITESTREAM_VERSION" ]; then
      say "litestream: present ($LITESTREAM_VERSION)"
      return
    fi
    other="${other:-$candidate is ${version:-of unknown version}}"
  done
  if [ -n "$other" ]; then
    say "litestream: $other; installing the pinned $LITESTREAM_VERSION"
  fi
  local work="$TMP_DIR/litestream" go
  mkdir -p "$work"
  if litestream_download "$work"; then
    place_litestream "$work/litestream"
    say "litestream: installed $target ($LITESTREAM_VERSION, release download)"
    note_litestream_path
    return
  fi
  if go="$(find_go)"; then
    say "litestream: no release download; building $LITESTREAM_VERSION from source with $go install (Go module proxy; about 2 minutes on 2 cores)"
    if litestream_go_install "$work" "$go"; then
      place_litestream "$work/bin/litestream"
      say "litestream: installed $target ($LITESTREAM_VERSION, built with $("$go" env GOVERSION 2>/dev/null || echo go))"
      note_litestream_path
      return
    fi
    printf '%s: go install %s/cmd/litestream@%s failed:\n' "$SCRIPT_NAME" "$LITESTREAM_MODULE" "$LITESTREAM_VERSION" >&2
    tail -n 40 "$work/go.log" >&2 || true
    say "litestream: not installed (the download failed and so did the Go build); replication stays off until it is installed: see docs/backup.md"
    return
  fi
  say "litestream: not installed (no download and no Go); replication stays off until it is installed: see docs/backup.md"
}

build_binary() {
  if [ ! -f "$SRC_DIR/package.json" ] || [ ! -f "$SRC_DIR/cli/main.ts" ]; then
    die "$SRC_DIR does not look like an svc checkout (no package.json / cli/main.ts)"
  fi
  (cd "$SRC_DIR" && bun install --frozen-lockfile) >"$TMP_DIR/build.log" 2>&1 ||
    fail_with_log "bun install --frozen-lockfile" "$TMP_DIR/build.log"
  (cd "$SRC_DIR" && bun run build) >>"$TMP_DIR/build.log" 2>&1 ||
    fail_with_log "bun run build" "$TMP_DIR/build.log"
  [ -x "$SRC_DIR/dist/svc" ] || die "the build did not produce $SRC_DIR/dist/svc"
  say "build: $SRC_DIR/dist/svc"
}

install_binary() {
  local built="$SRC_DIR/dist/svc" target="$SVC_BIN_DIR/svc"
  if [ -f "$target" ] && [ "$(sha256_of "$built")" = "$(sha256_of "$target")" ]; then
    if [ "$(stat -c %a "$target")" != 755 ]; then
      chmod 0755 "$target"
      say "binary: mode fixed $target"
    else
      say "binary: no change"
    fi
    return
  fi
  mkdir -p "$SVC_BIN_DIR"
  # Copy next to the target, then rename: atomic, and safe while the old binary runs.
  install -m 0755 "$built" "$target.new"
  mv -f "$target.new" "$target"
  CHANGED_BINARY=1
  say "binary: installed $target ($("$target" version))"
}

ensure_user() {
  if id -u "$SVC_USER" >/dev/null 2>&1; then
    say "user: no change ($SVC_USER exists)"
    return
  fi
  useradd --system --user-group --home-dir "$SVC_DATA_DIR" --no-create-home \
    --shell /usr/sbin/nologin --comment "svc gateway" "$SVC_USER"
  CREATED_USER=1
  say "user: created $SVC_USER"
}

# Remembers that this script created the user, so --purge removes that user and never
# anyone else's.
mark_user_created() {
  if [ "$CREATED_USER" = 1 ]; then
    printf '%s\n' "$SVC_USER" >"$SVC_CONFIG_DIR/$USER_MARKER"
    chmod 0600 "$SVC_CONFIG_DIR/$USER_MARKER"
  fi
}

# ensure_dir LABEL DIR MODE: the dir exists, owned by $SVC_USER, with MODE.
ensure_dir() {
  local label="$1" dir="$2" mode="$3" group
  group="$(id -gn "$SVC_USER")"
  if [ ! -d "$dir" ]; then
    install -d -m "$mode" -o "$SVC_USER" -g "$group" "$dir"
    say "$label: created $dir"
    return
  fi
  if [ "$(stat -c '%U:%G %a' "$dir")" = "$SVC_USER:$group ${mode#0}" ]; then
    say "$label: no change"
    return
  fi
  chown "$SVC_USER:$group" "$dir"
  chmod "$mode" "$dir"
  say "$label: fixed owner/mode of $dir ($SVC_USER:$group $mode)"
}

# The local replica dir (file:// SVC_REPLICA), private to the service user. svc setup would
# create it too, but only with the setup user's ownership.
ensure_replica_dir() {
  if [ -n "$REPLICA_DIR" ]; then
    ensure_dir "replica dir" "$REPLICA_DIR" 0700
  elif [ "$SVC_REPLICA" = off ]; then
    say "replica dir: none (SVC_REPLICA=off: no replication)"
  else
    say "replica dir: none (remote replica $(replica_label))"
  fi
}

run_setup() {
  local args=(setup --yes --config "$SVC_CONFIG_DIR/svc.toml" --data-dir "$SVC_DATA_DIR" --listen "$SVC_LISTEN"
    --replica "$SVC_REPLICA")
  if [ -n "$SVC_PUBLIC_URL" ]; then
    args+=(--public-url "$SVC_PUBLIC_URL")
  fi
  # svc setup stores only the sha256 and reports "kept" when the token is already the one stored.
  if [ -n "$SVC_ADMIN_TOKEN" ]; then
    args+=(--admin-token "$SVC_ADMIN_TOKEN")
  fi
  if [ -n "$SVC_METRICS_TOKEN" ]; then
    args+=(--metrics-token "$SVC_METRICS_TOKEN")
  fi
  as_user "$SVC_BIN_DIR/svc" "${args[@]}" >"$TMP_DIR/setup.log" 2>&1 || fail_with_log "svc setup" "$TMP_DIR/setup.log"
  local line changed=0
  while IFS= read -r line; do
    case "$line" in
      created* | changed*)
        changed=1
        say "setup: $(printf '%s' "$line" | tr -s ' ')"
        ;;
      "receipt signer address:"*) say "setup: ${line}" ;;
    esac
  done <"$TMP_DIR/setup.log"
  if [ "$changed" = 1 ]; then
    CHANGED_CONFIG=1
  else
    say "setup: no change (config, keys and database kept)"
  fi
}

# The systemd version of this host (0 when there is none), for directives newer systemd adds.
systemd_version() {
  systemctl --version 2>/dev/null | awk 'NR == 1 { print $2 + 0; exit }' || echo 0
}

render_unit() {
  local template="$SRC_DIR/systemd/svc.service" group replica subgroup
  [ -f "$template" ] || die "missing unit template $template"
  # DelegateSubgroup= (per-run sandbox cgroups) exists from systemd 254; older systemd would warn
  # about an unknown key, so the line stays a comment there and sandboxes fall back to rlimits.
  if [ "$(systemd_version)" -ge 254 ]; then
    subgroup="s|^#DelegateSubgroup=|DelegateSubgroup=|"
  else
    subgroup="s|^#DelegateSubgroup=.*||"
  fi
  group="$(id -gn "$SVC_USER")"
  # A file replica is writable for the service ("-": no failure while it is missing); an
  # off or remote one needs no path, so its placeholder goes with the space and "-".
  if [ -n "$REPLICA_DIR" ]; then
    replica="s|@REPLICA_DIR@|$REPLICA_DIR|g"
  else
    replica="s| -@REPLICA_DIR@||g"
  fi
  # check_settings rules out | & \ and @ in these values, so they are safe in sed.
  sed -e "$replica" \
    -e "$subgroup" \
    -e "s|@BIN_DIR@|$SVC_BIN_DIR|g" \
    -e "s|@CONFIG_DIR@|$SVC_CONFIG_DIR|g" \
    -e "s|@DATA_DIR@|$SVC_DATA_DIR|g" \
    -e "s|@USER@|$SVC_USER|g" \
    -e "s|@GROUP@|$group|g" \
    "$template"
}

install_unit() {
  local target="$SVC_UNIT_DIR/svc.service"
  render_unit >"$TMP_DIR/svc.service"
  if grep -q '@[A-Z_]*@' "$TMP_DIR/svc.service"; then
    die "unit template has an unknown placeholder: $(grep -o '@[A-Z_]*@' "$TMP_DIR/svc.service" | head -n 1)"
  fi
  if [ -f "$target" ] && cmp -s "$TMP_DIR/svc.service" "$target"; then
    say "unit: no change"
    return
  fi
  mkdir -p "$SVC_UNIT_DIR"
  install -m 0644 "$TMP_DIR/svc.service" "$target.new"
  mv -f "$target.new" "$target"
  CHANGED_UNIT=1
  say "unit: installed $target"
}

foreground_command() {
  local cmd="$SVC_BIN_DIR/svc serve --config $SVC_CONFIG_DIR/svc.toml"
  if [ "$SVC_USER" = "$(id -un)" ]; then
    printf '%s\n' "$cmd"
  else
    printf 'runuser -u %s -- %s\n' "$SVC_USER" "$cmd"
  fi
}

start_service() {
  if ! systemd_running; then
    say "service: systemd is not running; start svc in the foreground with:"
    say "  $(foreground_command)"
    return
  fi
  if [ "$CHANGED_UNIT" = 1 ]; then
    systemctl daemon-reload
  fi
  local did=""
  if ! systemctl is-enabled --quiet svc 2>/dev/null; then
    systemctl enable --quiet svc
    did="enabled"
  fi
  if ! systemctl is-active --quiet svc; then
    systemctl start svc
    did="${did:+$did, }started"
  elif [ "$CHANGED_BINARY$CHANGED_UNIT$CHANGED_CONFIG" != 000 ]; then
    systemctl restart svc
    did="${did:+$did, }restarted"
  fi
  if [ -n "$did" ]; then
    say "service: $did (systemctl status svc; journalctl -u svc)"
  else
    say "service: no change (enabled and running)"
  fi
}

do_install() {
  ensure_bun
  ensure_bubblewrap
  ensure_libsecp256k1
  ensure_litestream
  build_binary
  install_binary
  ensure_user
  ensure_dir "config dir" "$SVC_CONFIG_DIR" 0750
  mark_user_created
  ensure_dir "data dir" "$SVC_DATA_DIR" 0700
  ensure_replica_dir
  run_setup
  install_unit
  start_service
}

# --- uninstall -----------------------------------------------------------------------

remove_file() {
  local label="$1" file="$2"
  if [ -e "$file" ]; then
    rm -f "$file"
    say "$label: removed $file"
  else
    say "$label: not installed"
  fi
}

# Refuses to purge a directory that is obviously not svc's own.
check_purgeable() {
  case "${1%/}" in
    "" | / | /etc | /var | /var/lib | /usr | /usr/local | /usr/local/bin | /usr/bin | /home | /root | /tmp | /opt | /srv)
      die "refusing to remove $1; set SVC_CONFIG_DIR/SVC_DATA_DIR/SVC_REPLICA to svc's own directories"
      ;;
  esac
}

do_uninstall() {
  local purge="$1" unit="$SVC_UNIT_DIR/svc.service"
  if systemd_running && [ -f "$unit" ]; then
    systemctl disable --now --quiet svc 2>/dev/null || true
    say "service: stopped and disabled"
  fi
  remove_file unit "$unit"
  if systemd_running; then
    systemctl daemon-reload
  fi
  remove_file binary "$SVC_BIN_DIR/svc"

  if [ "$purge" != 1 ]; then
    say "kept: config in $SVC_CONFIG_DIR and data in $SVC_DATA_DIR (remove them with --purge)"
    if [ -n "$REPLICA_DIR" ]; then
      say "kept: replicas in $REPLICA_DIR (--purge removes them too)"
    fi
    return
  fi
  check_purgeable "$SVC_CONFIG_DIR"
  check_purgeable "$SVC_DATA_DIR"
  if [ -n "$REPLICA_DIR" ]; then
    check_purgeable "$REPLICA_DIR"
  fi
  local created_user=""
  if [ -f "$SVC_CONFIG_DIR/$USER_MARKER" ]; then
    created_user="$(head -n 1 "$SVC_CONFIG_DIR/$USER_MARKER")"
  fi
  local dir
  for dir in "$SVC_CONFIG_DIR" "$SVC_DATA_DIR" ${REPLICA_DIR:+"$REPLICA_DIR"}; do
    if [ -d "$dir" ]; then
      rm -rf "$dir"
      say "purge: removed $dir"
    else
      say "purge: $dir not present"
    fi
  done
  if [ -z "$REPLICA_DIR" ] && [ "$SVC_REPLICA" != off ]; then
    say "purge: kept remote replica $(replica_label) (not a local dir)"
  fi
  if [ -n "$created_user" ] && [ "$created_user" = "$SVC_USER" ] && id -u "$SVC_USER" >/dev/null 2>&1 &&
    [ "$(id -u "$SVC_USER")" -ne 0 ]; then
    userdel "$SVC_USER"
    say "purge: removed user $SVC_USER"
  elif id -u "$SVC_USER" >/dev/null 2>&1; then
    say "purge: kept user $SVC_USER (not created by $SCRIPT_NAME)"
  fi
}

# --- main ----------------------------------------------------------------------------

main() {
  local mode=install purge=0 arg
  load_settings
  for arg in "$@"; do
    case "$arg" in
      -h | --help)
        usage
        return 0
        ;;
      --uninstall) mode=uninstall ;;
      --purge)
        mode=uninstall
        purge=1
        ;;
      *)
        printf '%s: unknown option: %s (see --help)\n' "$SCRIPT_NAME" "$arg" >&2
        return 2
        ;;
    esac
  done
  require_root "$@"
  # useradd, userdel and runuser live in sbin, which `su` without `-` leaves off PATH.
  PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
  check_settings
  SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  TMP_DIR="$(mktemp -d)"
  trap 'rm -rf "$TMP_DIR"' EXIT
  if [ "$mode" = uninstall ]; then
    do_uninstall "$purge"
  else
    do_install
  fi
}

main "$@"
