#!/usr/bin/env bash
# Fetches one real corpus per language family read from per-language queries (issue 15), by
# pinned version from Debian's packages and PyPI, into a cache folder outside any repo; prints
# name=root. Usage: bench/fetch-lang-corpora.sh [CACHE_DIR]
#   go: cobra 1.6.1 (golang-github-spf13-cobra-dev)   rust: regex-syntax 0.6.27 (librust-…-dev)
#   java: OpenJDK 17 java.util (openjdk-17-source)     c: psutil 6.1.1 sdist (PyPI)
#   cpp: googletest 1.12.1 (googletest)                 ruby: rack 2.2.22 (ruby-rack)
# Checksums are verified. Needs apt-get (Debian) and dpkg-deb.
set -euo pipefail
dir=${1:-${IPUARO_CORPORA:-$HOME/.cache/ipuaro-corpora}}/langs15
mkdir -p "$dir"; cd "$dir"
debs="golang-github-spf13-cobra-dev=1.6.1-1 ruby-rack=2.2.22-0+deb12u2 googletest=1.12.1-0.2
librust-regex-syntax-dev=0.6.27-1 openjdk-17-source=17.0.21.1+2-1~deb12u1"
for spec in $debs; do
  ls "${spec%%=*}"_*.deb >/dev/null 2>&1 || apt-get download -q "$spec" >/dev/null 2>&1
done
[ -f psutil-6.1.1.tar.gz ] || python3 -m pip download -q --no-deps --no-binary :all: psutil==6.1.1 -d . >/dev/null
sha256sum -c --quiet - <<'SUMS'
4f5d20855133319beef3c5b49d3c21a0406f270bf94fb4b6f4d406b691283cb2  golang-github-spf13-cobra-dev_1.6.1-1_all.deb
927be72067517da503b6538026d451455c9e860f5dbfe237f792543db7d5a928  googletest_1.12.1-0.2_all.deb
5106aa3881e3b49568823ebdfc3755d4043f6f53bbfc996d0efee03172dc0a9b  openjdk-17-source_17.0.21.1+2-1~deb12u1_all.deb
7ba26a66f6981b48ac604c9b829de51bdfc5d5ec8f329cf823b0aab72f718354  ruby-rack_2.2.22-0+deb12u2_all.deb
16c9879e07d6f9c6b2618906126d17e51ec8b04bced0fe3bb0cf0f3062f8a353  librust-regex-syntax-dev_0.6.27-1_amd64.deb
cf8496728c18f2d0b45198f06895be52f36611711746b7f30c464b422b50e2f5  psutil-6.1.1.tar.gz
SUMS
for deb in *.deb; do name=${deb%%_*}; [ -d "$name" ] || dpkg-deb -x "$deb" "$name"; done
[ -d psutil-6.1.1 ] || tar xzf psutil-6.1.1.tar.gz
[ -d jdk ] || { mkdir jdk && (cd jdk && unzip -q ../openjdk-17-source/usr/lib/jvm/openjdk-17/lib/src.zip 'java.base/java/util/*'); }
echo "go=$dir/golang-github-spf13-cobra-dev/usr/share/gocode/src/github.com/spf13/cobra"
echo "rust=$dir/librust-regex-syntax-dev/usr/share/cargo/registry/regex-syntax-0.6.27"
echo "java=$dir/jdk/java.base/java/util"
echo "c=$dir/psutil-6.1.1/psutil"
echo "cpp=$dir/googletest/usr/src/googletest"
echo "ruby=$dir/ruby-rack/usr/share/rubygems-integration/all/gems/rack-2.2.22"
