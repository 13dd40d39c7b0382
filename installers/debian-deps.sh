#!/usr/bin/env bash
# Installs TrainBench's build and test dependencies from Debian 12 packages. Idempotent: apt is
# only called when a package is missing. CUDA 13 + cuDNN 9 are not Debian packages; when
# /usr/local/cuda holds them the CUDA plugin is built too.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  clang libclang-rt-14-dev libomp-dev # libFuzzer targets (clang builds the engine with OpenMP)
  qt6-base-dev libqcustomplot-dev     # the window and the Qt Test suites
  qt6-svg-dev                         # SVG export of comparisons
  fonts-dejavu-core                   # text in the window and its screenshots
  libdnnl-dev ocl-icd-opencl-dev      # CPU backend: oneDNN (on OpenMP); its CMake config wants OpenCL
  libopenblas-openmp-dev              # tests/bench: the sgemm the dense layers are measured against
  libsqlite3-dev sqlite3 nlohmann-json3-dev zlib1g-dev libpng-dev libjpeg-dev
  libzip-dev                          # PyTorch checkpoints (.pth) are zip archives
  libyaml-cpp-dev                     # detection sets: Ultralytics' data.yaml
  libbenchmark-dev                    # kernel benchmarks
  libdlib-dev                         # parameter importance: dlib's random forest regression
  libonnx-dev libprotobuf-dev         # ONNX export: the ONNX protobuf messages (onnx/onnx_pb.h)
  libopenmpi-dev openmpi-bin          # data-parallel training across processes (mpirun)
  dataset-fashion-mnist               # the default dataset
  fortunes                            # dataset=text's built-in corpus (2.5 MB of quotations)
  xvfb xauth                          # screenshots of the window
  libxcb1-dev                         # the window's X events (a window destroyed from outside)
  desktop-file-utils appstream        # the packages' desktop entry and metadata, validated
  dpkg-dev file                       # the packages' dependencies: CPack runs dpkg-shlibdeps on
                                      # what file(1) says is a binary
  xz-utils                            # the GPU check's bundle (tests/gpu/make-bundle.sh)
)
if [[ "${TB_WITH_TORCH:-0}" == 1 ]]; then
  packages+=(python3-torch)           # the PyTorch reference: numerics tests and tests/bench
  packages+=(python3-torchvision)     # torchvision's models: pretrained weights and their numerics
  packages+=(python3-onnx)            # exported models: onnx.checker with full checking
  packages+=(python3-opencv)          # exported models: OpenCV's DNN module as a second runtime
  # exported models: ONNX Runtime's Node package, fetched below from the npm registry and run
  # by Debian's Node (npm itself would bring some 500 more packages)
  packages+=(nodejs curl ca-certificates)
fi

missing=()
for p in "${packages[@]}"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ONNX Runtime for the export tests: the npm registry's onnxruntime-node, which ships the CPU
# library, and onnxruntime-common, the one package it loads, unpacked as npm lays them out (its
# install script, which only fetches GPU libraries from outside the registry, is not run), each
# checked against its pinned SHA-512. Without the registry (offline, or a proxy curl does not
# trust) the tests that need it skip, saying why; nothing else depends on it.
ort_prefix=/usr/local/lib/trainbench-tests
ort_packages=(
  "onnxruntime-node 1.20.1 762fc8e070d7470f852e0abe4f21e64040ddddc129f62145666d2be2e27559dedbfd6135557b4a5a8f327a67b1df8edce86345ff73eff3a65f3e1216c4e46bd3"
  "onnxruntime-common 1.20.1 622534b342336180be816bea0f51f32dce3a0eed6c5e94a2c3329beb73c008826be8b7cbdbb56c5d25d0bedebc1330f75740f905cd2fc894e398cc69d329508b"
)
fetch_npm_package() { # NAME VERSION SHA512: into $ort_prefix/node_modules/NAME
  local name=$1 version=$2 sha=$3 tarball
  tarball=$(mktemp)
  curl -sSfL --retry 2 -o "$tarball" \
      "https://registry.npmjs.org/$name/-/$name-$version.tgz" &&
    echo "$sha  $tarball" | sha512sum -c --quiet - &&
    mkdir -p "$ort_prefix/node_modules/$name" &&
    tar -xzf "$tarball" -C "$ort_prefix/node_modules/$name" --strip-components=1
  local status=$?
  rm -f "$tarball"
  return $status
}
if [[ "${TB_WITH_TORCH:-0}" == 1 && ! -f $ort_prefix/node_modules/onnxruntime-node/package.json ]]; then
  echo "installing: onnxruntime-node 1.20.1 (npm registry) into $ort_prefix"
  for entry in "${ort_packages[@]}"; do
    # shellcheck disable=SC2086 # the entry is three words
    fetch_npm_package $entry || {
      rm -rf "$ort_prefix/node_modules"
      echo "warning: onnxruntime-node could not be fetched from the npm registry;" \
        "the ONNX Runtime checks of tst_export_onnx will skip" >&2
      break
    }
  done
fi
