#!/usr/bin/env bash
# init_memory.sh: set up vm-memory-oracle on this machine for the user who runs it.
#
#   scripts/init_memory.sh [DATA_DIR] [--openclaw[=STATE_DIR]] [--install-cron]
#
# Creates the bundle's virtual environment (on the entrypoint's first run), then the data
# directory DATA_DIR (default: $MEMORY_ORACLE_DATA_PATH, else /data/memory) with
# config.yaml, knowledge-graph/canary-facts.json and MEMORY.md, leaving alone whatever is
# there already. With --openclaw, connects the memory to OpenClaw: sets openclaw_state_dir
# to STATE_DIR, else $OPENCLAW_STATE_DIR, else ~/.openclaw (summarize then learns from every
# agent's conversations, consolidate writes each workspace's MEMORY.md). With
# --install-cron, adds the five schedules of crontab.example to the user's crontab (summarize
# of what is new every hour, consolidate nightly, a nightly backup into DATA_DIR-backups/
# keeping the newest backup_keep), each once: a second run adds nothing and no other line
# is touched. Needs no root; CRONTAB
# names another crontab(1) command if needed.
set -euo pipefail

usage() {
  sed -n '3p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
}

script="$(readlink -f "${BASH_SOURCE[0]}")"
bundle="$(cd "$(dirname "$script")/.." && pwd)"
data=""
install_cron=0
openclaw=""
for argument in "$@"; do
  case "$argument" in
    --install-cron) install_cron=1 ;;
    --openclaw) openclaw="${OPENCLAW_STATE_DIR:-$HOME/.openclaw}" ;;
    --openclaw=*)
      openclaw="${argument#--openclaw=}"
      if [ -z "$openclaw" ]; then
        echo "Error: --openclaw= names no directory" >&2; exit 2
      fi ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "Error: unknown option $argument" >&2; usage; exit 2 ;;
    *)
      if [ -n "$data" ]; then
        echo "Error: one data directory at most, got $data and $argument" >&2; exit 2
      fi
      data="$argument" ;;
  esac
done
data="${data:-${MEMORY_ORACLE_DATA_PATH:-/data/memory}}"
data="$(realpath -m -- "$data")"   # cron runs from another directory: make it absolute

"$bundle/scripts/vm-memory-oracle" --data-path "$data" --action init

if [ -n "$openclaw" ]; then
  openclaw="$(realpath -m -- "$openclaw")"
  current="$("$bundle/scripts/vm-memory-oracle" --data-path "$data" --json --action config \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["settings"]["openclaw_state_dir"] or "")')"
  if [ "$current" = "$openclaw" ]; then
    echo "Already connected to OpenClaw at $openclaw (openclaw_state_dir in $data/config.yaml)"
  else
    "$bundle/scripts/vm-memory-oracle" --data-path "$data" --action config \
      --set "openclaw_state_dir=$openclaw" >/dev/null
    echo "Connected to OpenClaw at $openclaw (openclaw_state_dir in $data/config.yaml)"
  fi
  if [ ! -d "$openclaw" ]; then
    echo "Warning: $openclaw does not exist yet; the memory reads it once OpenClaw has run" >&2
  fi
fi

if [ "$install_cron" -eq 0 ]; then
  exit 0
fi

crontab_command="${CRONTAB:-crontab}"
if ! command -v "$crontab_command" >/dev/null 2>&1; then
  echo "Error: $crontab_command not found; install cron, or add the lines of" \
       "$bundle/crontab.example to your scheduler by hand" >&2
  exit 1
fi
for path in "$bundle" "$data"; do
  case "$path" in
    *"'"*|*%*) echo "Error: $path: a path with ' or % cannot go in a crontab line" >&2; exit 2 ;;
  esac
done

entrypoint="'$bundle/scripts/vm-memory-oracle' --data-path '$data' --actor cron"
schedules=(
  "15 * * * * $entrypoint --action summarize --all"
  "30 0 * * * $entrypoint --action consolidate"
  "0 */6 * * * $entrypoint --action health-check"
  "0 3 * * 0 $entrypoint --action quality-probe"
  "45 1 * * * $entrypoint --action backup --to '$data-backups'"
)

# The table as it is; "no crontab for <user>" is an empty one, any other failure stops us
# before we could write a table that lost the user's lines.
errors="$(mktemp)"
trap 'rm -f "$errors"' EXIT
if ! current="$("$crontab_command" -l 2>"$errors")"; then
  if ! grep -q "no crontab" "$errors"; then
    echo "Error: $crontab_command -l failed: $(head -n 1 "$errors")" >&2
    exit 1
  fi
  current=""
fi

added=()
for line in "${schedules[@]}"; do
  if ! grep -qxF -- "$line" <<<"$current"; then
    added+=("$line")
  fi
done
if [ "${#added[@]}" -eq 0 ]; then
  echo "The crontab already has the five vm-memory-oracle schedules for $data."
  exit 0
fi
# The nightly backup's directory, beside the data directory (a backup inside it is refused).
mkdir -p -m 700 -- "$data-backups"
{
  if [ -n "$current" ]; then printf '%s\n' "$current"; fi
  printf '%s\n' "${added[@]}"
} | "$crontab_command" -
echo "Added ${#added[@]} schedule(s) to the crontab for $data:"
printf '  %s\n' "${added[@]}"
