//! Tests of `state` (kept beside it so the module reads top to bottom).

use super::*;

fn req(seq: u64) -> Request {
    Request { seq, text: format!("edit {seq}"), ..Default::default() }
}

#[test]
fn only_the_latest_waiting_request_is_sent() {
    let mut c = Coalescer::default();
    assert_eq!(c.submit(req(1)).map(|r| r.seq), Some(1));
    assert!(c.busy());
    for s in 2..=9 {
        assert_eq!(c.submit(req(s)), None, "queued while 1 runs");
    }
    assert_eq!(c.done(1).map(|r| r.seq), Some(9), "2..8 are dropped");
    assert_eq!(c.done(5), None, "a reply for something not in flight changes nothing");
    assert_eq!(c.done(9), None);
    assert!(!c.busy());
    assert_eq!(c.submit(req(9)), None, "the same edit is not sent twice");
    assert_eq!(c.submit(req(10)).map(|r| r.seq), Some(10));
}

#[test]
fn edits_bump_the_sequence_and_clear_stale_masks() {
    let mut s = AppState::from_url(&UrlState::parse("?text=a+b&mask=1"));
    assert_eq!(s.masked, [1]);
    let e = s.edit;
    s.apply(Action::SetText("a b".into()));
    assert_eq!(s.edit, e, "no change, no new request");
    s.apply(Action::SetText("a c".into()));
    assert_eq!((s.edit, s.masked.len()), (e + 1, 0));
    s.apply(Action::ToggleMask(2));
    s.apply(Action::ToggleMask(1));
    assert_eq!(s.masked, [1, 2]);
    s.apply(Action::ToggleMask(2));
    assert_eq!(s.masked, [1]);
    s.apply(Action::ToggleHead(1, 0));
    s.apply(Action::ToggleHead(0, 1));
    assert_eq!(s.request().heads_off, [(0, 1), (1, 0)]);
    s.apply(Action::ToggleHead(0, 1));
    assert_eq!(s.request().heads_off, [(1, 0)]);
    assert_eq!(s.request().seq, s.edit);
    assert_eq!(s.request().pair, None);
}

fn snap(seq: u64) -> Box<Snapshot> {
    Box::new(Snapshot {
        seq,
        tokens: vec![],
        scheme: String::new(),
        family: String::new(),
        mask_token: String::new(),
        anatomy: None,
        lens: vec![],
        layers: 0,
        heads: 0,
        attention: vec![],
        hidden: vec![],
        predictions: vec![],
        is_next: None,
        heads_off: vec![],
        truncated: false,
        task: None,
        forward_ms: 1.0,
        device: String::new(),
        head_detail: None,
        ffn_detail: None,
        embeddings: Default::default(),
    })
}

#[test]
fn replies_errors_and_loading() {
    let mut s = AppState::from_url(&UrlState::parse("?off=5.5&head=3.0"));
    assert_eq!(s.text, DEFAULT_TEXT);
    s.apply(Action::Engine(FromEngine::Progress { loaded: 10, total: 100 }));
    assert_eq!(s.load, Load::Fetching { loaded: 10, total: 100 });
    let info = ModelInfo { layers: 2, heads: 2, ..Default::default() };
    s.apply(Action::Fetched(40.0)); // the page's early download, then the worker's 5 ms
    s.apply(Action::Engine(FromEngine::Loaded { info, bytes: 100, ms: 5.0 }));
    assert!(s.ready());
    assert!(matches!(s.load, Load::Ready { ms, .. } if ms == 45.0), "{:?}", s.load);
    assert_eq!(s.fetched_ms, 0.0, "counted once");
    assert!(s.heads_off.is_empty() && s.selected.is_none(), "out-of-range state from the URL is dropped");

    let e = s.edit;
    s.apply(Action::Engine(FromEngine::Snapshot(snap(e))));
    assert_eq!(s.snapshot.as_ref().unwrap().seq, e);
    s.apply(Action::SetText(String::new()));
    s.apply(Action::Engine(FromEngine::Failed { seq: s.edit, message: "empty".into() }));
    assert_eq!(s.error.as_deref(), Some("empty"));
    assert!(s.snapshot.is_none());
    assert_eq!(s.shown, s.edit);
    s.apply(Action::SetText("x".into()));
    s.apply(Action::Engine(FromEngine::Failed { seq: s.edit - 1, message: "stale".into() }));
    assert_eq!(s.error.as_deref(), Some("empty"), "a stale failure is ignored");
    s.apply(Action::Engine(FromEngine::Snapshot(snap(s.edit))));
    assert_eq!(s.error, None);
    s.apply(Action::Engine(FromEngine::Snapshot(snap(1))));
    assert_eq!(s.snapshot.as_ref().unwrap().seq, s.edit, "an older snapshot does not replace a newer one");
    let small = ModelInfo { layers: 1, heads: 1, ..Default::default() };
    s.apply(Action::Select(Some((1, 1))));
    let e = s.edit;
    s.apply(Action::Engine(FromEngine::ModelChanged { info: small.clone(), trained: true }));
    assert_eq!((s.edit, s.trained, s.selected), (e + 1, true, None), "another model: a new request");
    assert!(matches!(&s.load, Load::Ready { info, .. } if *info == small));
    s.apply(Action::Engine(FromEngine::Compare { seq: s.edit, predictions: vec![] }));
    s.apply(Action::Engine(FromEngine::Compare { seq: s.edit - 1, predictions: vec![MaskPredictions { position: 1, top: vec![] }] }));
    assert_eq!(s.compare.as_ref().map(|c| (c.0, c.1.len())), Some((s.edit, 0)), "an older comparison does not replace a newer one");
    s.apply(Action::Engine(FromEngine::ModelChanged { info: small.clone(), trained: false }));
    assert!(s.compare.is_none() && !s.trained);
    s.apply(Action::Engine(FromEngine::Compare { seq: s.edit, predictions: vec![] }));
    assert!(s.compare.is_none(), "no comparison with the loaded model itself");
    s.apply(Action::Engine(FromEngine::LoadFailed("bad".into())));
    assert_eq!(s.load, Load::Failed("bad".into()));
}

