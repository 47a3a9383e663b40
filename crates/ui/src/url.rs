//! The page's state in its URL: `?text=..&pair=..&mask=2,5&off=0.1,1.0&head=1.0&focus=1.1&ffn=0.4
//! &hide=1&open=steps,ffn,derived,why&model=..`.
//! Query strings are read and written here (percent-encoding, UTF-8), so `?text=` works when
//! opened directly and a shared link shows the same view.

use crate::explain::models::bundled;
use crate::protocol::DevicePref;

/// What the URL holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UrlState {
    pub text: Option<String>,
    pub pair: String,
    /// Token positions masked by a click.
    pub masked: Vec<usize>,
    /// (layer, head) switched off.
    pub heads_off: Vec<(usize, usize)>,
    /// The enlarged heatmap (layer, head).
    pub selected: Option<(usize, usize)>,
    /// A model folder on the same origin (relative path); None = the default model.
    pub model: Option<String>,
    /// `device=cpu|webgpu|auto`; None = auto.
    pub device: Option<DevicePref>,
    /// `present=1`: presenter mode (everything larger, for a projector).
    pub present: bool,
    /// `focus=L.H`: the head shown step by step, when not the enlarged one (or 0.0 without one).
    pub focus: Option<(usize, usize)>,
    /// `ffn=L.T`: the (layer, token) of the FFN view, when not 0.0.
    pub ffn: Option<(usize, usize)>,
    /// `hide=1`: [CLS]/[SEP] hidden in the attention views.
    pub hide: bool,
    /// `open=steps,ffn,derived,why`: the folds open (one head step by step, the FFN, head average
    /// and rollout, why this prediction), in that order; other names are ignored.
    pub open: Vec<String>,
    /// `bench=attribution`: the worker times the attribution rows once the model is loaded (a
    /// benchmark, `tests/e2e/bench_why.mjs`; not written back into the link).
    pub bench: bool,
}

/// The fold names `open=` knows.
pub const FOLDS: [&str; 4] = ["steps", "ffn", "derived", "why"];

/// Decodes `%XX` and `+` (a space) of one query component; invalid escapes are kept as they are,
/// invalid UTF-8 becomes U+FFFD.
pub fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes everything but the unreserved characters (`A-Z a-z 0-9 - _ . ~`).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if c.is_ascii_alphanumeric() || b"-_.~".contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    out
}

fn pairs(list: &str) -> Vec<(usize, usize)> {
    list.split(',')
        .filter_map(|p| {
            let (a, b) = p.split_once('.')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        })
        .collect()
}

/// A model path is accepted only when it stays on this origin: relative, no scheme, no `..`.
pub fn safe_model_path(p: &str) -> Option<String> {
    let p = p.trim();
    let bad = p.is_empty() || p.contains(':') || p.starts_with('/') || p.starts_with('\\') || p.split(['/', '\\']).any(|seg| seg == "..");
    if bad {
        return None;
    }
    Some(if p.ends_with('/') { p.to_string() } else { format!("{p}/") })
}

