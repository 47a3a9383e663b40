//! Tests of `train_state` (kept beside it so the module reads top to bottom).

use super::*;
use crate::explain::chart::SERIES_CAP;
use crate::explain::filmstrip::FILMSTRIP_CAP;
use crate::explain::training::Frame;
use crate::protocol::Progress;
use crate::run_state::Phase;

fn log(step: usize, loss: f32, eval: bool) -> LogPoint {
    LogPoint {
        step,
        loss,
        mlm_loss: None,
        nsp_loss: None,
        mlm_acc: 0.1,
        lr: 1e-3,
        tokens: 100,
        eval_loss: eval.then_some(loss + 0.5),
        eval_acc: eval.then_some(0.2),
    }
}

fn progress(steps: std::ops::RangeInclusive<usize>, running: bool) -> TrainAction {
    let logs: Vec<LogPoint> = steps.clone().map(|s| log(s, 7.0 - s as f32 * 0.01, s % 50 == 0)).collect();
    TrainAction::Event(TrainEvent::Progress(Progress {
        points: logs,
        step: *steps.end(),
        total: 200,
        running,
        per_s: 1000.0,
        ms_per_step: 20.0,
        memory: 1 << 20,
    }))
}

fn ready() -> TrainAction {
    TrainAction::Event(TrainEvent::Ready {
        ready: Box::new(TrainReady {
            info: ModelInfo { layers: 2, heads: 2, ..Default::default() },
            train_tokens: 5000,
            eval_loss: 7.0,
            eval_acc: 0.0,
        }),
        setup_ms: 10.0,
        device: "CPU (wasm)".into(),
    })
}

fn frame(step: usize) -> TrainAction {
    TrainAction::Event(TrainEvent::Show(TrainShow::Frame(Box::new(Frame {
        step,
        tokens: vec!["a".into(); 2],
        layers: 1,
        heads: 1,
        attention: vec![vec![0.5; 4]],
        mask_position: None,
        predictions: vec![],
    }))))
}

#[test]
fn the_form_parses_fields_and_locks_during_a_run() {
    let mut v = TrainView::default();
    v.apply(TrainAction::Edit(Field::Batch("8".into())));
    v.apply(TrainAction::Edit(Field::Batch("eight".into())));
    v.apply(TrainAction::Edit(Field::Lr("0.01".into())));
    v.apply(TrainAction::Edit(Field::Lr("inf".into())));
    v.apply(TrainAction::Edit(Field::Steps("240".into())));
    v.apply(TrainAction::Edit(Field::Seed("7".into())));
    v.apply(TrainAction::Edit(Field::SnapEvery("0".into())));
    let s = &v.form.setup;
    assert_eq!((s.batch, s.lr, s.steps, s.eval_every, s.seed, s.snap_every), (8, 0.01, 240, 20, 7, 10));
    v.apply(TrainAction::Edit(Field::Mode(TrainMode::Continue)));
    assert_eq!((v.form.setup.mode, v.form.setup.lr, v.form.setup.seed), (TrainMode::Continue, 1e-4, 7), "mode defaults, seed kept");
    let setup = v.form.setup(|p| format!("http://x/{p}"));
    assert_eq!(setup.corpus, CorpusSource::Url("http://x/corpora/simple.txt".into()));
    v.apply(TrainAction::Edit(Field::Corpus(Corpus::Custom)));
    v.apply(TrainAction::Edit(Field::Custom("some text".into())));
    assert_eq!(v.form.setup(|p| p.into()).corpus, CorpusSource::Text("some text".into()));
    v.apply(ready());
    v.apply(TrainAction::Edit(Field::Batch("64".into())));
    assert_eq!(v.form.setup.batch, 8, "locked during a run");
    assert_eq!(v.form.corpus, Corpus::Custom, "the form survives Ready");
}

#[test]
fn progress_fills_series_phase_and_eta() {
    let mut v = TrainView::default();
    v.apply(progress(1..=5, true));
    assert!(v.loss.is_empty(), "progress without a run is dropped");
    v.apply(TrainAction::Requested);
    assert!(matches!(v.run.phase, Phase::Preparing(_)));
    v.apply(ready());
    assert_eq!((v.run.phase.clone(), v.eval_loss.len()), (Phase::Paused, 1), "the held-out loss before training");
    v.apply(progress(1..=100, true));
    assert_eq!((v.run.step, v.run.steps, v.run.phase.clone(), v.run.memory), (100, 200, Phase::Running, 1 << 20));
    assert_eq!((v.loss.len(), v.eval_loss.len(), v.tokens_per_s.len()), (100, 3, 1));
    assert_eq!(v.run.fraction(), 0.5);
    let eta = v.eta_secs().unwrap();
    assert!((eta - 100.0 * 100.0 / 1000.0).abs() < 1e-9, "{eta}");
    v.apply(progress(101..=150, false));
    assert_eq!(v.run.phase, Phase::Paused);
    v.apply(TrainAction::Event(TrainEvent::Failed("nan".into())));
    assert_eq!((v.run.error.as_deref(), v.run.has_run), (Some("nan"), true));
    v.apply(progress(151..=200, false));
    assert_eq!(v.run.phase, Phase::Finished);
    for s in 201..=3000 {
        v.apply(progress(s..=s, true));
    }
    assert!(v.loss.len() <= SERIES_CAP, "bounded over a long run");
    v.apply(TrainAction::Event(TrainEvent::Reset));
    assert_eq!((v.run.has_run, v.loss.len(), v.run.phase.clone()), (false, 0, Phase::Idle));
}

#[test]
fn filmstrip_scrubbing_follows_the_latest_frame() {
    let mut v = TrainView::default();
    assert_eq!(v.scrubbed(), None);
    v.apply(ready());
    for s in [0, 10, 20] {
        v.apply(frame(s));
    }
    assert_eq!(v.scrubbed(), Some((0, 2)), "A = first, B = latest");
    v.apply(frame(30));
    assert_eq!(v.scrubbed(), Some((0, 3)), "B follows");
    v.apply(TrainAction::Edit(Field::ScrubB(Some(1))));
    v.apply(frame(40));
    assert_eq!(v.scrubbed(), Some((0, 1)), "a chosen B stays");
    v.apply(TrainAction::Edit(Field::ScrubA(Some(99))));
    assert_eq!(v.scrubbed(), Some((4, 1)), "clamped");
    for s in 5..400 {
        v.apply(frame(s * 10));
    }
    assert!(v.filmstrip.len() <= FILMSTRIP_CAP);
}
