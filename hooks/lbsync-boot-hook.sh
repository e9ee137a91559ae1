#!/bin/sh
# lbsync boot hook: tells scw-lb-sync that this control-plane node just booted, so the load
# balancer's backend pool is reconciled now rather than at the next sweep.
#
# kOps replaces control-plane servers on rolling updates and nothing else sends an event.
# This script POSTs an `instance-replacement` event to the inject function. It never blocks boot:
# every failure is logged (stderr, i.e. the journal under systemd) and it always exits 0.
#
# Two secrets, both read from files (or the environment) at each attempt and handed to curl on its
# standard input, never on its command line (visible to every user in ps):
#   - the inject token, sent as `Authorization: Bearer ...`, checked by the inject function itself;
#   - the platform's token, sent as `X-Auth-Token: ...`, checked by Scaleway in front of a private
#     function: the secret key of an IAM application with FunctionsPrivateAccess (or a function token).
#
# Configuration (environment, or KEY=value lines in $LBSYNC_HOOK_ENV_FILE, default /etc/lbsync/boot-hook.env):
#   INJECT_URL                      the inject function's URL (required)
#   TARGET                          the target name, e.g. the kOps cluster name (required)
#   INJECT_TOKEN_FILE               file holding the inject token (default /etc/lbsync/token); read at each attempt
#   INJECT_TOKEN                    the inject token itself, used only when the file is absent (prefer the file)
#   FUNCTION_TOKEN_FILE             file holding the X-Auth-Token (default /etc/lbsync/function-token)
#   FUNCTION_TOKEN                  the X-Auth-Token itself, used only when the file is absent (prefer the file)
#   LBSYNC_HOOK_ATTEMPTS            attempts before giving up (default 5)
#   LBSYNC_HOOK_BACKOFF_SECONDS     first wait between attempts, doubled each time (default 2)
#   LBSYNC_HOOK_MAX_BACKOFF_SECONDS cap on one wait (default 30)
#   LBSYNC_HOOK_TIMEOUT_SECONDS     bound on one request (default 10)
#   LBSYNC_METADATA_URL             Scaleway metadata (default http://169.254.42.42/conf?format=json)
#
# The event carries no serverIps: the reconcile re-discovers the whole pool from the servers' tags.
# The node's identity goes into the event id (evt-boot-<hostname>-<instance id>-<epoch>), since the
# event schema accepts no other field; hostname and IPs are also logged here.

ENV_FILE=${LBSYNC_HOOK_ENV_FILE:-/etc/lbsync/boot-hook.env}
if [ -r "$ENV_FILE" ]; then
  # shellcheck disable=SC1090
  . "$ENV_FILE"
fi

INJECT_URL=${INJECT_URL:-}
TARGET=${TARGET:-}
TOKEN_FILE=${INJECT_TOKEN_FILE:-/etc/lbsync/token}
FUNCTION_TOKEN_FILE=${FUNCTION_TOKEN_FILE:-/etc/lbsync/function-token}
ATTEMPTS=${LBSYNC_HOOK_ATTEMPTS:-5}
BACKOFF=${LBSYNC_HOOK_BACKOFF_SECONDS:-2}
MAX_BACKOFF=${LBSYNC_HOOK_MAX_BACKOFF_SECONDS:-30}
TIMEOUT=${LBSYNC_HOOK_TIMEOUT_SECONDS:-10}
METADATA_URL=${LBSYNC_METADATA_URL:-http://169.254.42.42/conf?format=json}

log() {
  printf '%s lbsync-boot-hook: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2
}

give_up() {
  log "$* -- giving up; the pool is still reconciled by the next sweep (boot continues)"
  exit 0
}

is_uint() {
  case $1 in '' | *[!0-9]*) return 1 ;; *) return 0 ;; esac
}

# Top-level and nested string fields of a JSON object as path=value lines (no arrays), e.g.
# id=..., hostname=..., public_ip.address=... ; POSIX awk, no jq needed.
json_fields() {
  awk '
    { text = text $0 "\n" }
    END {
      n = length(text); depth = 0; i = 1
      while (i <= n) {
        ch = substr(text, i, 1)
        if (ch == "\"") {
          j = i + 1; str = ""
          while (j <= n) {
            d = substr(text, j, 1)
            if (d == "\\") { str = str substr(text, j, 2); j += 2; continue }
            if (d == "\"") break
            str = str d; j++
          }
          i = j + 1
          k = i
          while (k <= n && substr(text, k, 1) ~ /[ \t\r\n]/) k++
          if (substr(text, k, 1) == ":") { key[depth] = str; i = k + 1; continue }
          inside_array = 0
          for (l = 1; l <= depth; l++) if (arr[l]) inside_array = 1
          if (!inside_array && depth >= 1) {
            path = key[1]
            for (l = 2; l <= depth; l++) path = path "." key[l]
            print path "=" str
          }
          continue
        }
        if (ch == "{") { depth++; arr[depth] = 0; key[depth] = "" }
        else if (ch == "[") { depth++; arr[depth] = 1; key[depth] = "" }
        else if (ch == "}" || ch == "]") { depth-- }
        i++
      }
    }'
}

field() {
  printf '%s\n' "$1" | sed -n "s/^$2=//p" | head -n 1
}

# Letters, digits, ".", "_", ":" and "-" only (the event id alphabet); others become "-".
sanitize() {
  printf '%s' "$1" | tr -c 'A-Za-z0-9._:-' '-'
}

