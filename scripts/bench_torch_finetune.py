"""Fine-tuning throughput of HF transformers + torch on CPU, for the side-by-side table of
`bash scripts/bench_finetune.sh`: the shipped model (www/models/bert-tiny, bert-tiny) loaded as
BertForSequenceClassification with a new 2-label head, the sentiment training set, batch 32,
AdamW (lr 1e-4, weight decay 0.01) with warmup + linear decay, clipping at 1.0, dropout 0.1 (train
mode), fixed thread count (default 1).

The batches are made as `bertscope finetune` makes them, so both frameworks do the same work:
sentences tokenised with the model's tokenizer, cut at --seq (64) tokens, shuffled with a fixed
seed and padded per batch to the batch's longest sentence (not to a fixed 64: that is what the
CLI does, and what HF's data collators do). Throughput counts the real tokens (the attention
mask's ones), as the CLI's tokens_per_s does, over the timed steps after a few warm-up steps.

Prints one JSON line: {"framework": "pytorch", "threads", "ms_per_step", "tokens_per_s",
"tokens_per_step": the mean real tokens of a batch of the whole data set (batch x the mean length),
which bench_finetune.sh uses to turn the CLI's tokens_per_s into ms / step}.
Needs: pip install torch transformers."""
import argparse, json, os, random, time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import torch
from transformers import AutoTokenizer, BertForSequenceClassification, get_linear_schedule_with_warmup

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="www/models/bert-tiny")
ap.add_argument("--data", default="www/datasets/sentiment/train.jsonl")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--steps", type=int, default=100)
ap.add_argument("--warmup-steps", type=int, default=5)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--seq", type=int, default=64)
a = ap.parse_args()
torch.set_num_threads(a.threads)
torch.manual_seed(0)

rows = [json.loads(l) for l in open(a.data, encoding="utf-8") if l.strip()]
labels = sorted({r["label"] for r in rows})
tok = AutoTokenizer.from_pretrained(a.model)
enc = [tok(r["text"], truncation=True, max_length=a.seq)["input_ids"] for r in rows]
ys = [labels.index(r["label"]) for r in rows]
model = BertForSequenceClassification.from_pretrained(a.model, num_labels=len(labels))
model.train()
total = a.warmup_steps + a.steps
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
sched = get_linear_schedule_with_warmup(opt, total // 10, total)

order, rng = [], random.Random(0)


def next_batch():
    global order
    idx = []
    while len(idx) < a.batch:
        if not order:
            order = list(range(len(enc)))
            rng.shuffle(order)
        idx.append(order.pop())
    t = max(len(enc[i]) for i in idx)
    ids = torch.full((len(idx), t), tok.pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(idx), t), dtype=torch.long)
    for r, i in enumerate(idx):
        ids[r, : len(enc[i])] = torch.tensor(enc[i])
        mask[r, : len(enc[i])] = 1
    return ids, mask, torch.tensor([ys[i] for i in idx])


def step(ids, mask, y):
    out = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids), labels=y)
    out.loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    opt.zero_grad()


for _ in range(a.warmup_steps):
    step(*next_batch())
secs, tokens = 0.0, 0
for _ in range(a.steps):
    ids, mask, y = next_batch()  # batching is not timed (the CLI's windows do time it; it is tiny)
    t0 = time.perf_counter()
    step(ids, mask, y)
    secs += time.perf_counter() - t0
    tokens += int(mask.sum())
mean_len = sum(len(e) for e in enc) / len(enc)
print(json.dumps({"framework": "pytorch", "threads": a.threads, "ms_per_step": secs / a.steps * 1e3,
                  "tokens_per_s": tokens / secs, "tokens_per_step": a.batch * mean_len}))
