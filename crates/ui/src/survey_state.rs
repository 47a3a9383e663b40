//! The head map's state (part of the explainer's `AppState`): the survey's progress, its report
//! (kept per model, so switching back shows it again without a new scan), the role picked in the
//! filter and the head in focus. Pure: tested natively.

use crate::explain::coref::CorefReport;
use crate::explain::head_stats::{HeadStats, Role, SurveyReport};
use crate::protocol::SurveyEvent;
use std::rc::Rc;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SurveyView {
    /// The model the report and the progress are for (its label).
    pub model: String,
    /// A survey or the coreference probe runs (or is paused) in the worker.
    pub active: bool,
    /// Which: the probe (true) or the survey.
    pub probing: bool,
    /// The last survey's search index and the worker's wasm memory after it, in bytes.
    pub index_bytes: u64,
    pub memory: u64,
    pub running: bool,
    pub done: usize,
    pub total: usize,
    pub ms: f64,
    pub report: Option<Rc<SurveyReport>>,
    pub error: Option<String>,
    /// Only heads of this role are highlighted.
    pub filter: Option<Role>,
    /// The head whose numbers are shown.
    pub focus: Option<(usize, usize)>,
    /// Reports of the models surveyed before (model label, report).
    done_for: Vec<(String, Rc<SurveyReport>)>,
    /// The coreference probe's report, and those of the models probed before.
    pub coref: Option<Rc<CorefReport>>,
    coref_for: Vec<(String, Rc<CorefReport>)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SurveyAction {
    /// The page asked the worker to start the survey (for this model).
    Started(String),
    /// ... or the coreference probe.
    StartedProbe(String),
    Filter(Option<Role>),
    Focus(Option<(usize, usize)>),
}

impl SurveyView {
    pub fn apply(&mut self, a: SurveyAction) {
        let probing = matches!(a, SurveyAction::StartedProbe(_));
        match a {
            SurveyAction::Started(model) | SurveyAction::StartedProbe(model) => {
                self.probing = probing;
                self.model = model;
                (self.active, self.running, self.done, self.total, self.ms) = (true, true, 0, 0, 0.0);
                self.error = None;
            }
            SurveyAction::Filter(r) => self.filter = r,
            SurveyAction::Focus(f) => self.focus = f,
        }
    }

    pub fn on_event(&mut self, ev: SurveyEvent) {
        match ev {
            SurveyEvent::Progress { done, total, ms, running } => {
                (self.active, self.running, self.done, self.total, self.ms) = (true, running, done, total, ms);
            }
            SurveyEvent::Done { report, ms, index_bytes, memory } => {
                (self.index_bytes, self.memory) = (index_bytes, memory);
                let report = Rc::new(*report);
                self.done_for.retain(|(m, _)| *m != self.model);
                self.done_for.push((self.model.clone(), report.clone()));
                (self.active, self.running, self.done, self.ms) = (false, false, self.total, ms);
                self.report = Some(report);
            }
            SurveyEvent::CorefDone { report, ms } => {
                let report = Rc::new(*report);
                self.coref_for.retain(|(m, _)| *m != self.model);
                self.coref_for.push((self.model.clone(), report.clone()));
                (self.active, self.running, self.done, self.ms) = (false, false, self.total, ms);
                self.coref = Some(report);
            }
            SurveyEvent::Stopped(why) => {
                (self.active, self.running) = (false, false);
                self.error = why;
            }
        }
    }

    /// Another model answers: its report if it was surveyed before, else none.
    pub fn switch_model(&mut self, model: &str) {
        if model == self.model {
            return;
        }
        self.model = model.to_string();
        self.report = self.done_for.iter().find(|(m, _)| m == model).map(|(_, r)| r.clone());
        self.coref = self.coref_for.iter().find(|(m, _)| m == model).map(|(_, r)| r.clone());
        (self.active, self.running, self.done, self.total) = (false, false, 0, 0);
        self.focus = None;
    }

    /// The statistics of head (layer, head), when surveyed.
    pub fn head(&self, layer: usize, head: usize) -> Option<&HeadStats> {
        self.report.as_ref()?.heads.iter().find(|h| h.layer == layer && h.head == head)
    }

    /// How many heads have each role, in `Role::ALL`'s order.
    pub fn role_counts(&self) -> Vec<(Role, usize)> {
        let heads = self.report.as_ref().map_or(&[][..], |r| &r.heads[..]);
        Role::ALL.iter().map(|&r| (r, heads.iter().filter(|h| h.role == r).count())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::head_stats::Survey;

    fn report() -> SurveyReport {
        let mut s = Survey::new(1, 2, 1);
        s.add(0, &[crate::explain::head_stats::Kind::Cls, crate::explain::head_stats::Kind::Word], |_, h| {
            if h == 0 {
                &[1.0, 0.0, 1.0, 0.0]
            } else {
                &[0.5, 0.5, 0.5, 0.5]
            }
        });
        SurveyReport { sentences: 1, queries: 2, truncated: 0, heads: s.stats() }
    }

    #[test]
    fn a_survey_runs_pauses_finishes_and_is_kept_per_model() {
        let mut v = SurveyView::default();
        v.apply(SurveyAction::Started("MiniLM".into()));
        assert!(v.active && v.running);
        v.on_event(SurveyEvent::Progress { done: 10, total: 1000, ms: 50.0, running: false });
        assert!(v.active && !v.running && v.done == 10);
        v.on_event(SurveyEvent::Done { report: Box::new(report()), ms: 900.0, index_bytes: 10, memory: 20 });
        assert!(!v.active && v.report.is_some() && v.done == 1000);
        assert_eq!(v.role_counts().iter().map(|(_, n)| n).sum::<usize>(), 2);
        assert_eq!(v.head(0, 0).unwrap().role, Role::Cls);
        v.switch_model("bert-tiny");
        assert!(v.report.is_none(), "another model: no report until surveyed");
        v.switch_model("MiniLM");
        assert!(v.report.is_some(), "back: the report kept for it");
    }

    #[test]
    fn the_probe_s_report_is_kept_per_model_beside_the_survey_s() {
        let mut v = SurveyView::default();
        v.apply(SurveyAction::StartedProbe("MiniLM".into()));
        assert!(v.probing && v.active);
        let best = crate::explain::coref::HeadScore { layer: 0, head: 9, dev: 0.9, test: 0.88 };
        let report = CorefReport {
            dev_sentences: 2,
            test_sentences: 2,
            best: best.clone(),
            nearest_noun: crate::explain::coref::Baseline { dev: 0.5, test: 0.5 },
            heads: vec![best],
        };
        v.on_event(SurveyEvent::CorefDone { report: Box::new(report), ms: 3.0 });
        assert!(!v.active && v.coref.as_ref().is_some_and(|r| r.best.head == 9) && v.report.is_none());
        v.switch_model("bert-tiny");
        assert!(v.coref.is_none());
        v.switch_model("MiniLM");
        assert!(v.coref.is_some());
    }

    #[test]
    fn a_stopped_survey_says_why() {
        let mut v = SurveyView::default();
        v.apply(SurveyAction::Started("MiniLM".into()));
        v.on_event(SurveyEvent::Stopped(Some("The model changed".into())));
        assert!(!v.active && v.error.as_deref() == Some("The model changed"));
        v.apply(SurveyAction::Started("MiniLM".into()));
        assert_eq!(v.error, None);
        v.on_event(SurveyEvent::Stopped(None));
        assert_eq!((v.active, v.error.clone()), (false, None), "cancelled: nothing to say");
    }
}
