#!/usr/bin/env bash
# Training throughput side by side in one run: bertscope native CPU vs HF transformers + torch CPU,
# batch 32 x seq 64, one thread each: bert-tiny, then the shipped MiniLM's recipe (6 x 12, hidden
# 384; word embeddings frozen, only masked rows through the vocabulary). Needs `pip install torch
# transformers`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --locked --bench train --no-run 2>/dev/null
rows=()
for model in bert-tiny minilm; do
  rows+=("$(BENCH_MODEL=$model cargo bench --locked --bench train 2>/dev/null | tail -n 1)")
  rows+=("$(OMP_NUM_THREADS=1 python3 scripts/bench_torch_train.py --threads 1 --model $model)")
done
python3 - "${rows[@]}" <<'PY'
import json, sys
r = [json.loads(x) for x in sys.argv[1:]]
print("| model | framework | threads | ms / step | tokens / s | vs PyTorch |")
print("|---|---|---:|---:|---:|---:|")
for o, t in zip(r[0::2], r[1::2]):
    for x in (o, t):
        print(f"| {x['model']} | {x['framework']} | {x['threads']} | {x['ms_per_step']:.1f} | {x['tokens_per_s']:.0f} | {x['tokens_per_s'] / t['tokens_per_s']:.2f}x |")
PY
