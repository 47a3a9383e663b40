//! The corpus views (`app::corpus_views`, `bertscope search` / `qk`) against HF: the same top-10
//! matches with cosines within 1e-4, by a layer and by a head; the queries-and-keys PCA's explained
//! variance and coordinates up to sign (scripts/corpus_views_reference.py); bad input; and the
//! page's int8 index against the exact scan: its search, and its queries and keys (read back from
//! the stored hidden states) in the same projection.

use bertscope::app::corpus_views::{queries_and_keys, search, Space};
use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::infer::KEY;
use serde_json::Value;
use std::path::Path;

fn reference() -> Value {
    serde_json::from_str(&std::fs::read_to_string("tests/fixtures/corpus_views_hf.json").unwrap()).unwrap()
}

fn corpus(r: &Value) -> String {
    r["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect::<Vec<_>>().join("\n")
}

#[test]
fn search_by_a_layer_and_by_a_head_matches_hf() {
    let r = reference();
    let (text, position, k) = (r["query"].as_str().unwrap(), r["position"].as_u64().unwrap() as usize, r["k"].as_u64().unwrap() as usize);
    for (name, m) in r["models"].as_object().unwrap() {
        let bert = Bert::from_dir(Path::new(m["model"].as_str().unwrap())).unwrap();
        for (what, space) in [("layer_search", Space::Hidden { layer: 1 }), ("head_search", Space::Head { layer: 2, head: 1 })] {
            let got = block_on(search(&mut Backend::cpu(), &bert, KEY, &corpus(&r), text, position, space, k)).unwrap();
            let want = m[what].as_array().unwrap();
            assert_eq!(got.matches.len(), want.len());
            for (i, (g, w)) in got.matches.iter().zip(want).enumerate() {
                let at = format!("{name} {what} #{i}");
                assert_eq!(
                    (g.line as u64, g.position as u64),
                    (w["line"].as_u64().unwrap(), w["position"].as_u64().unwrap()),
                    "{at}: {g:?} vs {w}"
                );
                assert!((g.score as f64 - w["score"].as_f64().unwrap()).abs() <= 1e-4, "{at}: {} vs HF {}", g.score, w["score"]);
            }
        }
    }
}

#[test]
fn queries_and_keys_project_as_hf_s_pca() {
    let r = reference();
    for (name, m) in r["models"].as_object().unwrap() {
        let bert = Bert::from_dir(Path::new(m["model"].as_str().unwrap())).unwrap();
        let got = block_on(queries_and_keys(&mut Backend::cpu(), &bert, KEY, &corpus(&r), 1, 0)).unwrap();
        let tokens = m["tokens"].as_u64().unwrap() as usize;
        assert_eq!(got.points.len(), 2 * tokens, "{name}: a query and a key per corpus token");
        for (c, want) in m["explained"].as_array().unwrap().iter().enumerate() {
            assert!(
                (got.explained[c] as f64 - want.as_f64().unwrap()).abs() <= 1e-4,
                "{name}: explained[{c}] {} vs HF {want}",
                got.explained[c]
            );
        }
        // each axis up to its sign: fix the sign by the first point
        for axis in 0..2 {
            let coord = |p: &bertscope::app::corpus_views::QkPoint| if axis == 0 { p.x as f64 } else { p.y as f64 };
            let hf = |kind: &str, i: usize| m[kind][i][axis].as_f64().unwrap();
            let sign = if (coord(&got.points[0]) >= 0.0) == (hf("queries", 0) >= 0.0) { 1.0 } else { -1.0 };
            for i in 0..30 {
                for (kind, at) in [("queries", i), ("keys", tokens + i)] {
                    let (g, w) = (sign * coord(&got.points[at]), hf(kind, i));
                    assert!((g - w).abs() <= 1e-3 * (1.0 + w.abs()), "{name} {kind} {i} axis {axis}: {g} vs HF {w}");
                }
            }
        }
        assert!(got.points[..tokens].iter().all(|p| p.kind == "query") && got.points[tokens..].iter().all(|p| p.kind == "key"));
    }
}

#[test]
fn bad_input_is_one_clear_line() {
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny")).unwrap();
    let e = |r: bertscope::Result<bertscope::app::corpus_views::SearchResult>| r.err().unwrap().to_string();
    let run = |corpus: &str, pos: usize, space: Space| block_on(search(&mut Backend::cpu(), &bert, KEY, corpus, "the bank", pos, space, 5));
    assert!(e(run("the river.", 9, Space::Hidden { layer: 1 })).contains("position 9 is outside the text's 4 tokens"));
    assert!(e(run("\n \n", 1, Space::Hidden { layer: 1 })).contains("no sentences"));
    for (layer, head, want) in
        [(3, None, "layer 3 does not exist"), (0, Some(0), "a head's layer is 1 to 2"), (1, Some(2), "head 2 does not exist")]
    {
        assert!(Space::of(&bert, layer, head).err().unwrap().to_string().contains(want), "{want}");
    }
    let qk = block_on(queries_and_keys(&mut Backend::cpu(), &bert, KEY, "hello", 1, 0)).err().unwrap().to_string();
    assert!(qk.contains("fewer than two tokens"), "{qk}");
}

#[test]
fn the_page_s_int8_index_finds_what_the_exact_search_finds() {
    use bertscope::app::head_survey::HeadSurvey;
    let r = reference();
    let text = corpus(&r);
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny")).unwrap();
    let mut s = HeadSurvey::new(&bert, &text, 1).unwrap().with_index(&bert);
    block_on(s.run(&mut Backend::cpu(), &bert, KEY, 1000)).unwrap();
    let index = s.take_index().unwrap();
    assert_eq!(
        index.bytes(),
        index.len() * (3 * 128 + 2 * 128 + 3 * 8),
        "int8: (L+1) hidden states and L layers' heads a token, and two f32 for each hidden state"
    );
    let query = "the river bank was muddy after the rain.";
    let enc = bert.tokenizer.encode(query, None).unwrap();
    let trace = block_on(Backend::cpu().forward(&bert, KEY, &bertscope::infer::batch_of(&enc), &Default::default())).unwrap();
    for space in [Space::Hidden { layer: 0 }, Space::Hidden { layer: 2 }, Space::Head { layer: 1, head: 1 }] {
        let q: Vec<f32> = match space {
            Space::Hidden { layer } => trace.hidden[layer].row(3).to_vec(),
            Space::Head { layer, head } => trace.layers[layer - 1].context.row(3).iter().skip(head * 64).take(64).copied().collect(),
        };
        let got = index.search(&q, space, 10);
        let exact = block_on(search(&mut Backend::cpu(), &bert, KEY, &text, query, 3, space, 10)).unwrap().matches;
        for (g, e) in got.iter().zip(&exact) {
            assert!((g.score - e.score).abs() < 0.01, "{space:?}: {} vs exact {}", g.score, e.score);
            if (g.line, g.position) == (e.line, e.position) {
                assert_eq!(g.pieces[g.position], e.token, "the match's piece in its line");
            }
        }
        // the same tokens, but where two exact scores are closer than the int8 error
        let ids = |v: &[(usize, usize)]| v.to_vec();
        let g: Vec<(usize, usize)> = got.iter().map(|m| (m.line, m.position)).collect();
        let e: Vec<(usize, usize)> = exact.iter().map(|m| (m.line, m.position)).collect();
        let shared = g.iter().filter(|x| e.contains(x)).count();
        assert!(shared >= 8, "{space:?}: {} of the exact top 10 found: {:?} vs {:?}", shared, ids(&g), ids(&e));
    }
}

#[test]
fn the_page_s_index_projects_queries_and_keys_as_the_exact_scan() {
    use bertscope::app::head_survey::HeadSurvey;
    use bertscope::app::qk_projection::QkProjection;
    let text = corpus(&reference());
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny")).unwrap();
    let mut s = HeadSurvey::new(&bert, &text, 1).unwrap().with_index(&bert);
    block_on(s.run(&mut Backend::cpu(), &bert, KEY, 1000)).unwrap();
    let index = s.take_index().unwrap();
    for (layer, head) in [(1, 0), (2, 1)] {
        let exact = block_on(queries_and_keys(&mut Backend::cpu(), &bert, KEY, &text, layer, head)).unwrap();
        let (qs, ks) = index.queries_and_keys(&bert.params, layer, head);
        let m = index.len();
        assert_eq!(2 * m, exact.points.len(), "a query and a key per corpus token");
        assert_eq!(
            index.tokens().iter().map(|&(l, p)| (l as usize, p as usize)).collect::<Vec<_>>(),
            exact.points[..m].iter().map(|p| (p.line, p.position)).collect::<Vec<_>>(),
            "the same tokens in the same order"
        );
        let fit = QkProjection::fit(qs.view(), ks.view());
        for c in 0..2 {
            assert!(
                (fit.explained[c] - exact.explained[c]).abs() < 0.01,
                "({layer}, {head}) explained[{c}]: {} vs {}",
                fit.explained[c],
                exact.explained[c]
            );
        }
        let got: Vec<[f32; 2]> = (0..2 * m)
            .map(|i| if i < m { fit.query(qs.row(i).as_slice().unwrap()) } else { fit.key(ks.row(i - m).as_slice().unwrap()) })
            .collect();
        for axis in 0..2 {
            let want: Vec<f64> = exact.points.iter().map(|p| if axis == 0 { p.x as f64 } else { p.y as f64 }).collect();
            let g: Vec<f64> = got.iter().map(|p| p[axis] as f64).collect();
            let sign = if g.iter().zip(&want).map(|(a, b)| a * b).sum::<f64>() >= 0.0 { 1.0 } else { -1.0 };
            let spread = (want.iter().map(|w| w * w).sum::<f64>() / want.len() as f64).sqrt();
            let worst = g.iter().zip(&want).map(|(a, b)| (sign * a - b).abs()).fold(0.0, f64::max);
            let rms = (g.iter().zip(&want).map(|(a, b)| (sign * a - b).powi(2)).sum::<f64>() / want.len() as f64).sqrt();
            // a point's error is a pixel or two where the scatter is 400 pixels across
            assert!(rms <= 0.01 * spread, "({layer}, {head}) axis {axis}: off by {rms} (rms), the coordinates' spread {spread}");
            assert!(worst <= 0.03 * spread, "({layer}, {head}) axis {axis}: off by up to {worst}, the coordinates' spread {spread}");
        }
    }
}
