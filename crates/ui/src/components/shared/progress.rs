//! The model download: a progress bar in bytes while it loads, then what was loaded.

use crate::state::Load;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub load: Load,
    /// What the page calls the model (`default`, a folder's name, "your files").
    pub model: AttrValue,
}

fn mb(b: u64) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}

#[component]
pub fn LoadProgress(p: &Props) -> Html {
    let name = p.model.as_str();
    match &p.load {
        Load::Fetching { loaded, total } => {
            let of = if *total > 0 { format!("{} / {}", mb(*loaded), mb(*total)) } else { mb(*loaded) };
            html! {
                <div class="load" data-testid="load-progress" data-state="loading" data-loaded={loaded.to_string()} data-total={total.to_string()}>
                    <span>{ format!("Loading the model \"{name}\": ") }</span>
                    <progress max={total.max(&1).to_string()} value={loaded.to_string()} />
                    <span class="bytes">{ of }</span>
                </div>
            }
        }
        Load::Ready { info, bytes, ms } => html! {
            <div class="load done" data-testid="load-progress" data-state="done" data-loaded={bytes.to_string()} data-total={bytes.to_string()}>
                { format!(
                    "Model \"{name}\": a {} ({} tokens), {} layers × {} heads, hidden {}, FFN {}, vocabulary {}, {:.2} M parameters ({} loaded in {:.0} ms){}{}",
                    if info.family.is_empty() { "BERT" } else { &info.family },
                    if info.scheme.is_empty() { "WordPiece" } else { &info.scheme },
                    info.layers, info.heads, info.hidden, info.intermediate, info.vocab,
                    info.params as f64 / 1e6, mb(*bytes), ms,
                    if info.has_mlm { "" } else { "; no MLM head, so no predictions" },
                    if info.has_nsp { "; NSP head" } else { "" },
                ) }
            </div>
        },
        Load::Failed(_) => html! {
            <div class="load failed" data-testid="load-progress" data-state="failed">
                { format!("The model \"{name}\" could not be loaded (details below). ") }
                if name != crate::explain::models::DEFAULT.name { <a href="./">{ "Open the page with the default model." }</a> }
            </div>
        },
    }
}
