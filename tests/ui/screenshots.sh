#!/usr/bin/env bash
# Regenerates the screenshots of every view of the window (first launch, a trained run's charts,
# the hardware panel, an invalid field, an out-of-memory failure, a concept card) at 1280x800 and
# 1920x1080 in the light and dark palettes, under a real X server (xvfb-run).
#   tests/ui/screenshots.sh [BUILD_DIR] [OUT_DIR]     (defaults: build/ci, /tmp/tb-shots)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/ci}
out=${2:-/tmp/tb-shots}
cmake --build "$build" -j2 --target tb_windowshots tb_chartshot >/dev/null
mkdir -p "$out"
TB_SHOTS_DIR=$out QTEST_FUNCTION_TIMEOUT=900000 xvfb-run -a -s "-screen 0 1920x1080x24" "$build/tests/ui/tb_windowshots"
if [[ -x "$build/tests/ui/tb_chartshot" ]]; then
  xvfb-run -a -s "-screen 0 1920x1080x24" "$build/tests/ui/tb_chartshot" "$out/charts"
fi
ls "$out"/*.png >/dev/null
# The guides' and the README's screenshots (resources/docs/images/): the light palette at
# 1280x800, copied under stable names; the AppStream metadata points at window-training.png.
docs=resources/docs/images
mkdir -p "$docs"
for pair in trained:window-training first-launch:first-launch hardware:hardware \
    invalid-field:invalid-field out-of-memory:out-of-memory runs-table:runs-table \
    runs-compare:runs-compare runs-grouped:runs-grouped experiment:experiment \
    predictions:predictions lr-finder:lr-finder lesson:lesson data-parallel:data-parallel \
    help-search:help finetune:fine-tuning profile:profile \
    profile-compare:profile-compare llm-memory:llm-memory llm-memory-training:llm-memory-training \
    detection-predictions:detection; do
  cp "$out/${pair%%:*}-1280x800-light.png" "$docs/${pair##*:}.png"
done
echo "copied the guides' screenshots to $docs"