#[test]
fn a_model_the_user_loads_replaces_the_old_one_only_when_it_loads() {
    let mut s = AppState::from_url(&UrlState::parse("?text=a+b&mask=1"));
    assert_eq!(s.model_label, crate::explain::models::DEFAULT.name);
    let info = ModelInfo { layers: 2, heads: 2, ..Default::default() };
    s.apply(Action::Engine(FromEngine::Loaded { info: info.clone(), bytes: 10, ms: 1.0 }));
    let e = s.edit;
    // a bad one: said, and the old model stays (no new request, nothing cleared)
    s.apply(Action::LoadModel { label: "mine (your files)".into(), path: None });
    s.apply(Action::Engine(FromEngine::Progress { loaded: 5, total: 9 }));
    assert_eq!(s.pending.as_ref().map(|p| (p.loaded, p.total)), Some((5, 9)));
    assert!(matches!(s.load, Load::Ready { bytes: 10, .. }), "progress of another model leaves the old one shown");
    s.apply(Action::Engine(FromEngine::LoadFailed("model.safetensors: truncated".into())));
    let m = s.model_error.clone().unwrap();
    let stays = format!("\"{}\" stays", crate::explain::models::DEFAULT.name);
    assert!(m.contains("mine (your files)") && m.contains(&stays) && m.contains("truncated"), "{m}");
    assert!(s.ready() && s.pending.is_none() && s.edit == e && s.masked == [1]);
    s.apply(Action::SetText("a c".into()));
    assert!(s.model_error.is_none(), "typing moves on");
    // a good one from a same-origin folder: kept in the URL, and the input is asked again
    s.apply(Action::LoadModel { label: "tiny".into(), path: Some("models/tiny/".into()) });
    s.apply(Action::ToggleMask(2));
    let e = s.edit;
    s.apply(Action::Engine(FromEngine::Positions(Box::default())));
    assert!(s.positions.is_some());
    s.apply(Action::Engine(FromEngine::Loaded { info, bytes: 20, ms: 1.0 }));
    assert_eq!((s.model.as_str(), s.model_label.as_str(), s.edit), ("models/tiny/", "tiny", e + 1));
    assert!(s.positions.is_none(), "the old model's position views go (the new ones follow its first answer)");
    assert!(s.masked.is_empty() && s.pending.is_none());
    assert_eq!(s.to_url().model.as_deref(), Some("models/tiny/"));
    s.apply(Action::ModelError("not a model".into()));
    assert_eq!(s.model_error.as_deref(), Some("not a model"));
}

