#!/usr/bin/env bash
# Seeds the fuzz corpora from the repository's test data (and the shared
# fixtures when ../../shared exists).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/load corpus/rule corpus/projection
n=0
for f in ../tests/data/conformance/*/conversations/*/events.json ../tests/data/bad/*/events.json; do
  n=$((n + 1)); cp "$f" "corpus/load/seed-$n.json"
done
if [ -d ../../shared/fixtures/jp-conversations ]; then
  for f in ../../shared/fixtures/jp-conversations/*/events.json; do
    n=$((n + 1)); cp "$f" "corpus/load/shared-$n.json"
  done
fi
i=0
for r in 's:..-3' 'r+t:2..' 't=sreq:2..6' 'reasoning+tools=omit:..' 'r:-3' 's:5' 't=strip,over=4k:..' 'r:last..' 's:0..3' 'x' 't=zap' 'r+r'; do
  i=$((i + 1)); printf '%s' "$r" > "corpus/rule/seed-$i"
done
echo "seeded: $n load inputs, $i rules"
