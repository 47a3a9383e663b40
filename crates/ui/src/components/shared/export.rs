//! "PNG" and "SVG" buttons under a heatmap: the same picture (title, token labels, cells, legend;
//! laid out by `explain::heatmap_svg::Layout`) drawn on an off-screen canvas and saved through its
//! data URL, or written as a standalone SVG file, downloaded as `<file>.png` / `<file>.svg`.

use crate::components::mat::Mat;
use crate::explain::colormap;
use crate::explain::heatmap_svg::{self, Layout, PAD};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlAnchorElement, HtmlCanvasElement};
use yew::prelude::*;

/// Starts a download of `href` under the name `file`.
fn download(file: &str, href: &str) -> Option<()> {
    let doc = web_sys::window()?.document()?;
    let a: HtmlAnchorElement = doc.create_element("a").ok()?.unchecked_into();
    a.set_href(href);
    a.set_download(file);
    a.click();
    Some(())
}

/// Downloads `text` as a file of type `mime` (through a blob URL, revoked a little later: the
/// download may still be reading it).
pub(crate) fn download_text(file: &str, text: &str, mime: &str) -> Option<()> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    download(file, &url);
    let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    web_sys::window()?.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 10_000).ok()?;
    Some(())
}

/// The heatmap drawn on a fresh canvas of the export layout's size, as a PNG data URL.
fn png_data_url(title: &str, tokens: &[String], values: &[f32], note: &str) -> Option<String> {
    let n = tokens.len();
    let lay = Layout::new(n);
    let doc = web_sys::window()?.document()?;
    let canvas: HtmlCanvasElement = doc.create_element("canvas").ok()?.unchecked_into();
    canvas.set_width(lay.width as u32);
    canvas.set_height(lay.height as u32);
    let ctx: CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    let (c, left, top) = (lay.cell as f64, lay.left as f64, lay.top as f64);
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, lay.width as f64, lay.height as f64);
    ctx.set_fill_style_str("#111111");
    ctx.set_font("bold 16px sans-serif");
    ctx.set_text_baseline("alphabetic");
    let _ = ctx.fill_text(title, PAD as f64, 24.0);
    if lay.labelled() {
        ctx.set_font(&format!("{}px sans-serif", (c * 0.5).clamp(8.0, 12.0)));
        ctx.set_text_baseline("middle");
        for (i, t) in tokens.iter().enumerate() {
            let mid = i as f64 * c + c / 2.0;
            let label = heatmap_svg::short_label(t);
            ctx.set_text_align("right");
            let _ = ctx.fill_text(&label, left - 6.0, top + mid);
            ctx.save();
            let _ = ctx.translate(left + mid, top - 6.0);
            let _ = ctx.rotate(-std::f64::consts::PI / 3.0);
            ctx.set_text_align("left");
            let _ = ctx.fill_text(&label, 0.0, 0.0);
            ctx.restore();
        }
    }
    for i in 0..n {
        for j in 0..n {
            ctx.set_fill_style_str(&colormap::viridis_hex(values.get(i * n + j).copied().unwrap_or(0.0)));
            ctx.fill_rect(left + j as f64 * c, top + i as f64 * c, c, c);
        }
    }
    // legend: the ramp in 1-px strips, ticks, note
    let (rx, rw) = lay.ramp();
    let y = lay.legend_y as f64;
    for x in 0..rw {
        ctx.set_fill_style_str(&colormap::viridis_hex(x as f32 / (rw - 1).max(1) as f32));
        ctx.fill_rect((rx + x) as f64, y, 1.0, 12.0);
    }
    ctx.set_fill_style_str("#111111");
    ctx.set_font("11px sans-serif");
    ctx.set_text_baseline("alphabetic");
    for (t, align) in [(0.0f64, "left"), (0.5, "center"), (1.0, "right")] {
        ctx.set_text_align(align);
        let _ = ctx.fill_text(&format!("{t}"), rx as f64 + t * rw as f64, y + 26.0);
    }
    ctx.set_text_align("left");
    ctx.set_fill_style_str("#555555");
    let _ = ctx.fill_text(note, rx as f64, y + 44.0);
    canvas.to_data_url_with_type("image/png").ok()
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The title written on the picture.
    pub title: AttrValue,
    /// The file name without extension, e.g. `bertscope-attention-L0-H1`.
    pub file: AttrValue,
    /// The legend's note (what the numbers are, e.g. that rows were renormalised).
    pub note: AttrValue,
    /// (N) token labels, rows and columns.
    pub tokens: Rc<Vec<String>>,
    /// (N*N) row-major values in [0, 1].
    pub values: Mat,
}

#[component]
pub fn ExportButtons(p: &Props) -> Html {
    let lay = Layout::new(p.tokens.len());
    let png = {
        let (title, file, note, tokens, values) = (p.title.clone(), p.file.clone(), p.note.clone(), p.tokens.clone(), p.values.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(url) = png_data_url(&title, &tokens, &values.0, &note) {
                download(&format!("{file}.png"), &url);
            }
        })
    };
    let svg = {
        let (title, file, note, tokens, values) = (p.title.clone(), p.file.clone(), p.note.clone(), p.tokens.clone(), p.values.clone());
        Callback::from(move |_: MouseEvent| {
            let text = heatmap_svg::svg(&title, &tokens, &values.0, &note);
            download_text(&format!("{file}.svg"), &text, "image/svg+xml");
        })
    };
    html! {
        <span class="export-buttons">
            <button class="export" data-testid="export-png" data-file={format!("{}.png", p.file)}
                data-width={lay.width.to_string()} data-height={lay.height.to_string()}
                title={format!("download this heatmap as {}.png ({} x {} px)", p.file, lay.width, lay.height)} onclick={png}>{ "PNG" }</button>
            <button class="export" data-testid="export-svg" data-file={format!("{}.svg", p.file)}
                title={format!("download this heatmap as {}.svg (one rect per cell)", p.file)} onclick={svg}>{ "SVG" }</button>
        </span>
    }
}
