//! Loading a model folder from the page's origin, all files in flight at once, with progress.

use super::*;

/// Fetches config.json, model.safetensors, tokenizer.json (or vocab.txt) and tokenizer_config.json
/// from `base` (an absolute URL ending in `/`) and loads them. Returns the model, the bytes fetched
/// and the milliseconds it took.
pub(super) async fn load(base: &str, scope: &mut Scope) -> Result<(Bert, u64, f64), String> {
    let t0 = now_ms();
    span_start("load-fetch");
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
    // progress at most every LOAD_PROGRESS_MS: each message re-renders the page, which would take
    // the main thread's time from the load it reports on
    // (the first chunk is reported at once: a download that then stalls still shows it began)
    let (mut loaded, mut reported_at) = (0u64, now_ms() - LOAD_PROGRESS_MS);
    let mut bodies = Vec::new();
    for r in parts {
        let mut body = Body::new(r);
        while let Some(n) = body.next().await? {
            loaded += n as u64;
            total = total.max(loaded); // a compressed Content-Length undercounts
            if now_ms() - reported_at >= LOAD_PROGRESS_MS {
                reported_at = now_ms();
                let _ = scope.send(FromEngine::Progress { loaded, total }).await;
            }
        }
        bodies.push(body.bytes);
    }
    let _ = scope.send(FromEngine::Progress { loaded, total: loaded }).await;
    span_end("load-fetch");

    let text = |b: Vec<u8>, name: &str| String::from_utf8(b).map_err(|_| format!("{name} is not UTF-8 text"));
    let mut bodies = bodies.into_iter();
    let mut next = || bodies.next().unwrap_or_default();
    let config_json = text(next(), "config.json")?;
    let tokenizer_config_json = if tok_config.ok() { Some(text(next(), "tokenizer_config.json")?) } else { None };
    let tokenizer_json = if tokenizer.ok() { Some(next()) } else { None };
    let vocab_txt = if vocab.is_some() { Some(text(next(), "vocab.txt")?) } else { None };
    let files = ModelFiles { config_json, weights: next(), tokenizer_json, vocab_txt, tokenizer_config_json, ..Default::default() };
    span_start("load-parse");
    let bert = Bert::from_files(&files).map_err(|e| e.to_string())?;
    span_end("load-parse");
    Ok((bert, loaded, now_ms() - t0))
}
