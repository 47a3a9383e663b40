#!/usr/bin/env python3
"""PyTorch / HF reference fixtures for bertscope's other encoder families: DistilBERT and RoBERTa.

What it makes (relative to the repo root):

  tests/fixtures/models/{distil_mlm, distil_seqcls}/
      small random DistilBertForMaskedLM (learned positions, GELU) and
      DistilBertForSequenceClassification (3 labels with id2label names, ReLU,
      sinusoidal_pos_embds: the position table is HF's exact sinusoids, never
      perturbed), every other parameter perturbed with N(0, 0.2) noise; saved
      with save_pretrained, plus the tokenizer files of a hub DistilBERT folder
      (vocab.txt = the ~150-word WordPiece vocab of relu_tiny, tokenizer.json,
      tokenizer_config.json with model_max_length 40).

  tests/fixtures/models/{roberta_mlm, roberta_seqcls, roberta_tokcls}/
      small random RobertaForMaskedLM, RobertaForSequenceClassification (3 labels,
      classifier.dense + classifier.out_proj) and RobertaForTokenClassification
      (5 BIO tags), perturbed the same way; plus the files of a hub RoBERTa
      tokenizer (vocab.json, merges.txt, tokenizer.json, tokenizer_config.json,
      special_tokens_map.json) for a ~420-entry byte-level BPE trained here with
      the `tokenizers` library on a small generated English corpus (<s>=0,
      <pad>=1, </s>=2, <unk>=3, the 256 byte symbols, merges, <mask> last with
      lstrip=True as in roberta-base; add_prefix_space=False; model_max_length 40).

  tests/fixtures/ref/fam_<name>.safetensors   (name: distil_mlm, distil_seqcls,
      roberta_mlm, roberta_seqcls, roberta_tokcls)
      a right-padded batch of two real texts encoded by the model's own
      tokenizer (a sentence pair per row for roberta_seqcls): input_ids,
      attention_mask, token_type_ids (zeros: RoBERTa's single token type;
      DistilBERT has no token type embeddings and is not given them),
      position_ids (RoBERTa: padding_idx + cumsum of non-pad tokens, pads at
      padding_idx, as HF computes them; DistilBERT: arange), labels, HF's
      outputs (hidden_states.{i}, attentions.{l} from eager attention, logits),
      loss and grad.<name> of every parameter under its model.safetensors name
      (eval mode: dropout off).  String metadata: model, case, text.0 / text.1
      (pair.0 / pair.1), grad_none, tied (alias=stored name of tied tensors),
      note, generator, versions.

  tests/fixtures/fam_tokenize.json
      fast-tokenizer reference for the roberta_mlm and distil_mlm tokenizers on
      18 tricky inputs: tokens, ids, type ids, attention mask, special tokens
      mask, char and UTF-8 byte offsets and the truncation flag, truncating at
      model_max_length = 40 (the shape of tokenize.json from make_fixtures.py,
      plus `model`, `attention_mask`, `special_tokens_mask`; specials get
      offsets [0, 0]).  The DistilBERT tokenizer gives type id 1 to a pair's
      second segment; the RoBERTa one gives 0 everywhere.

Needs (CPU only, no network, never touches the HF hub):
  pip install torch "transformers>=5" "tokenizers>=0.22" safetensors numpy

Rerun from the repo root:
  python3 scripts/make_family_fixtures.py

Deterministic (fixed seeds, one thread, the BPE trainer is deterministic, files
written by save_canonical); it deletes and rewrites everything it owns, then
re-loads every file and checks it (shapes, attention rows summing to 1 and
non-uniform, non-zero gradients, tied tensors absent from the files, RoBERTa
position ids, the sinusoidal table) and prints a summary table.

Notes on transformers 5 behaviour that the fixtures depend on:
  * DistilBertTokenizerFast(vocab_file=...) silently ignores vocab_file (it
    builds a 5-token vocab); the tokenizer is built with vocab=<path>.
    Tokenizer save_pretrained writes only tokenizer.json + tokenizer_config.json,
    so vocab.txt / vocab.json / merges.txt / special_tokens_map.json are written
    here (and checked to load to the same tokenizer without tokenizer.json).
  * With sinusoidal_pos_embds the table is saved in model.safetensors and it is
    a trainable parameter (requires_grad=True, unlike transformers 4 which froze
    it): it receives a gradient, stored like any other.
  * Tied tensors are not saved: DistilBertForMaskedLM has no
    vocab_projector.weight (= distilbert.embeddings.word_embeddings.weight; its
    vocab_projector.bias is saved); RobertaForMaskedLM has no
    lm_head.decoder.weight (= roberta.embeddings.word_embeddings.weight) nor
    lm_head.decoder.bias (= lm_head.bias).
  * nn.Embedding padding_idx rows (word [PAD]=0 for DistilBERT; word <pad>=1 and
    position 1 for RoBERTa) get no gradient through the lookup although pads
    use them; in the MLM models the tied decoder still gives the word row one.
"""

