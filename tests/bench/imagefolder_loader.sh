#!/usr/bin/env bash
# The ImageFolder pipeline (read, decode, crop, resize, flip, normalise) against torchvision's
# ImageFolder + DataLoader on the same JPEG folder, the same batch and worker counts, alternating,
# three rounds; prints the best samples/s of each and the ratio ours / torchvision (above 1: ours
# is faster). Without a folder, 4,000 Fashion-MNIST images are exported as 224 px JPEGs first.
# Usage: tests/bench/imagefolder_loader.sh [build-dir] [folder] [size]   (needs python3-torchvision)
set -euo pipefail
cd "$(dirname "$0")/../.."
cli="${1:-build/release}/app/cli/trainbench-cli"
folder="${2:-}"
size="${3:-224}"
batch=64 batches=30
if [[ -z $folder ]]; then
  folder=$(mktemp -d)/fashion-mnist-jpeg
  trap 'rm -rf "$(dirname "$folder")"' EXIT
  "$cli" dataset-export fashion-mnist "$folder" --size "$size" --limit 4000 >/dev/null
fi
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
max() { python3 -c "print(max($1, $2))"; }
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $folder at $size px, batch $batch"
printf "%-8s %-8s %12s %12s %7s\n" workers augment "ours (1/s)" "torch (1/s)" ratio
for augment in "" --augment; do
  for workers in 0 1 2 4; do
    best_ours=0 best_torch=0
    for round in 1 2 3; do
      ours=$("$cli" bench-data --dataset imagefolder --set "data.root=$folder" \
        --set "data.image_size=$size" --set data.norm_stats=imagenet --batch "$batch" \
        --workers "$workers" --batches "$batches" $augment --json | field samples_per_s)
      torch=$(/usr/bin/python3 tests/bench/torch_imagefolder.py "$folder" --size "$size" \
        --batch "$batch" --workers "$workers" --batches "$batches" $augment 2>/dev/null |
        field samples_per_s)
      best_ours=$(max "$best_ours" "$ours")
      best_torch=$(max "$best_torch" "$torch")
    done
    printf "%-8s %-8s %12.0f %12.0f %6.2fx\n" "$workers" "${augment:+yes}" "$best_ours" \
      "$best_torch" "$(python3 -c "print($best_ours / $best_torch)")"
  done
done
