"""Training throughput of HF transformers + torch on CPU, for the side-by-side table of
`bash scripts/bench_train.sh`: bert-tiny (BertForMaskedLM, random init), batch 32 x seq 64,
15% of positions labelled, AdamW, dropout 0.1, fixed thread count (default 1). With --model minilm:
the shipped MiniLM's recipe (6 layers x 12 heads, hidden 384, FFN 1536, 20% labelled, word
embeddings (and the tied decoder) frozen, dropout off, and, as bertscope does, only the labelled
positions through the head and the 30,522-way projection).
Prints one JSON line: {"framework": "pytorch", "tokens_per_s": ..., "ms_per_step": ...}.
Needs: pip install torch transformers."""
import argparse, json, os, time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
import torch
from transformers import BertConfig, BertForMaskedLM

ap = argparse.ArgumentParser()
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--steps", type=int, default=20)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--seq", type=int, default=64)
ap.add_argument("--model", choices=["bert-tiny", "minilm"], default="bert-tiny")
a = ap.parse_args()
torch.set_num_threads(a.threads)
torch.manual_seed(0)
minilm = a.model == "minilm"
if minilm:
    cfg = BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12,
                     intermediate_size=1536, max_position_embeddings=512, hidden_dropout_prob=0.0,
                     attention_probs_dropout_prob=0.0)
else:
    cfg = BertConfig(vocab_size=30522, hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=512, max_position_embeddings=512)
model = BertForMaskedLM(cfg)
model.train()
if minilm:
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4, weight_decay=0.01)
g = torch.Generator().manual_seed(1)
ids = torch.randint(1000, 21000, (a.batch, a.seq), generator=g)
labels = torch.where(torch.rand(a.batch, a.seq, generator=g) < (0.2 if minilm else 0.15), ids, torch.full_like(ids, -100))
picked = labels != -100


def loss_fn():
    if not minilm:
        return model(input_ids=ids, labels=labels).loss
    h = model.bert(input_ids=ids).last_hidden_state[picked]  # (M, H): the labelled rows only
    return torch.nn.functional.cross_entropy(model.cls(h), labels[picked])


def step():
    loss_fn().backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad()


for _ in range(3):
    step()
times = []
for _ in range(a.steps):
    t = time.perf_counter()
    step()
    times.append(time.perf_counter() - t)
times.sort()
med = times[len(times) // 2]
print(json.dumps({"framework": "pytorch", "model": a.model, "threads": a.threads, "ms_per_step": med * 1e3,
                  "tokens_per_s": a.batch * a.seq / med}))