import json
import shutil
import tempfile
from pathlib import Path

from make_fixtures import FIX, MODELS, REF, ROOT, file_keys, long_text, perturb, piece_offsets, rel, save_canonical, store_grads, store_states  # noqa: E402 (first: it sets the offline environment before transformers loads)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402
from transformers import (  # noqa: E402
    AddedToken,
    DistilBertConfig,
    DistilBertForMaskedLM,
    DistilBertForSequenceClassification,
    DistilBertTokenizerFast,
    RobertaConfig,
    RobertaForMaskedLM,
    RobertaForSequenceClassification,
    RobertaForTokenClassification,
    RobertaTokenizerFast,
)
from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings  # noqa: E402
from transformers.models.roberta.modeling_roberta import RobertaEmbeddings  # noqa: E402

TOKENIZE_JSON = FIX / "fam_tokenize.json"
WORDPIECE_VOCAB = MODELS / "relu_tiny" / "vocab.txt"
NOISE_STD = 0.2
MAX_LEN = 40  # tokens per sequence (RoBERTa: max_position_embeddings = MAX_LEN + 2)
ROBERTA_PAD = 1
VERSIONS = f"torch {torch.__version__}; transformers {transformers.__version__}"
SENTIMENT = dict(id2label={0: "negative", 1: "neutral", 2: "positive"},
                 label2id={"negative": 0, "neutral": 1, "positive": 2})
BIO = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]


# --------------------------------------------------------------------------
# 1. tokenizers
# --------------------------------------------------------------------------

def bpe_corpus() -> list:
    """~450 plain English sentences, deterministic."""
    rng = np.random.default_rng(31)
    subj = ("the cat|the dog|a bird|my friend|the old man|a little child|she|he|they|we|the teacher|"
            "the woman|our city|the happy girl").split("|")
    verb = ("sat on|looked at|walked to|talked about|played with|read|wrote|liked|saw|found|bought|made|"
            "went to|came from").split("|")
    obj = ("the mat|a book|the house|the store|the tree|some water|the red fish|a new song|the big world|"
           "the small garden|the river|a happy day|the milk|Paris|France|London").split("|")
    tail = ["", " because it was tired", " in the morning", " after school", " with a smile",
            " and then went home", " in Paris", " last week", ", and it was good"]
    end = [".", ".", ".", "!", "?"]
    out = []
    for _ in range(420):
        s = (f"{subj[rng.integers(len(subj))]} {verb[rng.integers(len(verb))]} "
             f"{obj[rng.integers(len(obj))]}{tail[rng.integers(len(tail))]}{end[rng.integers(len(end))]}")
        out.append(s[0].upper() + s[1:])
    out += ["Hello world!", "Hello, world.", "hello world", "The capital of France is Paris.",
            "Paris is the capital of France.", "The man went to the store.", "He bought a gallon of milk.",
            "It was happy.", "It was a cat.", "The cat sat on the mat.", "Hello, my friend!"] * 10
    return out


BPE_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
BPE_VOCAB_SIZE = 460  # incl. the 4 specials and the 256 byte symbols; <mask> comes on top