impl UrlState {
    /// Reads `location.search` (with or without the leading `?`).
    pub fn parse(search: &str) -> Self {
        let mut st = UrlState::default();
        for part in search.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            let v = decode(v);
            match decode(k).as_str() {
                "text" => st.text = Some(v),
                "pair" => st.pair = v,
                "mask" => st.masked = v.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
                "off" => st.heads_off = pairs(&v),
                "head" => st.selected = pairs(&v).first().copied(),
                "model" => st.model = bundled(&v).map(|b| b.folder.to_string()).or_else(|| safe_model_path(&v)),
                "device" => st.device = DevicePref::from_key(&v),
                "present" => st.present = v != "0",
                "focus" => st.focus = pairs(&v).first().copied(),
                "ffn" => st.ffn = pairs(&v).first().copied(),
                "hide" => st.hide = v != "0",
                "bench" => st.bench = v == "attribution",
                "open" => st.open = FOLDS.iter().filter(|f| v.split(',').any(|x| x.trim() == **f)).map(|f| f.to_string()).collect(),
                _ => {}
            }
        }
        st
    }

    /// The query string (`?..`), only with the parts that differ from the defaults.
    pub fn to_query(&self) -> String {
        let mut parts = vec![];
        if let Some(t) = &self.text {
            parts.push(format!("text={}", encode(t)));
        }
        if !self.pair.is_empty() {
            parts.push(format!("pair={}", encode(&self.pair)));
        }
        if !self.masked.is_empty() {
            let v: Vec<String> = self.masked.iter().map(|m| m.to_string()).collect();
            parts.push(format!("mask={}", v.join(",")));
        }
        let join = |v: &[(usize, usize)]| v.iter().map(|(l, h)| format!("{l}.{h}")).collect::<Vec<_>>().join(",");
        if !self.heads_off.is_empty() {
            parts.push(format!("off={}", join(&self.heads_off)));
        }
        if let Some(s) = self.selected {
            parts.push(format!("head={}", join(&[s])));
        }
        if let Some(f) = self.focus {
            parts.push(format!("focus={}", join(&[f])));
        }
        if let Some(f) = self.ffn {
            parts.push(format!("ffn={}", join(&[f])));
        }
        if self.hide {
            parts.push("hide=1".into());
        }
        if !self.open.is_empty() {
            parts.push(format!("open={}", self.open.join(",")));
        }
        if let Some(m) = &self.model {
            parts.push(format!("model={}", encode(bundled(m).map_or(m.as_str(), |b| b.key))));
        }
        if let Some(d) = self.device {
            parts.push(format!("device={}", d.key()));
        }
        if self.present {
            parts.push("present=1".into());
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("?{}", parts.join("&"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_unicode_and_reserved_characters() {
        let st = UrlState {
            bench: false,
            text: Some("the cat & the [MASK] = 100% 😀 שלום\n".into()),
            pair: "a+b ?#".into(),
            masked: vec![2, 5],
            heads_off: vec![(0, 1), (1, 0)],
            selected: Some((1, 1)),
            model: Some("models/other/".into()),
            device: Some(DevicePref::Gpu),
            present: true,
            focus: Some((0, 1)),
            ffn: Some((1, 4)),
            hide: true,
            open: vec!["steps".into(), "derived".into()],
        };
        let q = st.to_query();
        assert!(q.starts_with("?text=the%20cat%20%26"), "{q}");
        assert_eq!(UrlState::parse(&q), st);
    }

    #[test]
    fn reads_hand_written_links() {
        let st = UrlState::parse("?text=paris+is+the+%5BMASK%5D&off=0.1,x,2&mask=3,,a");
        assert_eq!(st.text.as_deref(), Some("paris is the [MASK]"));
        assert_eq!(st.heads_off, [(0, 1)]);
        assert_eq!(st.masked, [3]);
        assert_eq!(UrlState::parse(""), UrlState::default());
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("%F0%9F%98%80"), "😀");
        assert_eq!(UrlState::default().to_query(), "");
        assert_eq!(UrlState::parse("?device=WebGPU").device, Some(DevicePref::Gpu));
        assert_eq!(UrlState::parse("?device=cpu").device, Some(DevicePref::Cpu));
        assert_eq!(UrlState::parse("?device=tpu").device, None);
        assert_eq!(UrlState::parse("?open=derived,bogus,steps").open, ["steps", "derived"]);
        assert!(UrlState::parse("?hide=1").hide && !UrlState::parse("?hide=0").hide);
    }

    #[test]
    fn model_paths_stay_on_this_origin() {
        assert_eq!(safe_model_path("models/x").as_deref(), Some("models/x/"));
        for bad in ["https://evil.example/m/", "//evil.example/m", "/abs", "../up", "a/../../b", "", "javascript:alert(1)"] {
            assert_eq!(safe_model_path(bad), None, "{bad}");
        }
    }
}
