//! The worker's device choice: finds a WebGPU adapter when asked, holds the GPU `Backend` (which
//! keeps the explainer's weights on the device), decides per request whether it answers (the user's
//! choice, Auto's timing race), and falls back to the CPU path (with the reason, for the badge) when
//! the device is lost or a forward fails. The CPU path stays the spec; the page can switch any time.

use super::fetch::js_text;
use crate::backend::{Backend, WeightsKey};
use crate::bundle::Bert;
use crate::error::Result;
use crate::model::forward::{Batch, ForwardOptions, ForwardTrace};
use crate::worker::protocol::{DevicePref, DeviceStatus};
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The weights of the loaded model, of a training run and of a fine-tuning run (at their step) on
/// the device.
pub fn loaded_key() -> WeightsKey {
    (0, 0)
}
pub fn run_key(step: usize) -> WeightsKey {
    (1, step)
}
pub fn tune_key(step: usize) -> WeightsKey {
    (2, step)
}

#[derive(Default)]
pub struct Gpu {
    pub pref: DevicePref,
    /// None until WebGPU was first wanted; then the GPU backend or why there is none.
    backend: Option<std::result::Result<Backend, String>>,
    adapter: Option<String>,
    emulated: bool,
    /// Why WebGPU stopped being used (device lost, a failed forward); cleared by a new choice.
    failed: Option<String>,
    /// Auto's measurement on the loaded model: milliseconds of one forward on (CPU, WebGPU).
    race: Option<(f64, f64)>,
    /// Auto was chosen and the adapter is not looked for yet: that waits until the first answer
    /// is out (finding it takes a page ~50-100 ms, and Auto answers on the CPU path until its race).
    init_due: bool,
}

impl Gpu {
    /// Takes the user's choice; finds the adapter the first time WebGPU may be used.
    pub async fn set_pref(&mut self, pref: DevicePref) {
        self.pref = pref;
        self.failed = None;
        self.drop_if_lost();
        self.init_due = pref == DevicePref::Auto && self.backend.is_none();
        if pref == DevicePref::Gpu && self.backend.is_none() {
            self.init().await;
        }
    }

    pub fn init_due(&self) -> bool {
        self.init_due
    }

    /// Looks for the adapter when Auto's search was put off; true when it ran now.
    pub async fn init_if_due(&mut self) -> bool {
        if !std::mem::take(&mut self.init_due) || self.backend.is_some() || self.pref != DevicePref::Auto {
            return false;
        }
        self.init().await;
        true
    }

    /// Finds the adapter and opens the device (or keeps why not).
    async fn init(&mut self) {
        let info = adapter_info().await;
        let found = info.is_some();
        let (adapter, emulated) = info.unwrap_or_default();
        self.adapter = (!adapter.is_empty()).then_some(adapter);
        self.emulated = emulated;
        self.backend = Some(Backend::open_gpu().await.map_err(|e| {
            match found {
                false => "This browser offers no WebGPU adapter (WebGPU is off or unsupported here; Chromium on Linux needs \
                      chrome://flags/#enable-unsafe-webgpu). The CPU path answers, with the same numbers."
                    .to_string(),
                true => format!("WebGPU could not start ({}); the CPU path answers.", plain(&e)),
            }
        }));
    }

    /// The GPU backend when the forward should run on WebGPU now.
    /// `usable`, to run on.
    pub fn usable_mut(&mut self) -> Option<&mut Backend> {
        self.usable()?;
        match &mut self.backend {
            Some(Ok(b)) => Some(b),
            _ => None,
        }
    }

    pub fn usable(&self) -> Option<&Backend> {
        let backend = match &self.backend {
            Some(Ok(b)) if self.failed.is_none() => b,
            _ => return None,
        };
        match self.pref {
            DevicePref::Cpu => None,
            // Auto: the CPU path until one forward was timed on each, then the faster
            DevicePref::Auto => self.race.filter(|(cpu, gpu)| gpu < cpu).map(|_| backend),
            DevicePref::Gpu => Some(backend),
        }
    }