def train_bpe():
    """Byte-level BPE as roberta-base's: ids 0..3 special, <mask> last."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=BPE_VOCAB_SIZE, min_frequency=2, special_tokens=BPE_SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(bpe_corpus(), trainer)
    model = json.loads(tok.to_str())["model"]
    vocab = dict(model["vocab"])
    assert [vocab[s] for s in BPE_SPECIALS] == [0, 1, 2, 3]
    assert set(pre_tokenizers.ByteLevel.alphabet()) <= set(vocab) and len(vocab) == BPE_VOCAB_SIZE
    vocab["<mask>"] = len(vocab)
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return vocab, merges


def roberta_tokenizer(vocab, merges):
    mask = AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False, special=True)
    return RobertaTokenizerFast(vocab=vocab, merges=merges, mask_token=mask, add_prefix_space=False,
                                trim_offsets=True, model_max_length=MAX_LEN)


ROBERTA_SPECIAL_MAP = {
    "bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>",
    "mask_token": {"content": "<mask>", "lstrip": True, "normalized": False, "rstrip": False, "single_word": False},
    "pad_token": "<pad>", "sep_token": "</s>", "unk_token": "<unk>",
}


def save_roberta_tokenizer(d: Path, vocab, merges) -> None:
    roberta_tokenizer(vocab, merges).save_pretrained(d)  # tokenizer.json, tokenizer_config.json
    inv = sorted(vocab.items(), key=lambda kv: kv[1])
    (d / "vocab.json").write_text(json.dumps(dict(inv)) + "\n")
    (d / "merges.txt").write_text("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
    (d / "special_tokens_map.json").write_text(json.dumps(ROBERTA_SPECIAL_MAP, indent=2, sort_keys=True) + "\n")


def save_distil_tokenizer(d: Path) -> None:
    # transformers 5: vocab_file= is ignored (a 5-token vocab); vocab=<path> reads vocab.txt
    tok = DistilBertTokenizerFast(vocab=str(WORDPIECE_VOCAB), do_lower_case=True, model_max_length=MAX_LEN)
    assert len(tok) == len(WORDPIECE_VOCAB.read_text().splitlines())
    tok.save_pretrained(d)  # tokenizer.json, tokenizer_config.json
    shutil.copyfile(WORDPIECE_VOCAB, d / "vocab.txt")


# --------------------------------------------------------------------------
# 2. models
# --------------------------------------------------------------------------

N_WORDPIECE = len(WORDPIECE_VOCAB.read_text().splitlines())

FAMILIES = {
    # name: (class, config class, config kwargs, seed)
    "distil_mlm": (DistilBertForMaskedLM, DistilBertConfig,
                   dict(dim=36, n_layers=2, n_heads=3, hidden_dim=52, activation="gelu",
                        max_position_embeddings=MAX_LEN, sinusoidal_pos_embds=False), 3001),
    "distil_seqcls": (DistilBertForSequenceClassification, DistilBertConfig,
                      dict(dim=24, n_layers=2, n_heads=2, hidden_dim=40, activation="relu",
                           max_position_embeddings=MAX_LEN, sinusoidal_pos_embds=True, num_labels=3,
                           **SENTIMENT), 3002),
    "roberta_mlm": (RobertaForMaskedLM, RobertaConfig,
                    dict(hidden_size=36, num_hidden_layers=2, num_attention_heads=3, intermediate_size=52,
                         hidden_act="gelu"), 3003),
    "roberta_seqcls": (RobertaForSequenceClassification, RobertaConfig,
                       dict(hidden_size=24, num_hidden_layers=2, num_attention_heads=2, intermediate_size=40,
                            hidden_act="gelu", num_labels=3, **SENTIMENT), 3004),
    "roberta_tokcls": (RobertaForTokenClassification, RobertaConfig,
                       dict(hidden_size=24, num_hidden_layers=1, num_attention_heads=2, intermediate_size=30,
                            hidden_act="gelu", num_labels=5, id2label=dict(enumerate(BIO)),
                            label2id={t: i for i, t in enumerate(BIO)}), 3005),
}
ROBERTA_COMMON = dict(max_position_embeddings=MAX_LEN + 2, type_vocab_size=1, layer_norm_eps=1e-5,
                      pad_token_id=ROBERTA_PAD, bos_token_id=0, eos_token_id=2)


def is_distil(name: str) -> bool:
    return name.startswith("distil")


def frozen_names(model) -> set:
    """Parameters never perturbed: the sinusoidal position table of DistilBERT."""
    cfg = model.config
    if getattr(cfg, "sinusoidal_pos_embds", False):
        return {"distilbert.embeddings.position_embeddings.weight"}
    return set()


def sinusoids(n_pos: int, dim: int) -> torch.Tensor:
    return create_sinusoidal_embeddings(n_pos, dim, torch.empty(n_pos, dim))


def tied_pairs(model) -> dict:
    """alias name (absent from the file) -> name stored in model.safetensors."""
    out = {}
    for alias, target in (getattr(model, "_tied_weights_keys", None) or {}).items():
        if model.config.tie_word_embeddings:
            assert model.get_parameter(alias) is model.get_parameter(target), (alias, target)
            out[alias] = target
    return out


def load_model(name: str):
    cls = FAMILIES[name][0]
    m = cls.from_pretrained(MODELS / name, attn_implementation="eager", dtype=torch.float32)
    assert m.config._attn_implementation == "eager"
    return m.eval()


def make_model(name: str, bpe) -> dict:
    cls, cfg_cls, kw, seed = FAMILIES[name]
    d = MODELS / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    torch.manual_seed(seed)
    if is_distil(name):
        cfg = cfg_cls(vocab_size=N_WORDPIECE, pad_token_id=0, attn_implementation="eager", **kw)
    else:
        cfg = cfg_cls(vocab_size=len(bpe[0]), attn_implementation="eager", **ROBERTA_COMMON, **kw)
    model = cls(cfg)
    perturb(model, seed + 50_000, skip=frozen_names(model))
    model.save_pretrained(d, safe_serialization=True)
    if is_distil(name):
        save_distil_tokenizer(d)
    else:
        save_roberta_tokenizer(d, *bpe)

    keys = file_keys(d)
    tied = tied_pairs(model)
    params = dict(model.named_parameters())
    assert set(keys) == set(params), (name, sorted(set(keys) ^ set(params)))
    assert not set(tied) & set(keys), (name, "a tied alias is in the file")
    m2 = load_model(name)
    sd1, sd2 = model.state_dict(), m2.state_dict()
    assert sd1.keys() == sd2.keys()
    for k in sd1:
        assert torch.equal(sd1[k], sd2[k]), (name, k)
    for alias, target in tied.items():
        assert m2.get_parameter(alias) is m2.get_parameter(target)
    return {"keys": sorted(keys), "tied": tied}


# --------------------------------------------------------------------------
# 3. reference cases
# --------------------------------------------------------------------------

CASES = {
    # name: (texts, pairs)
    "distil_mlm": (["the cat sat on the [MASK] because it was [MASK].", "paris is the [MASK] of france!"], None),
    "distil_seqcls": (["the old man went to the store and bought a gallon of milk.", "a happy dog."], None),
    "roberta_mlm": (["The cat sat on the <mask> because it was <mask>.", "Hello, <mask>!"], None),
    "roberta_seqcls": (["The cat sat on the mat.", "Hello world!"],
                       ["It was happy.", "The dog played with a book in the morning."]),
    "roberta_tokcls": (["My friend walked to the river in Paris last week.", "Hello London."], None),
}


def load_tokenizer(name: str):
    cls = DistilBertTokenizerFast if is_distil(name) else RobertaTokenizerFast
    return cls.from_pretrained(MODELS / name)


def run_case(name: str) -> None:
    case = f"fam_{name}"
    texts, pairs = CASES[name]
    tok = load_tokenizer(name)
    model = load_model(name)
    seed = FAMILIES[name][3]
    rng = np.random.default_rng(seed)
    enc = tok(texts, pairs, padding=True, return_tensors="pt", return_token_type_ids=True,
              return_special_tokens_mask=True)
    ids, am = enc["input_ids"].long(), enc["attention_mask"].long()
    B, T = ids.shape
    lens = am.sum(1).tolist()
    assert B == 2 and lens[0] != lens[1] and max(lens) == T, (name, lens)
    assert not (enc["token_type_ids"] != 0).any(), (name, "a non-zero token type")
    tt = torch.zeros_like(ids)
    special = enc["special_tokens_mask"].bool() | (am == 0)
    if is_distil(name):
        pos = torch.arange(T).expand(B, T).contiguous()
    else:
        pos = RobertaEmbeddings.create_position_ids_from_input_ids(ids, ROBERTA_PAD)
    t = {"input_ids": ids, "attention_mask": am, "token_type_ids": tt, "position_ids": pos}

    if name.endswith("_mlm"):
        mask_id = tok.mask_token_id
        n_mask = (ids == mask_id).sum().item()
        assert n_mask >= 2, (name, n_mask)
        labels = torch.full_like(ids, -100)
        labelled = ids == mask_id
        for b in range(B):  # two more labelled word positions per row
            cand = [i for i in range(T) if not special[b, i] and not labelled[b, i]]
            for i in rng.choice(cand, size=2, replace=False):
                labelled[b, i] = True
        n_special = 5 if is_distil(name) else 4
        targets = torch.as_tensor(rng.integers(n_special, model.config.vocab_size - (0 if is_distil(name) else 1),
                                               size=(B, T)))
        labels[labelled] = targets[labelled]
    elif name.endswith("_seqcls"):
        labels = torch.tensor([2, 0])
    else:  # tokcls: a tag per word piece, -100 on specials and pads
        labels = torch.as_tensor(rng.integers(0, len(BIO), size=(B, T)))
        labels[special] = -100
    t["labels"] = labels

    kwargs = dict(input_ids=ids, attention_mask=am, labels=labels, output_hidden_states=True,
                  output_attentions=True, return_dict=True)
    if not is_distil(name):
        kwargs["token_type_ids"] = tt
    model.zero_grad(set_to_none=True)
    out = model(**kwargs)  # position ids computed by HF
    L = model.config.num_hidden_layers
    store_states(t, out, L)
    t["logits"] = out.logits.detach()
    with torch.no_grad():  # the stored position ids are the ones HF used
        again = model(**{k: v for k, v in kwargs.items() if k != "labels"}, position_ids=pos)
        assert torch.equal(again.logits, out.logits), (name, "position ids")
    out.loss.backward()
    t["loss"] = out.loss.detach().reshape(1)

    grad_none = store_grads(t, model, set(file_keys(MODELS / name)), name)
    tied = tied_pairs(model)

    md = {"model": rel(MODELS / name), "case": case, "generator": "scripts/make_family_fixtures.py",
          "versions": VERSIONS}
    for b in range(B):
        md[f"text.{b}"] = texts[b]
        if pairs:
            md[f"pair.{b}"] = pairs[b]
    if grad_none:
        md["grad_none"] = ",".join(grad_none)
    if tied:
        md["tied"] = ",".join(f"{a}={s}" for a, s in sorted(tied.items()))
    if is_distil(name):
        md["note"] = ("DistilBERT has no token type embeddings: token_type_ids are zeros and were not passed; "
                      "position_ids = arange (HF's default)")
    else:
        md["note"] = (f"position_ids = padding_idx ({ROBERTA_PAD}) + cumsum of non-pad tokens, pads at "
                      f"padding_idx, computed by HF from input_ids (not passed)")
    t = {k: v.contiguous().to(torch.float32) if v.dtype.is_floating_point else v.contiguous().to(torch.int64)
         for k, v in t.items()}
    save_canonical(t, REF / f"{case}.safetensors", md)


# --------------------------------------------------------------------------
# 4. tokenizer reference
# --------------------------------------------------------------------------

TOKENIZE_INPUTS = [
    ("Hello, world!", None),
    ("Hello world", None),
    (" Hello world", None),
    ("Hello world   ", None),
    ("multiple   spaces\tand\t\ttabs\nand newlines  end", None),
    ("HeLLo WoRLD, MiXeD CaSe", None),
    ("café naïve Ångström", None),
    ("emoji 😀👍🏽 and ❤️ hearts", None),
    ("the <mask> sat", None),
    ("the [MASK] sat", None),
    ("the<mask>sat and [MASK][MASK]", None),
    ("control\x00chars\x07 and zero\u200bwidth", None),
    ("", None),
    ("   ", None),
    ("The man went to the store.", "He bought a gallon of milk."),
    ("", "only the second segment"),
    (long_text(60), None),
    (long_text(30), long_text(25)),
]
TOKENIZE_MODELS = ["roberta_mlm", "distil_mlm"]


def make_tokenize_json() -> None:
    cases = []
    for name in TOKENIZE_MODELS:
        tok = load_tokenizer(name)
        assert tok.is_fast and tok.model_max_length == MAX_LEN
        for text, pair in TOKENIZE_INPUTS:
            e = tok(text, pair, truncation=True, return_offsets_mapping=True, return_token_type_ids=True,
                    return_attention_mask=True, return_special_tokens_mask=True)
            full = tok(text, pair, truncation=False, add_special_tokens=True)
            ids = list(e["input_ids"])
            offsets, offsets_b = piece_offsets(e, text, pair)
            cases.append({
                "model": rel(MODELS / name),
                "text": text,
                "pair": pair,
                "tokens": tok.convert_ids_to_tokens(ids),
                "input_ids": ids,
                "token_type_ids": list(e["token_type_ids"]),
                "attention_mask": list(e["attention_mask"]),
                "special_tokens_mask": list(e["special_tokens_mask"]),
                "offsets": offsets,
                "offsets_bytes": offsets_b,
                "truncated": len(full["input_ids"]) > len(ids),
            })
    TOKENIZE_JSON.write_text(json.dumps(cases, ensure_ascii=False, indent=1) + "\n")
    n_trunc = sum(c["truncated"] for c in cases)
    print(f"  fam_tokenize.json: {len(cases)} cases ({len(TOKENIZE_INPUTS)} inputs x {len(TOKENIZE_MODELS)} "
          f"tokenizers), {n_trunc} truncated")


# --------------------------------------------------------------------------
# verification
# --------------------------------------------------------------------------

def check_tokenizer_folders() -> None:
    """Hub-like folders: tokenizer.json, and the legacy vocab files alone, give the same tokenizer."""
    rt = RobertaTokenizerFast.from_pretrained(MODELS / "roberta_mlm")
    e = rt("Hello world")["input_ids"]
    toks = rt.convert_ids_to_tokens(e)
    assert toks[0] == "<s>" and toks[-1] == "</s>" and e[0] == 0 and e[-1] == 2, toks
    p = rt("Hello world", "The cat sat.")["input_ids"]
    a = rt("Hello world", add_special_tokens=False)["input_ids"]
    b = rt("The cat sat.", add_special_tokens=False)["input_ids"]
    assert p == [0] + a + [2, 2] + b + [2], p
    assert rt.mask_token == "<mask>" and rt.mask_token_id == len(rt) - 1
    assert rt.added_tokens_decoder[rt.mask_token_id].lstrip
    assert [rt.bos_token_id, rt.pad_token_id, rt.eos_token_id, rt.unk_token_id] == [0, 1, 2, 3]
    print(f"  roberta tokenizer: {len(rt)} entries; 'Hello world' -> {toks}; pair -> "
          f"{rt.convert_ids_to_tokens(p)}")
    probes = [t for t, _ in TOKENIZE_INPUTS] + ["the cat sat on the <mask> ."]
    legacy = {"roberta_mlm": ["vocab.json", "merges.txt", "tokenizer_config.json", "special_tokens_map.json"],
              "distil_mlm": ["vocab.txt", "tokenizer_config.json"]}
    for name, files in legacy.items():
        full = load_tokenizer(name)
        with tempfile.TemporaryDirectory() as tmp:
            for f in files:
                shutil.copyfile(MODELS / name / f, Path(tmp) / f)
            cls = DistilBertTokenizerFast if is_distil(name) else RobertaTokenizerFast
            alone = cls.from_pretrained(tmp)
            for s in probes:
                assert alone(s, truncation=True)["input_ids"] == full(s, truncation=True)["input_ids"], (name, s)
        print(f"  {name}: {'+'.join(files)} alone (no tokenizer.json) encode like tokenizer.json")


def verify(keys: dict) -> None:
    print("\nverify")
    check_tokenizer_folders()
    # the sinusoidal table: saved, exactly HF's sinusoids
    d = MODELS / "distil_seqcls"
    cfg = json.loads((d / "config.json").read_text())
    sin = sinusoids(cfg["max_position_embeddings"], cfg["dim"])
    saved = file_keys(d).get("distilbert.embeddings.position_embeddings.weight")
    assert saved is not None and torch.equal(saved, sin), "sinusoidal table"
    assert torch.equal(load_model("distil_seqcls").distilbert.embeddings.position_embeddings.weight, sin)
    print("  distil_seqcls: distilbert.embeddings.position_embeddings.weight is saved and equals "
          "create_sinusoidal_embeddings bit for bit")

    rows = []
    for name in FAMILIES:
        case = f"fam_{name}"
        path = REF / f"{case}.safetensors"
        with safe_open(str(path), "np") as f:
            md = f.metadata()
            t = {k: f.get_tensor(k) for k in f.keys()}
        assert md["model"] == rel(MODELS / name)
        cfg = json.loads((ROOT / md["model"] / "config.json").read_text())
        if is_distil(name):
            L, H, NH, V = cfg["n_layers"], cfg["dim"], cfg["n_heads"], cfg["vocab_size"]
        else:
            L, H, NH, V = (cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"],
                           cfg["vocab_size"])
        B, T = t["input_ids"].shape
        for k in ("input_ids", "token_type_ids", "attention_mask", "position_ids", "labels"):
            assert t[k].dtype == np.int64 and t[k].shape[0] == B, (case, k)
        for k in ("input_ids", "token_type_ids", "attention_mask", "position_ids"):
            assert t[k].shape == (B, T), (case, k)
        am = t["attention_mask"].astype(bool)
        assert am[:, 0].all() and (am.sum(1) < T).any(), (case, "right padding")
        assert (t["token_type_ids"] == 0).all()
        pos = t["position_ids"]
        if is_distil(name):
            assert (pos == np.arange(T)).all()
        else:
            pad = cfg["pad_token_id"]
            assert ((t["input_ids"] == pad) == ~am).all()
            assert (pos[:, 0] == pad + 1).all() and (pos[~am] == pad).all(), (case, pos)
            assert all((pos[b, am[b]] == np.arange(am[b].sum()) + pad + 1).all() for b in range(B))
            assert pos.max() < cfg["max_position_embeddings"]
        for i in range(L + 1):
            h = t[f"hidden_states.{i}"]
            assert h.dtype == np.float32 and h.shape == (B, T, H), (case, i, h.shape)
            assert np.isfinite(h).all() and h[am].std() > 0.1, (case, i)
        min_dev = []
        for i in range(L):
            a = t[f"attentions.{i}"]
            assert a.dtype == np.float32 and a.shape == (B, NH, T, T), (case, i, a.shape)
            assert np.allclose(a.sum(-1), 1.0, atol=1e-5), case
            assert (a * ~am[:, None, None, :]).max() < 1e-6, (case, "padded keys get attention")
            for b in range(B):
                n = am[b].sum()
                min_dev.append(np.abs(a[b][:, :n, :n] - 1.0 / n).max(-1).mean())
        assert min(min_dev) > 0.05, (case, "attention too uniform", min(min_dev))
        lg, lab = t["logits"], t["labels"]
        if name.endswith("_seqcls"):
            assert lg.shape == (B, cfg_num_labels(cfg)) and lab.shape == (B,)
        else:
            n_out = V if name.endswith("_mlm") else cfg_num_labels(cfg)
            assert lg.shape == (B, T, n_out) and lab.shape == (B, T) and lg[am].std() > 0.1
            assert (lab[~am] == -100).all() and (lab != -100).sum() >= 4
        assert t["loss"].shape == (1,) and np.isfinite(t["loss"]).all()

        stored = keys[name]["keys"]
        with safe_open(str(ROOT / md["model"] / "model.safetensors"), "np") as f:
            shapes = {k: f.get_slice(k).get_shape() for k in f.keys()}
        none = set(md.get("grad_none", "").split(",")) - {""}
        assert not none, (case, none)
        grads = {k[len("grad."):] for k in t if k.startswith("grad.")}
        assert grads == set(stored) - none, (case, sorted(grads ^ set(stored)))
        for n in grads:
            g = t[f"grad.{n}"]
            assert list(g.shape) == list(shapes[n]), (case, n)
            assert np.isfinite(g).all() and np.abs(g).max() > 0, (case, n, "zero grad")
        tied = dict(kv.split("=") for kv in md["tied"].split(",")) if "tied" in md else {}
        assert tied == keys[name]["tied"] and not set(tied) & set(shapes)
        assert all(s in shapes for s in tied.values())
        # padding_idx rows of nn.Embedding get no gradient
        # (through the lookup; a tied MLM decoder still gives the word row one)
        pad_rows = [] if is_distil(name) else [("roberta.embeddings.position_embeddings.weight", 1)]
        if not tied:
            pad_rows.append((f"{'distilbert' if is_distil(name) else 'roberta'}.embeddings.word_embeddings.weight",
                             cfg["pad_token_id"]))
        for n, r in pad_rows:
            assert (t[f"grad.{n}"][r] == 0).all(), (case, n)
        rows.append((case, md["model"], len(t), path.stat().st_size, f"{B}x{T}", f"{t['loss'][0]:.5f}",
                     md.get("tied", "-")))

    cases = json.loads(TOKENIZE_JSON.read_text())
    for c in cases:
        n = len(c["input_ids"])
        assert n <= MAX_LEN and all(len(c[k]) == n for k in ("tokens", "token_type_ids", "attention_mask",
                                                             "special_tokens_mask", "offsets", "offsets_bytes"))
    assert any(c["truncated"] for c in cases)

    print(f"\n{'case':<20} {'model':<36} {'BxT':>5} {'tensors':>7} {'bytes':>8} {'loss':>9}  tied")
    for case, m, n, size, bt, loss, tied in rows:
        print(f"{case:<20} {m:<36} {bt:>5} {n:>7} {size:>8} {loss:>9}  {tied}")
    mine = [p for name in FAMILIES for p in (MODELS / name).rglob("*") if p.is_file()]
    mine += [REF / f"fam_{name}.safetensors" for name in FAMILIES] + [TOKENIZE_JSON]
    total = sum(p.stat().st_size for p in mine)
    print(f"\nfiles written by this script: {len(mine)}, {total} bytes ({total / 2**20:.2f} MiB)")
    assert total < 2_000_000, "family fixtures exceed ~2 MB"


def cfg_num_labels(cfg: dict) -> int:
    return len(cfg["id2label"])


def main() -> None:
    print(VERSIONS)
    print("1. byte-level BPE")
    bpe = train_bpe()
    print(f"  {len(bpe[0])} entries ({len(bpe[1])} merges, 256 byte symbols, 4 specials + <mask>)")
    print("2. models")
    keys = {}
    for name in FAMILIES:
        keys[name] = make_model(name, bpe)
        print(f"  {name}: {FAMILIES[name][0].__name__}, {len(keys[name]['keys'])} tensors; tied "
              f"{keys[name]['tied'] or '-'}")
    print("3. reference cases")
    REF.mkdir(parents=True, exist_ok=True)
    for name in FAMILIES:
        run_case(name)
    print("4. tokenizer reference")
    make_tokenize_json()
    verify(keys)
    print("ok")


if __name__ == "__main__":
    main()
