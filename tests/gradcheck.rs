//! Whole-model gradient check in f64: every parameter's analytic gradient against central
//! differences of the loss, for each architecture variant the engine supports.

use bertscope::config::{BertConfig, Heads, PositionEncoding, TaskKind};
use bertscope::model::backward::{loss_and_grads, Targets};
use bertscope::model::forward::Batch;
use bertscope::model::task::TaskLabels;
use bertscope::model::BertParams;
use bertscope::rng::Rng;

fn small_cfg(act: &str) -> BertConfig {
    let mut c = BertConfig::new(13, 6, 2, 2, 7, 8);
    c.hidden_act = act.into();
    c.layer_norm_eps = 1e-5;
    c.type_vocab_size = 2;
    // no padding_idx: the check differentiates the function as written, every path included
    c.extra.insert("pad_token_id".into(), serde_json::Value::Null);
    c
}

/// Non-trivial parameters: N(0, 0.5) everywhere, LayerNorm gains around 1.
fn params(cfg: &BertConfig, heads: Heads, seed: u64) -> BertParams<f64> {
    let mut p = BertParams::<f64>::init(cfg, heads, seed);
    let mut rng = Rng::new(seed + 100);
    for (name, mut t) in p.tensors_mut() {
        let base = if name.contains("LayerNorm.weight") { 1.0 } else { 0.0 };
        t.mapv_inplace(|_| base + 0.5 * rng.normal());
    }
    p
}

fn batch() -> (Batch, Targets) {
    // B = 2, T = 5; row 1 padded after 3 tokens.
    let input_ids = vec![1, 4, 7, 2, 9, 1, 5, 12, 0, 0];
    let token_type_ids = vec![0, 0, 1, 1, 1, 0, 0, 1, 0, 0];
    let attention_mask = vec![1, 1, 1, 1, 1, 1, 1, 1, 0, 0];
    let labels = vec![-100, 3, -100, 11, -100, -100, 6, -100, -100, -100];
    let b = Batch { b: 2, t: 5, input_ids, token_type_ids, attention_mask };
    (b, Targets { mlm_labels: Some(labels), nsp_labels: Some(vec![0, 1]), task: None })
}

fn check(name: &str, cfg: &BertConfig, heads: Heads, head_mask: bool, dropout: Option<u64>) {
    let (_, mut targets) = batch();
    if !heads.nsp {
        targets.nsp_labels = None;
    }
    check_with(name, cfg, heads, head_mask, dropout, targets);
}

