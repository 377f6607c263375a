#!/usr/bin/env bash
# Regenerates the screenshots: runs the inspector on the demo in tmux, drives
# it with real key presses, captures the screen with its colours, and renders
# each capture to PNG (screenshots/ansi2png.py, Pillow + DejaVu Sans Mono).
#
#     screenshots/make.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import PIL' 2>/dev/null || pip install --quiet pillow
cargo build --release --quiet
bin=target/release/jp-inspect
session=jp-inspect-shots
cols=170
rows=46
tmux kill-session -t "$session" 2>/dev/null || true
tmux new-session -d -s "$session" -x "$cols" -y "$rows"
tmux send-keys -t "$session" "TERM=xterm-256color $bin --demo" Enter
sleep 2

shot() {
  tmux capture-pane -t "$session" -p -e -J > "/tmp/$1.ans"
  python3 screenshots/ansi2png.py "/tmp/$1.ans" "screenshots/$1.png"
  echo "screenshots/$1.png"
}

# A compaction's detail: what it costs with the prompt cache, what it hid.
tmux send-keys -t "$session" Tab Tab Enter; sleep 1
shot compaction
tmux send-keys -t "$session" Escape; sleep 0.5
tmux send-keys -t "$session" Tab; sleep 0.5

# Main view, a few turns in, on the raw pane.
tmux send-keys -t "$session" n n n n j j j j; sleep 0.5
shot main

# Preview what the staged policy would append now.
tmux send-keys -t "$session" p; sleep 0.3
tmux send-keys -t "$session" C-u auto Enter; sleep 2
shot preview

# The simulation view.
tmux send-keys -t "$session" Escape; sleep 1
tmux send-keys -t "$session" s; sleep 4
shot simulation

# Time travel: what the request before compaction #2 was sent.
tmux send-keys -t "$session" Escape; sleep 1
tmux send-keys -t "$session" t; sleep 2
for _ in $(seq 40); do tmux send-keys -t "$session" '['; done; sleep 2
shot asof

# Where the tokens are.
tmux send-keys -t "$session" Escape; sleep 1
tmux send-keys -t "$session" L; sleep 1
shot largest

# Undo: apply a preview, then take it back.
tmux send-keys -t "$session" Escape; sleep 0.5
tmux send-keys -t "$session" p; sleep 0.3
tmux send-keys -t "$session" C-u r+t:10..12 Enter; sleep 1
tmux send-keys -t "$session" a; sleep 1
tmux send-keys -t "$session" u; sleep 1
shot undo

tmux send-keys -t "$session" q
sleep 0.5

# Headless: what the demo session cost, request by request, and what its
# compactions hid.
text() {
  local name=$1; shift
  { "$bin" "$@" 2>/dev/null | head -48; } > "/tmp/$name.ans"
  python3 screenshots/ansi2png.py "/tmp/$name.ans" "screenshots/$name.png"
  echo "screenshots/$name.png"
}
text history-cost history --demo
text lost lost --demo
tmux kill-session -t "$session" 2>/dev/null || true

# The picker, on a workspace of the demo and the shared fixtures.
ws=$(mktemp -d)
mkdir -p "$ws/.jp/conversations"
cp -r assets/demo/* "$ws/.jp/conversations/"
if [ -d ../shared/fixtures/jp-conversations ]; then
  cp -r ../shared/fixtures/jp-conversations/* "$ws/.jp/conversations/"
fi
tmux new-session -d -s "$session" -x "$cols" -y 24
tmux send-keys -t "$session" "cd $ws && TERM=xterm-256color JP_USER_DATA_DIR=$ws/none $PWD/$bin" Enter
sleep 3
shot picker
tmux send-keys -t "$session" q
sleep 0.5

tmux kill-session -t "$session" 2>/dev/null || true
rm -rf "$ws"

# The charts as files: SVG straight from the commands, and a PNG of each as
# resvg renders it (resvg-py), to look at without a browser.
$bin history --demo --svg screenshots/history.svg > /dev/null
$bin simulate --demo --windows 64k,200k --svg screenshots/simulate.svg > /dev/null
python3 -c 'import resvg_py' 2>/dev/null || pip install --quiet resvg-py
for chart in history simulate; do
  python3 -c "import resvg_py, sys; open(sys.argv[2], 'wb').write(bytes(resvg_py.svg_to_bytes(svg_path=sys.argv[1])))" \
    "screenshots/$chart.svg" "screenshots/$chart-svg.png"
  echo "screenshots/$chart.svg"
done

# The shareable report as headless Chromium renders it (Debian's
# `chromium`): the page a reviewer is handed.
report_dir=$(mktemp -d)
$bin report --demo --simulate --windows 64k,200k -o "$report_dir/report.html" 2> /dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1800 \
  --screenshot=screenshots/report.png "file://$report_dir/report.html" 2> /dev/null
rm -rf "$report_dir"
echo screenshots/report.png
