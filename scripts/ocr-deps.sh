#!/usr/bin/env bash
# Installs what image ingestion needs: the Tesseract OCR CLI with its English
# and Simplified Chinese language data, from Debian's packages, when they are
# missing and we are root on Debian. Anywhere else it only says what to
# install and exits 0: OCR is optional, images then fail with ocr_unavailable
# and the OCR-positive tests skip.
set -euo pipefail

pkgs=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim)

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null; then
  echo "ocr-deps: installing ${missing[*]} from Debian's packages" >&2
  apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  }
  # The package lists may be stale or absent on a fresh machine: refresh them
  # only when an install without them fails, since an update is slow.
  if ! apt_install 2>/dev/null; then
    if ! { apt-get update -qq >/dev/null && apt_install; }; then
      echo "ocr-deps: WARNING: could not install ${missing[*]}; images will fail with ocr_unavailable" >&2
    fi
  fi
  exit 0
fi

echo "ocr-deps: OCR of images needs: ${missing[*]} (e.g. apt-get install ${pkgs[*]}); skipping" >&2
exit 0