fn check_with(name: &str, cfg: &BertConfig, heads: Heads, head_mask: bool, dropout: Option<u64>, targets: Targets) {
    let p = params(cfg, heads, 7);
    let (b, _) = batch();
    let hm = head_mask.then(|| ndarray::arr2(&[[1.0, 0.0], [0.5, 1.0]]));
    let loss_of = |p: &BertParams<f64>| -> (f64, BertParams<f64>) {
        let opts_rows = targets.labelled_rows();
        let opts = bertscope::model::ForwardOptions {
            head_mask: hm.clone(),
            mlm_rows: bertscope::model::MlmRows::Rows(opts_rows),
            dropout_seed: dropout,
            // a head that reads only [CLS] is checked on the training path that runs the last
            // layer past its attention for those rows only
            last_layer_rows: if dropout.is_none() { targets.pooled_rows(b.b, b.t) } else { None },
            ..Default::default()
        };
        let mut tr = bertscope::model::forward(p, cfg, &b, &opts).unwrap();
        let mut g = p.zeros_like();
        let l = bertscope::model::backward(p, cfg, &b, &mut tr, &targets, &mut g).unwrap();
        (l.loss, g)
    };
    if hm.is_none() {
        // the convenience path agrees with the explicit one
        let (l, _, _) = loss_and_grads(&p, cfg, &b, &targets, dropout).unwrap();
        assert!((l.loss - loss_of(&p).0).abs() < 1e-12);
    }
    let (loss, grads) = loss_of(&p);
    assert!(loss.is_finite() && loss > 0.0, "{name}: loss {loss}");
    if dropout.is_none() && targets.pooled_rows(b.b, b.t).is_some() {
        // and it gives the whole layer's loss and gradients
        let (full, full_grads, _) = loss_and_grads(&p, cfg, &b, &targets, None).unwrap();
        assert!((full.loss - loss).abs() < 1e-12, "{name}: [CLS]-only last layer loss {loss} vs {}", full.loss);
        for ((n, a), (_, w)) in grads.tensors().into_iter().zip(full_grads.tensors()) {
            let d = a.iter().zip(w.iter()).fold(0f64, |m, (x, y)| m.max((x - y).abs()));
            assert!(d < 1e-12, "{name}: {n} differs by {d:e} from the whole layer's gradient");
        }
    }
    let analytic: Vec<(String, Vec<f64>)> = grads.tensors().into_iter().map(|(n, g)| (n, g.iter().copied().collect())).collect();
    let h = 1e-5;
    let mut checked = 0;
    for (ti, (tname, an)) in analytic.iter().enumerate() {
        let scale = an.iter().fold(1e-3f64, |m, v| m.max(v.abs()));
        for (i, &a) in an.iter().enumerate() {
            let bump = |d: f64| {
                let mut q = p.clone();
                let mut ts = q.tensors_mut();
                let t = &mut ts[ti].1;
                let v = t.iter_mut().nth(i).unwrap();
                *v += d;
                drop(ts);
                loss_of(&q).0
            };
            let num = (bump(h) - bump(-h)) / (2.0 * h);
            let err = (a - num).abs();
            assert!(err <= 1e-6 + 1e-4 * scale, "{name}: {tname}[{i}] analytic {a} numeric {num}");
            checked += 1;
        }
    }
    assert_eq!(checked, p.num_params());
}

#[test]
fn gelu_masked_lm() {
    check("gelu", &small_cfg("gelu"), Heads::MASKED_LM, false, None);
}

#[test]
fn relu_untied_decoder() {
    let mut c = small_cfg("relu");
    c.tie_word_embeddings = false;
    check("relu untied", &c, Heads::MASKED_LM, false, None);
}

#[test]
fn gelu_new_pretraining_with_nsp() {
    check("nsp", &small_cfg("gelu_new"), Heads::PRETRAINING, false, None);
}

#[test]
fn sinusoidal_positions() {
    let mut c = small_cfg("gelu");
    c.position_encoding = PositionEncoding::Sinusoidal;
    check("sinusoidal", &c, Heads::MASKED_LM, false, None);
}

#[test]
fn head_mask_switches_heads_off() {
    check("head mask", &small_cfg("gelu"), Heads::PRETRAINING, true, None);
}

#[test]
fn seeded_dropout() {
    let mut c = small_cfg("gelu");
    c.hidden_dropout_prob = 0.2;
    c.attention_probs_dropout_prob = 0.2;
    check("dropout", &c, Heads::PRETRAINING, false, Some(42));
}

fn task(labels: TaskLabels) -> Targets {
    Targets { mlm_labels: None, nsp_labels: None, task: Some(labels) }
}

#[test]
fn sequence_classification_through_the_pooler() {
    let heads = Heads::for_task(TaskKind::SequenceClassification, 3);
    check_with("seq cls", &small_cfg("gelu"), heads, false, None, task(TaskLabels::Classes(vec![2, 0])));
    let mut c = small_cfg("gelu");
    c.hidden_dropout_prob = 0.2;
    check_with("seq cls, dropout", &c, heads, false, Some(5), task(TaskLabels::Classes(vec![1, -100])));
}

#[test]
fn regression_with_one_output_is_mse() {
    let heads = Heads::for_task(TaskKind::SequenceClassification, 1);
    check_with("regression", &small_cfg("gelu"), heads, false, None, task(TaskLabels::Scores(vec![0.7, -1.2])));
}

#[test]
fn token_classification_ignores_minus_100() {
    let heads = Heads::for_task(TaskKind::TokenClassification, 4);
    let tags = vec![-100, 3, 0, 1, -100, -100, 2, 2, -100, -100];
    check_with("token cls", &small_cfg("relu"), heads, false, None, task(TaskLabels::Tags(tags)));
}

