//! The engine's Web Worker (a yew-agent reactor): loads a model folder from the page's origin with
//! progress, then answers each request with a snapshot computed on the CPU path.

use super::fetch::{content_length, now_ms, response, start, Body};
use super::protocol::{FromEngine, ToEngine};
use crate::bundle::{Bert, ModelFiles};
use crate::error::BertError;
use crate::explain::{build, ModelInfo};
use futures::{SinkExt, StreamExt};
use yew_agent::reactor::{reactor, ReactorScope};

type Scope = ReactorScope<ToEngine, FromEngine>;

#[reactor]
pub async fn Engine(mut scope: ReactorScope<ToEngine, FromEngine>) {
    console_error_panic_hook::set_once();
    let mut bert: Option<Bert> = None;
    while let Some(msg) = scope.next().await {
        let reply = match msg {
            ToEngine::Load { base_url } => match load(&base_url, &mut scope).await {
                Ok((b, bytes, ms)) => {
                    let info = ModelInfo::of(&b);
                    bert = Some(b);
                    FromEngine::Loaded { info, bytes, ms }
                }
                // the model loaded before (if any) stays
                Err(e) => FromEngine::LoadFailed(e),
            },
            ToEngine::Explain(req) => match &bert {
                None => FromEngine::Failed { seq: req.seq, message: "The model is not loaded yet.".into() },
                Some(b) => {
                    let t0 = now_ms();
                    match build(b, &req) {
                        Ok(mut s) => {
                            s.forward_ms = now_ms() - t0;
                            FromEngine::Snapshot(Box::new(s))
                        }
                        Err(BertError::Input(m)) => FromEngine::Failed { seq: req.seq, message: m },
                        Err(e) => FromEngine::Failed { seq: req.seq, message: e.to_string() },
                    }
                }
            },
        };
        if scope.send(reply).await.is_err() {
            break;
        }
    }
}

/// Fetches config.json, model.safetensors, tokenizer.json (or vocab.txt) and tokenizer_config.json
/// from `base` (an absolute URL ending in `/`) and loads them. Returns the model, the bytes fetched
/// and the milliseconds it took.
async fn load(base: &str, scope: &mut Scope) -> Result<(Bert, u64, f64), String> {
    let t0 = now_ms();
    let names = ["config.json", "tokenizer_config.json", "tokenizer.json", "model.safetensors"];
    let urls: Vec<String> = names.iter().map(|n| format!("{base}{n}")).collect();
    let pending: Vec<_> = urls.iter().map(|u| start(u)).collect(); // all four in flight at once
    let mut responses = Vec::new();
    for (p, url) in pending.into_iter().zip(&urls) {
        responses.push(response(p, url).await?);
    }
    let [config, tok_config, tokenizer, weights] = <[_; 4]>::try_from(responses).map_err(|_| "fetch".to_string())?;
    for (r, name) in [(&config, "config.json"), (&weights, "model.safetensors")] {
        if !r.ok() {
            return Err(format!("{name}: HTTP {} at {base}{name}", r.status()));
        }
    }
    // vocab.txt only when there is no tokenizer.json
    let vocab = if tokenizer.ok() {
        None
    } else {
        let url = format!("{base}vocab.txt");
        let r = response(start(&url), &url).await?;
        if !r.ok() {
            return Err(format!("the model folder {base} has neither tokenizer.json nor vocab.txt"));
        }
        Some(r)
    };
    let parts: Vec<&web_sys::Response> =
        [Some(&config), tok_config.ok().then_some(&tok_config), tokenizer.ok().then_some(&tokenizer), vocab.as_ref(), Some(&weights)]
            .into_iter()
            .flatten()
            .collect();
    let mut total: u64 = parts.iter().map(|r| content_length(r).unwrap_or(0)).sum();
    let (mut loaded, mut reported) = (0u64, 0u64);
    let mut bodies = Vec::new();
    for r in parts {
        let mut body = Body::new(r);
        while let Some(n) = body.next().await? {
            loaded += n as u64;
            total = total.max(loaded); // a compressed Content-Length undercounts
            if loaded - reported >= 256 * 1024 {
                reported = loaded;
                let _ = scope.send(FromEngine::Progress { loaded, total }).await;
            }
        }
        bodies.push(body.bytes);
    }
    let _ = scope.send(FromEngine::Progress { loaded, total: loaded }).await;

    let text = |b: Vec<u8>, name: &str| String::from_utf8(b).map_err(|_| format!("{name} is not UTF-8 text"));
    let mut bodies = bodies.into_iter();
    let mut next = || bodies.next().unwrap_or_default();
    let config_json = text(next(), "config.json")?;
    let tokenizer_config_json = if tok_config.ok() { Some(text(next(), "tokenizer_config.json")?) } else { None };
    let tokenizer_json = if tokenizer.ok() { Some(next()) } else { None };
    let vocab_txt = if vocab.is_some() { Some(text(next(), "vocab.txt")?) } else { None };
    let files = ModelFiles { config_json, weights: next(), tokenizer_json, vocab_txt, tokenizer_config_json };
    let bert = Bert::from_files(&files).map_err(|e| e.to_string())?;
    Ok((bert, loaded, now_ms() - t0))
}

