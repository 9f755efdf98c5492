#!/usr/bin/env bash
# Fetches the pinned TypeScript corpora of issue 15 (parse errors, reference precision) and the
# `typescript` compiler used as the judge, into a cache folder outside any repo; prints name=root.
# Usage: bench/fetch-ts-corpora.sh [CACHE_DIR]  (default: $IPUARO_CORPORA or ~/.cache/ipuaro-corpora)
#   effect@3.12.0 (variance annotations throughout), @tanstack/query-core@5.62.0,
#   type-fest@4.30.0, zod@3.24.1 (.d.ts), typescript@5.7.2 (the judge). Checksums are verified.
set -euo pipefail
dir=${1:-${IPUARO_CORPORA:-$HOME/.cache/ipuaro-corpora}}/ts15
mkdir -p "$dir"; cd "$dir"
for spec in effect@3.12.0 @tanstack/query-core@5.62.0 type-fest@4.30.0 zod@3.24.1 typescript@5.7.2; do
  tgz=$(echo "${spec#@}" | tr '/' '-' | sed 's/@/-/').tgz
  [ -f "$tgz" ] || npm pack -q "$spec" >/dev/null 2>&1
done
sha256sum -c --quiet - <<'SUMS'
ce032d0785e27a0ee32dbf75561da4cc1b946c65c79cb4ca0b9c00ef093ec1cb  effect-3.12.0.tgz
b658063e556986f2544ddf9a9736bea86072c8bc61e6ef42cc67ce3d4b14466f  tanstack-query-core-5.62.0.tgz
bce658d4d39b30b619970938bf7ff1b0554d3d2124194b6dbd0e10086dd56417  zod-3.24.1.tgz
6826f763112d55de0093fd94a4257cabadf1f40b387757e7c68485fc971e886b  typescript-5.7.2.tgz
850862eb8fd471641c85281317aa83f6e5f0ccce5a6fdb773536b779f8e68383  type-fest-4.30.0.tgz
SUMS
for tgz in effect-3.12.0 tanstack-query-core-5.62.0 type-fest-4.30.0 zod-3.24.1 typescript-5.7.2; do
  [ -d "$tgz/package" ] || { mkdir -p "$tgz" && tar xzf "$tgz.tgz" -C "$tgz"; }
done
echo "effect=$dir/effect-3.12.0/package"
echo "query-core=$dir/tanstack-query-core-5.62.0/package"
echo "type-fest=$dir/type-fest-4.30.0/package"
echo "zod=$dir/zod-3.24.1/package"
echo "typescript=$dir/typescript-5.7.2/package"
