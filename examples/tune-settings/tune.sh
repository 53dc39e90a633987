#!/bin/sh
# Sweeps Baton's settings over your agent's session files and prints the cost / retention
# frontier, where the defaults sit on it, and the createBaton options it recommends.
#
#   examples/tune-settings/tune.sh --window 32k ~/.claude/projects/my-app/*.jsonl
#   examples/tune-settings/tune.sh --window 32k --grid compactAt=0.8,0.9 targetAt=0.3,0.5 a.json b.json
#
# Run from the repository root after `pnpm run build` (an installed @baton/cli: `npx baton tune`).
# With no files, it tunes the five transcripts of ../shared/corpus, the repository's corpus.
set -eu
here=$(dirname "$0")
bin="$here/../../packages/cli/bin/baton.js"
if [ "$#" -eq 0 ]; then
  corpus="$here/../../../shared/corpus/transcripts"
  [ -d "$corpus" ] || { echo "tune.sh: give session files (no corpus at $corpus)" >&2; exit 2; }
  set -- --window 32k "$corpus"/*.json
fi
# The repository's own Node 22 (a devDependency) when the system's is older.
node="$here/../../node_modules/.bin/node"
[ -x "$node" ] || node=node
exec "$node" "$bin" tune "$@"
