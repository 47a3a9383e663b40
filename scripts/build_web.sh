#!/usr/bin/env bash
# Builds the explainer page into dist/ with Trunk (release, offline), installing what is missing
# into target/tools/ first (each step is skipped when the right version is already there):
#   rustup target wasm32-unknown-unknown
#   trunk 0.21.14                  cargo install --locked --root target/tools
#   wasm-bindgen-cli = Cargo.lock  cargo install --root target/tools
#   wasm-opt (binaryen 132)        npm install --prefix target/tools binaryen@132
#   the crates of the wasm build   cargo fetch (trunk itself runs offline)
# Needs a Rust toolchain (rustup), node + npm, and the model in www/models/default/.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/target/tools"
TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132
mkdir -p "$TOOLS"
export PATH="$TOOLS/bin:$TOOLS/node_modules/.bin:$PATH"

WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if ! grep -q "^wasm_bindgen = \"$WBG_VERSION\"" Trunk.toml; then
  echo "Trunk.toml [tools] wasm_bindgen must equal the wasm-bindgen in Cargo.lock ($WBG_VERSION)" >&2
  exit 1
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "== installing the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
if [ "$("$TOOLS/bin/trunk" --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  echo "== installing trunk $TRUNK_VERSION into target/tools (a few minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --root "$TOOLS"
fi
if [ "$("$TOOLS/bin/wasm-bindgen" --version 2>/dev/null)" != "wasm-bindgen $WBG_VERSION" ]; then
  echo "== installing wasm-bindgen-cli $WBG_VERSION into target/tools"
  cargo install wasm-bindgen-cli --version "$WBG_VERSION" --root "$TOOLS" --force
fi
if ! "$TOOLS/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version_$BINARYEN_VERSION"; then
  echo "== installing wasm-opt (binaryen $BINARYEN_VERSION) into target/tools"
  npm install --prefix "$TOOLS" --no-audit --no-fund "binaryen@$BINARYEN_VERSION"
fi

if [ ! -f www/models/default/model.safetensors ]; then
  echo "www/models/default/ has no model: run scripts/make_default_model.sh (or copy www/models/bert-tiny-base/ there)" >&2
  exit 1
fi

# Trunk builds offline (it never downloads tools), so the page's crates must be on disk first: on a
# fresh machine nothing else has fetched the wasm-only ones (yew, yew-agent, bincode, ...).
cargo fetch --locked
trunk build --release --offline
node scripts/sw_manifest.mjs dist
echo "page built: dist/ ($(du -sh dist | cut -f1) with the model)"
