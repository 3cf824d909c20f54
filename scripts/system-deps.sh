#!/usr/bin/env bash
# Installs the Debian packages Prhub needs outside PyPI:
#   fonts  - a CJK font for Chinese PDFs (fonts-noto-cjk)
#   test   - the above, plus poppler-utils (pdftotext/pdffonts) and Chromium for the browser test
# Skips what is already there, so repeated runs are instant.
set -euo pipefail
want=(fonts-noto-cjk)
[ "${1:-fonts}" = test ] && want+=(poppler-utils chromium)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing system packages: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