#[test]
fn view_choices_live_in_the_url() {
    let s = AppState::from_url(&UrlState::parse("?text=hi&head=1.0&focus=0.1&ffn=1.3&hide=1&open=ffn,derived"));
    assert_eq!((s.selected, s.head_focus, s.ffn_focus), (Some((1, 0)), (0, 1), (1, 3)));
    assert!(s.hide_specials && s.ffn_steps && s.derived_open && !s.head_steps);
    assert!(s.request().ffn_steps && !s.request().head_steps, "an open fold from the URL is asked for");
    let q = s.to_url().to_query();
    assert_eq!(AppState::from_url(&UrlState::parse(&q)).to_url(), s.to_url(), "{q}");
    // the defaults stay out of the URL; an enlarged head is the focus without `focus=`
    let mut d = AppState::from_url(&UrlState::parse("?text=hi"));
    assert_eq!(d.to_url().to_query(), "?text=hi");
    d.apply(Action::Select(Some((1, 1))));
    assert_eq!(d.to_url().to_query(), "?text=hi&head=1.1");
    d.apply(Action::HideSpecials(true));
    d.apply(Action::ShowDerived(true));
    d.apply(Action::ShowSteps { head: true, open: true });
    assert_eq!(d.to_url().to_query(), "?text=hi&head=1.1&hide=1&open=steps,derived");
}

#[test]
fn focus_changes_ask_again_and_an_enlarged_head_is_focused() {
    let mut s = AppState::from_url(&UrlState::parse("?text=hi"));
    let e = s.edit;
    s.apply(Action::FocusHead(0, 0));
    assert_eq!(s.edit, e, "same focus, no request");
    s.apply(Action::Select(Some((1, 1))));
    assert_eq!((s.head_focus, s.edit, s.request().head_focus), ((1, 1), e + 1, (1, 1)));
    s.apply(Action::Select(None));
    assert_eq!(s.head_focus, (1, 1), "closing the enlarged view keeps the focus");
    s.apply(Action::FocusFfn(1, 4));
    assert_eq!((s.request().ffn_focus, s.edit), ((1, 4), e + 2));
    // closed views are not asked for; opening one asks again, closing does not
    assert!(!s.request().head_steps && !s.request().ffn_steps);
    s.apply(Action::ShowSteps { head: true, open: true });
    assert_eq!((s.request().head_steps, s.request().ffn_steps, s.edit), (true, false, e + 3));
    s.apply(Action::ShowSteps { head: true, open: false });
    assert_eq!((s.request().head_steps, s.edit), (false, e + 3));
    s.apply(Action::Engine(FromEngine::Loaded { info: ModelInfo { layers: 1, heads: 1, ..Default::default() }, bytes: 0, ms: 0.0 }));
    assert_eq!((s.head_focus, s.ffn_focus), ((0, 0), (0, 4)));
}

#[test]
fn url_round_trip() {
    let mut s = AppState::from_url(&UrlState::parse("?text=hi&pair=there&model=models/x"));
    s.apply(Action::Select(Some((1, 0))));
    s.apply(Action::SetPresenter(true));
    let back = AppState::from_url(&UrlState::parse(&s.to_url().to_query()));
    assert_eq!(
        (back.text, back.pair, back.selected, back.model, back.presenter),
        (s.text.clone(), s.pair.clone(), s.selected, s.model.clone(), true)
    );
    s.apply(Action::SetPresenter(false));
    assert!(!s.to_url().to_query().contains("present"));
}

#[test]
fn a_bundled_model_is_named_by_its_key_in_the_url() {
    use crate::explain::models::{BUNDLED, DEFAULT};
    for b in BUNDLED {
        let s = AppState::from_url(&UrlState::parse(&format!("?model={}", b.key)));
        assert_eq!((s.model.as_str(), s.model_label.as_str()), (b.folder, b.name));
        let url = s.to_url().to_query();
        if b == DEFAULT {
            assert!(!url.contains("model="), "the default is not written: {url}");
        } else {
            assert!(url.contains(&format!("model={}", b.key)), "{url}");
        }
        // the folder works as well as the key
        let s = AppState::from_url(&UrlState::parse(&format!("?model={}", b.folder)));
        assert_eq!(s.model_label, b.name);
    }
    let s = AppState::from_url(&UrlState::parse("?model=models/mine"));
    assert_eq!((s.model.as_str(), s.model_label.as_str()), ("models/mine/", "mine"));
}

#[test]
fn the_probe_opens_its_head_on_a_sentence_with_a_word_selected_until_another_head_is() {
    let mut s = AppState::from_url(&UrlState::default());
    let edit = s.edit;
    s.apply(Action::OpenOn { text: "he ran.".into(), head: (0, 1), word: Some("he".into()) });
    assert_eq!((s.text.as_str(), s.selected, s.head_focus, s.select_word.as_deref()), ("he ran.", Some((0, 1)), (0, 1), Some("he")));
    assert!(s.edit > edit, "the new text is asked for");
    s.apply(Action::Select(Some((1, 0))));
    assert_eq!(s.select_word, None, "another head: no word kept");
}
