//! The model's anatomy (`explain::anatomy_view`): its parameters by group beside the published
//! sizes, what one layer costs on this sentence, attention against the FFN as the sentence grows,
//! the complexity table of "Attention Is All You Need" with the live n and d, and BERT / DistilBERT /
//! RoBERTa side by side. Every number is the snapshot's.

use crate::components::SnapRef;
use crate::explain::anatomy::{Anatomy, Part};
use crate::explain::anatomy_tables::thousands;
use crate::explain::anatomy_view::{cost_chart, AnatomyView};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: SnapRef,
}

/// 1234567 -> "1.23 M".
fn si(x: u64) -> String {
    let x = x as f64;
    match x {
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.1} k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// The groups of `a` (the loaded model, or a preset: `which` names it).
fn params_table(v: &AnatomyView, a: &Anatomy, which: &str) -> Html {
    let rows = a.groups.iter().enumerate().map(|(i, g)| {
        let share = if a.total > 0 { 100.0 * g.total as f64 / a.total as f64 } else { 0.0 };
        let part = match g.part {
            Part::Embeddings => "emb",
            Part::Encoder => "enc",
            Part::Heads => "head",
        };
        html! {
            <tr key={i} class={part} data-group={g.name.clone()} data-total={g.total.to_string()}>
                <th scope="row">{ g.name.clone() }</th>
                <td class="formula">{ g.formula.clone() }</td>
                <td class="num">{ if g.copies > 1 { format!("{} × {}", thousands(g.count), g.copies) } else { thousands(g.count) } }</td>
                <td class="num">{ thousands(g.total) }</td>
                <td class="share"><span class="bar"><span class="fill" style={format!("width: {:.1}%", share.min(100.0))} /></span>{ format!(" {share:.1}%") }</td>
            </tr>
        }
    });
    let presets = v.presets.iter().map(|(n, c)| format!("{n} {}", thousands(*c))).collect::<Vec<_>>().join(" · ");
    html! {
        <>
            <table class="anatomy-table" data-testid="anatomy-params" data-total={a.total.to_string()} data-model={which.to_string()}>
                <thead><tr><th>{ "group" }</th><th>{ "shape" }</th><th>{ "per copy" }</th><th>{ "parameters" }</th><th>{ "share" }</th></tr></thead>
                <tbody>{ for rows }</tbody>
                <tfoot><tr><th scope="row">{ "total" }</th><td /><td /><td class="num">{ thousands(a.total) }</td>
                    <td>{ format!("embeddings {:.0}% · encoder {:.0}% · heads {:.0}%", 100.0 * a.embeddings_share, 100.0 * a.encoder_share, 100.0 * a.heads_share) }</td></tr></tfoot>
            </table>
            <p class="hint">{ format!("For scale, the published models (bare encoder, as their papers count): {presets}.") }</p>
        </>
    }
}

fn cost_table(v: &AnatomyView) -> Html {
    let c = &v.cost;
    let rows = [
        ("Q, K, V, O projections", "8 n d²", c.projection_flops),
        ("attention scores Q·Kᵀ", "2 n² d", c.score_flops),
        ("weighted sum of V", "2 n² d", c.mix_flops),
        ("softmax (about 5 per score)", "5 h n²", c.softmax_flops),
        ("feed-forward network", "4 n d I", c.ffn_flops),
        ("one layer", "", c.total_flops),
    ];
    let body = rows.iter().enumerate().map(|(i, (what, f, x))| {
        html! { <tr key={i}><th scope="row">{ *what }</th><td class="formula">{ *f }</td><td class="num">{ si(*x) }</td></tr> }
    });
    html! {
        <table class="anatomy-table" data-testid="anatomy-cost" data-n={c.n.to_string()} data-attention={c.attention_flops.to_string()} data-ffn={c.ffn_flops.to_string()}>
            <caption>{ format!("One layer on this sentence: n = {} tokens, d = {}, h = {} heads, I = {} (FLOPs: a multiply-add counts 2)", c.n, c.d, c.heads, c.intermediate) }</caption>
            <tbody>{ for body }</tbody>
            <tfoot><tr><td colspan="3">{ format!("memory: attention probabilities {} B (h n² floats), activations {} B, weights {} B read once", si(c.attention_bytes), si(c.activation_bytes), si(c.weight_bytes)) }</td></tr></tfoot>
        </table>
    }
}

fn chart(v: &AnatomyView) -> Html {
    let c = cost_chart(v, 620.0, 252.0);
    let (l, t, r, b) = c.plot;
    let xt = c.x_ticks.iter().map(|(x, s)| html! { <text x={format!("{x:.1}")} y={format!("{:.1}", b + 16.0)} class="axis-label" text-anchor="middle">{ s.clone() }</text> });
    let yt = c.y_ticks.iter().map(|(y, s)| html! { <text x={format!("{:.1}", l - 6.0)} y={format!("{:.1}", y + 4.0)} class="axis-label" text-anchor="end">{ s.clone() }</text> });
    html! {
        <figure class="cost-chart" data-testid="cost-chart" data-crossover={v.crossover.to_string()} data-n={v.cost.n.to_string()}>
            <svg width={c.width.to_string()} height={c.height.to_string()} role="img"
                aria-label={format!("FLOPs of one layer's attention (n² d) and FFN (n d I) as the sentence grows; attention passes the FFN at n = {}", v.crossover)}>
                <rect x={l.to_string()} y={t.to_string()} width={(r - l).to_string()} height={(b - t).to_string()} class="frame" />
                <polyline points={c.ffn.clone()} class="ffn" />
                <polyline points={c.attention.clone()} class="attn" />
                <line x1={format!("{:.1}", c.crossover_x)} x2={format!("{:.1}", c.crossover_x)} y1={t.to_string()} y2={b.to_string()} class="cross" />
                <line x1={format!("{:.1}", c.now_x)} x2={format!("{:.1}", c.now_x)} y1={t.to_string()} y2={b.to_string()} class="now" />
                // the note on the side of the line with room for it
                if c.crossover_x > 0.6 * c.width {
                    <text x={format!("{:.1}", c.crossover_x - 4.0)} y={(t + 14.0).to_string()} class="note" text-anchor="end">{ format!("attention overtakes at n = {}", v.crossover) }</text>
                } else {
                    <text x={format!("{:.1}", c.crossover_x + 4.0)} y={(t + 14.0).to_string()} class="note">{ format!("attention overtakes at n = {}", v.crossover) }</text>
                }
                <text x={format!("{:.1}", (l + r) / 2.0)} y={format!("{:.1}", b + 27.0)} class="axis-label" text-anchor="middle">{ "tokens n" }</text>
                <text x={format!("{:.1}", c.now_x + 4.0)} y={(b - 8.0).to_string()} class="note">{ format!("this sentence, n = {}", v.cost.n) }</text>
                { for xt }
                { for yt }
            </svg>
            <figcaption>
                <span class="key attn">{ "attention's n² terms (4 n² d)" }</span>
                <span class="key ffn">{ "FFN (4 n d I)" }</span>
                { format!(" FLOPs per layer against n (tokens), both axes logarithmic. The model takes at most {} tokens; attention passes the FFN at n = {} and the projections and FFN together at n = {}.", v.max_tokens, v.crossover, v.crossover_all) }
            </figcaption>
        </figure>
    }
}

fn complexity(v: &AnatomyView) -> Html {
    let rows = v.complexity.iter().enumerate().map(|(i, r)| {
        html! {
            <tr key={i}>
                <th scope="row">{ r.layer.clone() }</th>
                <td>{ format!("{} = {}", r.complexity, thousands(r.complexity_value as usize)) }</td>
                <td>{ format!("{} = {}", r.sequential, r.sequential_value) }</td>
                <td>{ format!("{} = {:.1}", r.path, r.path_value) }</td>
            </tr>
        }
    });
    html! {
        <table class="anatomy-table" data-testid="complexity-table">
            <caption>{ format!("Per layer, with this sentence's n = {} and the model's d = {} (Vaswani et al. 2017, Table 1)", v.cost.n, v.cost.d) }</caption>
            <thead><tr><th>{ "layer type" }</th><th>{ "complexity per layer" }</th><th>{ "sequential operations" }</th><th>{ "maximum path length" }</th></tr></thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}

fn families(v: &AnatomyView) -> Html {
    let t = &v.families;
    let head = t.columns.iter().map(|c| html! { <th scope="col">{ c.clone() }</th> });
    let rows = t.rows.iter().enumerate().map(|(i, r)| {
        html! {
            <tr key={i} data-aspect={r.aspect.clone()}>
                <th scope="row">{ r.aspect.clone() }</th>
                { for r.cells.iter().map(|c| html! { <td>{ c.clone() }</td> }) }
                <td class="why">{ r.why.clone() }</td>
            </tr>
        }
    });
    html! {
        <table class="anatomy-table families" data-testid="family-table">
            <thead><tr><th />{ for head }<th>{ "why" }</th></tr></thead>
            <tbody>{ for rows }</tbody>
        </table>
    }
}

#[component]
pub fn AnatomyPanel(p: &Props) -> Html {
    // which model's groups the table shows: 0 the loaded one, then the presets
    let shown = use_state(|| 0usize);
    let Some(v) = &p.snapshot.anatomy else { return html! {} };
    let names: Vec<String> = std::iter::once("this model".to_string()).chain(v.presets.iter().map(|(n, _)| n.clone())).collect();
    let at = (*shown).min(names.len() - 1);
    let a = if at == 0 { &v.anatomy } else { &v.preset_anatomies[at - 1] };
    let picks = names.iter().enumerate().map(|(i, n)| {
        let shown = shown.clone();
        html! {
            <button key={i} class="pick" aria-pressed={(i == at).to_string()} data-model={n.clone()}
                onclick={Callback::from(move |_: MouseEvent| shown.set(i))}>{ n.clone() }</button>
        }
    });
    html! {
        <div class="anatomy" data-testid="anatomy">
            <h3>{ "Where the parameters are" }</h3>
            <div class="anatomy-picks" role="group" aria-label="whose parameters">{ for picks }</div>
            { params_table(v, a, &names[at]) }
            <h3>{ "What one layer costs on this sentence" }</h3>
            { cost_table(v) }
            { chart(v) }
            <p class="hint">{ "Attention compares every token with every other: its cost grows with n², the FFN's only with n. For sentences the FFN and the projections dominate; attention takes over only past a few thousand tokens, which is why long-document models change attention and not the FFN." }</p>
            <h3>{ "Self-attention against recurrence and convolution" }</h3>
            { complexity(v) }
            <p class="hint">{ "Self-attention costs n² d but needs no sequential steps and connects any two words in one step; a recurrent layer costs n d² and needs n steps, so a signal travels n steps from the first word to the last." }</p>
            <h3>{ "BERT, DistilBERT and RoBERTa" }</h3>
            { families(v) }
        </div>
    }
}