#[test]
fn question_answering_start_and_end() {
    let heads = Heads::for_task(TaskKind::QuestionAnswering, 2);
    // the second start is past the sequence (clamped to T and ignored), the second end negative (clamped to 0)
    let spans = TaskLabels::Spans { start: vec![1, 9], end: vec![3, -4] };
    check_with("qa", &small_cfg("gelu"), heads, false, None, task(spans));
}

/// An encoder-decoder in f64: every parameter of both halves and `enc_to_dec_proj` against
/// central differences of the teacher-forced loss (padded sources and targets, a causal decoder
/// with cross-attention, a narrower encoder).
#[test]
fn encoder_decoder_gradients_match_finite_differences() {
    use bertscope::model::params::Linear;
    use bertscope::seq2seq::forward::{loss_and_grads as s2s_loss, Seq2SeqBatch};
    use bertscope::seq2seq::{Seq2SeqConfig, Seq2SeqParams};
    let enc = small_cfg("gelu");
    let mut dec = BertConfig::new(13, 4, 1, 2, 5, 8);
    dec.layer_norm_eps = 1e-5;
    dec.is_decoder = true;
    dec.add_cross_attention = true;
    dec.extra.insert("pad_token_id".into(), serde_json::Value::Null);
    let raw = serde_json::json!({
        "model_type": "encoder-decoder", "decoder_start_token_id": 1, "pad_token_id": 0, "eos_token_id": 2,
        "encoder": serde_json::from_str::<serde_json::Value>(&enc.to_json()).unwrap(),
        "decoder": serde_json::from_str::<serde_json::Value>(&dec.to_json()).unwrap(),
    });
    let cfg = Seq2SeqConfig::from_json(&raw.to_string()).unwrap();
    let mut rng = Rng::new(77);
    let p = Seq2SeqParams {
        encoder: params(&cfg.encoder, Heads::BASE_MODEL, 5),
        decoder: params(&cfg.decoder, Heads::MASKED_LM, 6),
        proj: Some(Linear {
            weight: ndarray::Array2::from_shape_simple_fn((4, 6), || 0.5 * rng.normal()),
            bias: ndarray::Array1::from_shape_simple_fn(4, || 0.5 * rng.normal()),
        }),
    };
    let (src, _) = batch();
    let tgt = Batch {
        b: 2,
        t: 4,
        input_ids: vec![1, 5, 7, 9, 1, 3, 0, 0],
        token_type_ids: vec![0; 8],
        attention_mask: vec![1, 1, 1, 1, 1, 1, 0, 0],
    };
    let labels = vec![5, 7, 9, 2, 3, 2, -100, -100];
    let batch = Seq2SeqBatch { src, tgt };
    let out = s2s_loss(&p, &cfg, &batch, &labels).unwrap();
    let loss_at = |q: &Seq2SeqParams<f64>| s2s_loss(q, &cfg, &batch, &labels).unwrap().loss;
    let grads: Vec<(String, Vec<f64>)> = out.grads.tensors().into_iter().map(|(n, t)| (n, t.iter().copied().collect())).collect();
    let eps = 1e-5;
    let mut checked = 0;
    for (ti, (name, g)) in grads.iter().enumerate() {
        // every element of small tensors, a spread of the large ones
        let n = g.len();
        let stride = (n / 12).max(1);
        for i in (0..n).step_by(stride) {
            let mut plus = p.clone();
            plus.tensors_mut()[ti].1.as_slice_mut().unwrap()[i] += eps;
            let mut minus = p.clone();
            minus.tensors_mut()[ti].1.as_slice_mut().unwrap()[i] -= eps;
            let num = (loss_at(&plus) - loss_at(&minus)) / (2.0 * eps);
            let d = (num - g[i]).abs();
            assert!(d <= 1e-6 + 1e-5 * num.abs().max(g[i].abs()), "{name}[{i}]: analytic {} vs numeric {num}", g[i]);
            checked += 1;
        }
    }
    assert!(grads.iter().any(|(n, _)| n.contains("crossattention")) && grads.iter().any(|(n, _)| n == "enc_to_dec_proj.weight"));
    assert!(checked > 300, "{checked}");
}
