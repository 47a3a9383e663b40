#!/usr/bin/env bash
# Builds the explainer page into dist/ with cargo, wasm-bindgen and wasm-opt (release, offline once
# the crates are fetched), installing what is missing into target/tools/ first (each step is skipped
# when the right version is already there, in target/tools/ or on PATH):
#   rustup target wasm32-unknown-unknown
#   wasm-bindgen-cli = Cargo.lock  cargo install --root target/tools (~2.5 min on 2 cores)
#   wasm-opt (binaryen 132)        npm install --prefix target/tools binaryen@132
# Then: the two wasm binaries (the UI thread `app`, the engine's Web Worker `worker`) in one cargo
# build; wasm-bindgen (app: an ES module; worker: a classic script that defines `wasm_bindgen`, as
# the worker's loader expects); wasm-opt -O3; www/ copied; the app's files named by a hash of their
# contents; index.html pointed at them; dist/sw.js given the file list.
# Needs a Rust toolchain (rustup), node + npm, and the bundled models in www/models/bert-tiny/ and
# www/models/minilm-l6-mlm/.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/target/tools"
BINARYEN_VERSION=132
mkdir -p "$TOOLS"
export PATH="$TOOLS/bin:$TOOLS/node_modules/.bin:$PATH"

WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "== installing the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WBG_VERSION" ]; then
  echo "== installing wasm-bindgen-cli $WBG_VERSION into target/tools (a few minutes)"
  # opt-level 1: the tool's own speed does not matter here, its build time does
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=0 \
    cargo install wasm-bindgen-cli --version "$WBG_VERSION" --root "$TOOLS" --force
fi
if ! wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN_VERSION\b\|version_$BINARYEN_VERSION"; then
  echo "== installing wasm-opt (binaryen $BINARYEN_VERSION) into target/tools"
  npm install --prefix "$TOOLS" --no-audit --no-fund "binaryen@$BINARYEN_VERSION"
fi

for m in bert-tiny minilm-l6-mlm; do
  if [ ! -f "www/models/$m/model.safetensors" ]; then
    echo "www/models/$m/ has no model: it is committed (or made by scripts/make_default_model.sh, scripts/make_minilm_model.sh)" >&2
    exit 1
  fi
done

# Two profiles (Cargo.toml): the worker's engine whole-program optimised for speed (web), the UI for
# size (web-ui); together they keep the shipped wasm + JS under 2 MB gzipped.
echo "== building the page's wasm (cargo: the worker, then the app)"
cargo build --locked --profile web --target wasm32-unknown-unknown --no-default-features --features web --bin worker
cargo build --locked --profile web-ui --target wasm32-unknown-unknown -p bertscope-ui --bin app
STAGE=target/web-stage
rm -rf "$STAGE" dist.new
mkdir -p "$STAGE" dist.new
wasm-bindgen --target web --no-typescript --out-dir "$STAGE" --out-name app target/wasm32-unknown-unknown/web-ui/app.wasm
wasm-bindgen --target no-modules --no-typescript --out-dir "$STAGE" --out-name worker target/wasm32-unknown-unknown/web/worker.wasm

# The wasm uses SIMD (see .cargo/config.toml) and the features rustc enables by default.
WASM_FEATURES=(--enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)
for w in app worker; do
  wasm-opt -O3 "${WASM_FEATURES[@]}" "$STAGE/${w}_bg.wasm" -o "$STAGE/${w}_bg.opt.wasm"
  mv "$STAGE/${w}_bg.opt.wasm" "$STAGE/${w}_bg.wasm"
done

# www/ as it is (the model, the corpora, the service worker, styles), then the built files.
cp -r www/. dist.new/
rm -rf dist.new/models
mkdir -p dist.new/models
# the bundled models (src/explain/models.rs), not bert-tiny-base (bert-tiny's starting point)
for m in bert-tiny minilm-l6-mlm; do
  cp -r "www/models/$m" "dist.new/models/$m"
done
# The worker keeps its fixed name (the app spawns "worker.js"; its loader finds worker_bg.wasm beside it).
cp "$STAGE/worker.js" "$STAGE/worker_bg.wasm" dist.new/
hash8() { sha256sum "$1" | cut -c1-16; }
# The app's files and styles carry a hash of their contents, so a browser never mixes two builds.
APP_HASH=$(cat "$STAGE/app.js" "$STAGE/app_bg.wasm" | sha256sum | cut -c1-16)
cp "$STAGE/app.js" "dist.new/app-$APP_HASH.js"
cp "$STAGE/app_bg.wasm" "dist.new/app-${APP_HASH}_bg.wasm"
css_links=""
for css in style embed; do
  h=$(hash8 "www/$css.css")
  mv "dist.new/$css.css" "dist.new/$css-$h.css"
  css_links+="<link rel=\"stylesheet\" href=\"./$css-$h.css\">"
done
app_tags="<link rel=\"modulepreload\" href=\"./app-$APP_HASH.js\">"
app_tags+="<link rel=\"preload\" href=\"./app-${APP_HASH}_bg.wasm\" as=\"fetch\" type=\"application/wasm\" crossorigin>"
app_tags+="<script type=\"module\">import init from \"./app-$APP_HASH.js\"; init({ module_or_path: \"./app-${APP_HASH}_bg.wasm\" });</script>"
node -e '
  const fs = require("fs");
  const [file, css, app] = process.argv.slice(1);
  const src = fs.readFileSync(file, "utf8");
  if (!src.includes("<!-- @styles -->") || !src.includes("<!-- @app -->")) throw new Error(file + ": the @styles / @app markers are missing");
  fs.writeFileSync(file, src.replace("<!-- @styles -->", css).replace("<!-- @app -->", app));
' dist.new/index.html "$css_links" "$app_tags"

node scripts/sw_manifest.mjs dist.new
rm -rf dist
mv dist.new dist
echo "page built: dist/ ($(du -sh dist | cut -f1) with the model)"
