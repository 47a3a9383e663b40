#!/usr/bin/env bash
# End-to-end tests of the page in headless Chromium. Builds dist/ (scripts/build_web.sh), installs
# what is missing (chromium from apt when /usr/bin/chromium is absent; playwright-core into
# tests/e2e/node_modules with npm ci), serves dist/ on a free 127.0.0.1 port and runs
# tests/e2e/run.mjs. Screenshots go to target/screenshots/, figures to target/e2e-metrics.json.
# The last line is `N passed, M failed`; the exit status is non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
suite_ran=0
trap 'if [ $suite_ran = 0 ]; then echo "e2e: setup failed before the suite ran"; echo "0 passed, 1 failed"; fi' EXIT

bash scripts/build_web.sh

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "== installing chromium (apt)"
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
want=$(node -e 'console.log(require("./tests/e2e/package-lock.json").packages["node_modules/playwright-core"].version)')
have=$(node -e 'try { console.log(require("./tests/e2e/node_modules/playwright-core/package.json").version) } catch { console.log("") }')
if [ "$want" != "$have" ]; then
  echo "== installing playwright-core $want into tests/e2e/node_modules"
  (cd tests/e2e && npm ci --no-audit --no-fund)
fi

suite_ran=1
CHROMIUM="$CHROMIUM" node tests/e2e/run.mjs