    /// Auto has a device to race against the CPU path and has not timed it on this model yet.
    pub fn needs_race(&self) -> bool {
        matches!((&self.backend, self.pref, self.race, &self.failed), (Some(Ok(_)), DevicePref::Auto, None, None))
    }

    pub fn set_race(&mut self, cpu_ms: f64, gpu_ms: f64) {
        self.race = Some((cpu_ms, gpu_ms));
    }

    pub fn status(&self) -> DeviceStatus {
        let problem = match &self.backend {
            _ if self.failed.is_some() => self.failed.clone(),
            Some(Err(e)) => Some(e.clone()),
            _ => None,
        };
        DeviceStatus {
            pref: self.pref,
            adapter: self.adapter.clone(),
            emulated: self.emulated,
            problem,
            on_gpu: self.usable().is_some(),
            race: self.race,
        }
    }

    /// Label for the snapshot's badge.
    pub fn label(&self) -> String {
        format!("WebGPU ({})", self.adapter.as_deref().unwrap_or("adapter"))
    }

    /// A new model was loaded: its weights go up at the next forward.
    pub fn forget_model(&mut self) {
        if let Some(Ok(b)) = &mut self.backend {
            b.forget_weights();
        }
        self.race = None;
    }

    /// The forward of `bert` (its weights named by `key`) on the device, uploading them first
    /// when they are not there yet. Errors when there is no device.
    pub async fn forward(&mut self, key: WeightsKey, bert: &Bert, batch: &Batch, opts: &ForwardOptions<f32>) -> Result<ForwardTrace<f32>> {
        match &mut self.backend {
            Some(Ok(b)) => b.forward(bert, key, batch, opts).await,
            _ => Err(crate::error::BertError::Input("no WebGPU device".into())),
        }
    }

    /// A lost device is dropped, so choosing WebGPU again makes a new one.
    fn drop_if_lost(&mut self) {
        if matches!(&self.backend, Some(Ok(b)) if b.check_alive().is_err()) {
            self.backend = None;
        }
    }

    /// A forward failed: the explainer goes back to the CPU path and says why. A lost device is
    /// dropped, so choosing WebGPU again makes a new one.
    pub fn fail(&mut self, why: String) {
        self.drop_if_lost();
        self.failed = Some(format!("WebGPU stopped ({}); the page uses the CPU path. Choose WebGPU again to retry.", plain(&why)));
    }
}

/// An engine error without its "gpu: " prefix, for the page.
fn plain(e: &dyn std::fmt::Display) -> String {
    let s = e.to_string();
    s.strip_prefix("gpu: ").map(str::to_string).unwrap_or(s)
}

/// The browser's own words for its WebGPU adapter ("vendor architecture") and whether it is a
/// fallback (CPU) adapter; wgpu leaves the name empty on the web.
async fn adapter_info() -> Option<(String, bool)> {
    let get = |o: &JsValue, k: &str| Reflect::get(o, &JsValue::from_str(k)).ok().filter(|v| !v.is_undefined() && !v.is_null());
    let gpu = get(&get(&js_sys::global(), "navigator")?, "gpu")?;
    let request: Function = get(&gpu, "requestAdapter")?.dyn_into().ok()?;
    let promise: Promise = request.call0(&gpu).map_err(|e| js_text(&e)).ok()?.dyn_into().ok()?;
    let adapter = JsFuture::from(promise).await.ok().filter(|a| !a.is_null() && !a.is_undefined())?;
    let info = get(&adapter, "info")?;
    let text = |k: &str| get(&info, k).and_then(|v| v.as_string()).unwrap_or_default();
    let (vendor, arch, desc) = (text("vendor"), text("architecture"), text("description"));
    let fallback = get(&info, "isFallbackAdapter").and_then(|v| v.as_bool()).unwrap_or(false);
    let name = [vendor.as_str(), arch.as_str()].iter().filter(|s| !s.is_empty()).copied().collect::<Vec<_>>().join(" ");
    let name = if name.is_empty() { desc.clone() } else { name };
    let emulated = fallback || [&arch, &desc, &vendor].iter().any(|s| s.to_ascii_lowercase().contains("swiftshader"));
    Some((name, emulated))
}
