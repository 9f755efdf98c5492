#!/usr/bin/env bash
# Fetches the pinned public benchmark corpora into one cache folder (outside any repo) and prints
# their roots (name=root).
# Usage: bench/fetch-corpora.sh [CACHE_DIR]   (default: $IPUARO_CORPORA or ~/.cache/ipuaro-corpora)
#   three@0.160.0 (npm, JavaScript, ~950 files), rxjs@7.8.1 (npm, TypeScript sources under src/),
#   django==5.0.6 (PyPI sdist, ~2,800 Python files). Checksums are verified.
set -euo pipefail
dir=${1:-${IPUARO_CORPORA:-$HOME/.cache/ipuaro-corpora}}
mkdir -p "$dir"; cd "$dir"
[ -f three-0.160.0.tgz ] || npm pack -q three@0.160.0 >/dev/null
[ -f rxjs-7.8.1.tgz ] || npm pack -q rxjs@7.8.1 >/dev/null
[ -f Django-5.0.6.tar.gz ] || python3 -m pip download -q --no-deps --no-binary :all: django==5.0.6 -d . >/dev/null
sha256sum -c --quiet - <<'SUMS'
1ee2f935c4f555814b388e87b5ef78a44856bd2e9d0feb88643a6e193fb42856  three-0.160.0.tgz
c532167725ab7d085123209156c93cef22f2479cb9c8527060f1cd903aa9d149  rxjs-7.8.1.tgz
ff1b61005004e476e0aeea47c7f79b85864c70124030e95146315396f1e7951f  Django-5.0.6.tar.gz
SUMS
[ -d three/package ] || { mkdir -p three && tar xzf three-0.160.0.tgz -C three; }
[ -d rxjs/package ] || { mkdir -p rxjs && tar xzf rxjs-7.8.1.tgz -C rxjs; }
[ -d Django-5.0.6 ] || tar xzf Django-5.0.6.tar.gz
echo "three=$dir/three/package"
echo "rxjs=$dir/rxjs/package"
echo "django=$dir/Django-5.0.6"
