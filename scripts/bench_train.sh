#!/usr/bin/env bash
# Training throughput side by side in one run: bertscope native CPU vs HF transformers + torch CPU,
# bert-tiny, batch 32 x seq 64, one thread each. Needs `pip install torch transformers`.
set -euo pipefail
cd "$(dirname "$0")/.."
ours=$(cargo bench --locked --bench train 2>/dev/null | tail -n 1)
theirs=$(OMP_NUM_THREADS=1 python3 scripts/bench_torch_train.py --threads 1)
python3 - "$ours" "$theirs" <<'PY'
import json, sys
o, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("| framework | threads | ms / step | tokens / s | vs PyTorch |")
print("|---|---:|---:|---:|---:|")
for r in (o, t):
    print(f"| {r['framework']} | {r['threads']} | {r['ms_per_step']:.1f} | {r['tokens_per_s']:.0f} | {r['tokens_per_s'] / t['tokens_per_s']:.2f}x |")
PY
