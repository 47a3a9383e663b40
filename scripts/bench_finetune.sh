#!/usr/bin/env bash
# Fine-tuning throughput side by side in one run: `bertscope finetune` (native CPU) vs HF
# transformers + torch CPU (scripts/bench_torch_finetune.py), one thread each. The same work on
# both: the shipped model www/models/bert-tiny (bert-tiny) with a new 2-label classification head,
# the sentiment training set, batch 32, sentences cut at 64 tokens and padded per batch to the
# batch's longest (what the CLI does), AdamW + warmup/decay + clipping, dropout on.
# Throughput counts real (unpadded) tokens on both sides. bertscope's figure is the median
# tokens_per_s of its JSON log lines (one per --log-every 10 steps; the first window left out);
# its ms / step is the mean real tokens of a batch (from the same data) over that rate.
# The CLI's engine is single-threaded (no thread pool in the math); RAYON_NUM_THREADS=1 only
# pins the tokenizer library's pool. Needs `pip install torch transformers`.
#   BERTSCOPE=path/to/bertscope  use that binary (default: cargo build --release, then target/release/bertscope)
#   PYTHON=python3               the interpreter with torch + transformers
#   STEPS=110                    bertscope steps (11 log windows); the PyTorch side times 100 after 5
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
STEPS=${STEPS:-110}
if [ -z "${BERTSCOPE:-}" ]; then
  cargo build --release --locked --quiet --bin bertscope
  BERTSCOPE=target/release/bertscope
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
RAYON_NUM_THREADS=1 OMP_NUM_THREADS=1 "$BERTSCOPE" finetune --model www/models/bert-tiny --task classify \
  --data www/datasets/sentiment/train.jsonl --out "$out/model" --steps "$STEPS" --log-every 10 \
  >"$out/log.jsonl" 2>"$out/stderr" || { cat "$out/stderr" >&2; exit 1; }
theirs=$(OMP_NUM_THREADS=1 "$PYTHON" scripts/bench_torch_finetune.py --threads 1 2>/dev/null | tail -n 1)
"$PYTHON" - "$out/log.jsonl" "$theirs" <<'PY'
import json, sys
logs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t = json.loads(sys.argv[2])
rates = sorted(l["tokens_per_s"] for l in logs[1:])
rate = rates[len(rates) // 2]
o = {"framework": "bertscope (native CPU)", "threads": 1, "tokens_per_s": rate,
     "ms_per_step": t["tokens_per_step"] / rate * 1e3}
print("| framework | threads | ms / step | tokens / s | vs PyTorch |")
print("|---|---:|---:|---:|---:|")
for r in (o, t):
    print(f"| {r['framework']} | {r['threads']} | {r['ms_per_step']:.1f} | {r['tokens_per_s']:.0f} | {r['tokens_per_s'] / t['tokens_per_s']:.2f}x |")
PY
