#!/usr/bin/env bash
# Installs everything softalign needs on Debian bookworm (run as root; idempotent),
# then creates the project venv (.venv) for the Python packages Debian lacks.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBS=(
  build-essential cmake pkg-config ninja-build
  python3 python3-venv python3-pip python3-torch libopenblas0-pthread
  python3-sentencepiece sentencepiece python3-numpy python3-yaml python3-tqdm
  python3-matplotlib python3-pytest
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev libfp16-dev libflatbuffers-dev flatbuffers-compiler
  libsentencepiece-dev doctest-dev nlohmann-json3-dev libcli11-dev
  libvulkan-dev glslc mesa-vulkan-drivers
)

missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Python packages Debian lacks, in a venv that still sees Debian's torch.
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
if ! .venv/bin/python -c "import sacrebleu, onnx, onnxruntime, safetensors" 2>/dev/null; then
  .venv/bin/python -m pip install -q --disable-pip-version-check \
    "sacrebleu==2.4.3" "onnx==1.16.2" "onnxruntime==1.19.2" "safetensors==0.4.5"
fi
echo "setup: ok"
