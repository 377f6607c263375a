#!/usr/bin/env bash
# Seeds the fuzz corpora from the repository's test data (and the shared
# fixtures when ../../shared exists).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/load corpus/rule corpus/projection corpus/config
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
# Config seeds: a leading byte picks the format (0 toml, 1 json, 2 json5, 3 yaml).
c=0
seed_config() { c=$((c + 1)); { printf "\\x$1"; printf '%s' "$2"; } > "corpus/config/seed-$c"; }
seed_config 00 $'[conversation.compaction.auto]\nmode = "staged"\nsoft_ratio = 0.6\n'
seed_config 00 $'extends = ["loop/**/*.toml", {path = "loop/a/*.json", position = "after"}]\n'
seed_config 01 '{"conversation": {"compaction": {"rules": {"value": [{"keep_first": "1"}], "strategy": "replace"}}}}'
seed_config 02 '{extends: ["loop/**/x"], conversation: {compaction: {auto: {enabled: true}}}}'
seed_config 03 $'conversation:\n  compaction:\n    auto: {mode: single, trigger_ratio: 0.75}\n'
echo "seeded: $n load inputs, $i rules, $c configs"