[ -n "$INJECT_URL" ] || give_up "INJECT_URL is not set (set it in $ENV_FILE)"
[ -n "$TARGET" ] || give_up "TARGET is not set (set it in $ENV_FILE)"
case $TARGET in
  *[!A-Za-z0-9._-]*) give_up "TARGET \"$TARGET\" is not a valid target name (letters, digits, \".\", \"_\", \"-\")" ;;
esac
is_uint "$ATTEMPTS" && [ "$ATTEMPTS" -ge 1 ] || ATTEMPTS=5
is_uint "$BACKOFF" || BACKOFF=2
is_uint "$MAX_BACKOFF" || MAX_BACKOFF=30
is_uint "$TIMEOUT" && [ "$TIMEOUT" -ge 1 ] || TIMEOUT=10
command -v curl >/dev/null 2>&1 || give_up "curl is not installed"

# Identity: the metadata API when reachable, else the hostname alone.
metadata=$(curl -fsS --max-time 3 "$METADATA_URL" 2>/dev/null || true)
instance_id=""
public_ip=""
meta_host=""
if [ -n "$metadata" ]; then
  fields=$(printf '%s' "$metadata" | json_fields)
  instance_id=$(field "$fields" id)
  meta_host=$(field "$fields" hostname)
  public_ip=$(field "$fields" 'public_ip\.address')
fi
host=${meta_host:-$(uname -n 2>/dev/null || echo unknown)}
epoch=$(date -u +%s)
host_part=$(sanitize "$host" | cut -c1-64)
id_part=""
[ -n "$instance_id" ] && id_part="-$(sanitize "$instance_id" | cut -c1-36)"
event_id="evt-boot-${host_part}${id_part}-${epoch}"
occurred_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
body=$(printf '{"version":1,"id":"%s","source":"instance-replacement","target":"%s","occurredAt":"%s"}' "$event_id" "$TARGET" "$occurred_at")

if [ -n "$metadata" ]; then
  log "node $host (instance ${instance_id:-unknown}, public IP ${public_ip:-none}) booted; event $event_id for target $TARGET"
else
  log "node $host booted (metadata API unreachable, identity from the hostname); event $event_id for target $TARGET"
fi

# read_secret FILE FALLBACK: the file's content without whitespace, else the fallback value.
read_secret() {
  if [ -r "$1" ]; then
    tr -d ' \t\r\n' < "$1"
  else
    printf '%s' "$2"
  fi
}

# A token goes into a curl config line between double quotes: refuse what would break out of them.
config_safe() {
  case $1 in *'"'* | *'\'*) return 1 ;; *) return 0 ;; esac
}

attempt=1
wait_s=$BACKOFF
last=""
told_no_function_token=""
while [ "$attempt" -le "$ATTEMPTS" ]; do
  token=$(read_secret "$TOKEN_FILE" "${INJECT_TOKEN:-}")
  function_token=$(read_secret "$FUNCTION_TOKEN_FILE" "${FUNCTION_TOKEN:-}")
  if [ -z "$function_token" ] && [ -z "$told_no_function_token" ]; then
    log "no X-Auth-Token ($FUNCTION_TOKEN_FILE is missing or empty and FUNCTION_TOKEN is not set): a private inject function answers 403"
    told_no_function_token=yes
  fi
  if [ -z "$token" ]; then
    last="no token ($TOKEN_FILE is missing or empty and INJECT_TOKEN is not set)"
  elif ! config_safe "$token" || ! config_safe "$function_token"; then
    last="a token holds a double quote or a backslash; check $TOKEN_FILE and $FUNCTION_TOKEN_FILE"
  else
    # The tokens go to curl on stdin (config lines), never on its command line (visible in ps).
    answer=$( {
      printf 'header = "Authorization: Bearer %s"\n' "$token"
      [ -n "$function_token" ] && printf 'header = "X-Auth-Token: %s"\n' "$function_token"
    } | curl -sS --config - --max-time "$TIMEOUT" -X POST -H 'Content-Type: application/json' \
        --data-binary "$body" -w '\n%{http_code}' "$INJECT_URL" 2>&1)
    status=$(printf '%s\n' "$answer" | tail -n 1)
    reply=$(printf '%s\n' "$answer" | sed '$d' | tr '\n' ' ' | cut -c1-300)
    case $status in
      2??)
        log "attempt $attempt/$ATTEMPTS: accepted ($status) $reply"
        exit 0
        ;;
      400 | 413 | 415)
        give_up "attempt $attempt/$ATTEMPTS: the inject function rejected the event ($status): $reply"
        ;;
      401)
        last="unauthorized (401): the token in $TOKEN_FILE is not the inject function's INJECT_TOKEN"
        ;;
      403)
        last="forbidden (403): the platform refused the call; a private function needs X-Auth-Token (an IAM key with FunctionsPrivateAccess, in $FUNCTION_TOKEN_FILE) besides Authorization: Bearer (the inject token, in $TOKEN_FILE)"
        ;;
      000 | '')
        last="no answer from $INJECT_URL: $reply"
        ;;
      *)
        last="HTTP $status: $reply"
        ;;
    esac
  fi
  if [ "$attempt" -lt "$ATTEMPTS" ]; then
    log "attempt $attempt/$ATTEMPTS failed: $last; retrying in ${wait_s}s"
    sleep "$wait_s"
    wait_s=$((wait_s * 2))
    [ "$wait_s" -gt "$MAX_BACKOFF" ] && wait_s=$MAX_BACKOFF
  fi
  attempt=$((attempt + 1))
done
give_up "attempt $ATTEMPTS/$ATTEMPTS failed: $last; no more attempts after $ATTEMPTS"
