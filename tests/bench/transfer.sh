#!/usr/bin/env bash
# Transfer, measured: does a network pretrained on some classes learn others from few images
# better than one trained from scratch? Fashion-MNIST is split by class: set A (T-shirt/top,
# trouser, pullover, dress, coat, sandal; 2,000 images each) pretrains fmnist-cnn; set B (shirt,
# sneaker, bag, ankle boot) has only `per_class` images a class, half of them held out for
# validation. On B the same steps train three ways: from scratch, from A's weights with
# finetune.freeze=backbone (only the new 4-class head learns) and from A's weights with every
# layer training. Each is run for three seeds; prints each one's final validation accuracy and
# the mean. Every run normalises with its own set's statistics (data.norm_stats=dataset).
# Usage: tests/bench/transfer.sh [build-dir] [per_class] [epochs]
set -euo pipefail
cd "$(dirname "$0")/../.."
cli="$PWD/${1:-build/release}/app/cli/trainbench-cli"
per_class="${2:-100}"
epochs="${3:-10}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
field() { python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])$1)"; }

"$cli" dataset-export fashion-mnist "$work/all" --format png --limit 20000 > /dev/null
mkdir "$work/a" "$work/b"
for c in T-shirt_top Trouser Pullover Dress Coat Sandal; do mv "$work/all/$c" "$work/a/"; done
for c in Shirt Sneaker Bag "Ankle boot"; do
  mkdir "$work/b/$c"
  mapfile -t files < <(find "$work/all/$c" -name '*.png' | sort)
  mv -t "$work/b/$c" "${files[@]:0:2 * per_class}"
done

common=(--no-db --quiet --json --set dataset=imagefolder --set data.image_size=28
        --set data.norm_stats=dataset
        --set model=fmnist-cnn --set num_workers=2 --set batch_size=32)
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads"
pretrained=$("$cli" train "${common[@]}" --set data.root="$work/a" --set max_epochs=2 \
  --set checkpoint_dir="$work/ckpt-a")
echo "pretrained on A (6 classes, 12,000 images, 2 epochs): val acc $(field "['test_acc']" <<< "$pretrained")"
weights=$(field "['checkpoint']" <<< "$pretrained")

printf "%-22s %8s %8s %8s %8s\n" "on B ($per_class/class)" seed1 seed2 seed3 mean
for arm in scratch backbone full; do
  case $arm in
    scratch) extra=() ;;
    backbone) extra=(--set model.pretrained="$weights" --set finetune.freeze=backbone) ;;
    full) extra=(--set model.pretrained="$weights") ;;
  esac
  row=$(printf "%-22s" "$arm") sum=0
  for seed in 1 2 3; do
    r=$("$cli" train "${common[@]}" "${extra[@]}" --set data.root="$work/b" \
      --set data.val_fraction=0.5 --set max_epochs="$epochs" --set seed="$seed" \
      --set checkpoint_dir="$work/ckpt-$arm-$seed")
    acc=$(field "['test_acc']" <<< "$r")
    row+=$(printf " %7.1f%%" "$(python3 -c "print(100 * $acc)")")
    sum=$(python3 -c "print($sum + $acc)")
  done
  echo "$row $(printf "%7.1f%%" "$(python3 -c "print(100 * $sum / 3)")")"
done
