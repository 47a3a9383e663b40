//! The head survey (`app::head_survey`, `bertscope heads`) against HF: every head's statistics on
//! three models within 1e-4 of scripts/head_survey_reference.py's (one padded batch in HF: padding
//! must not count), and its bad input.

use bertscope::app::head_survey::{kinds, HeadSurvey};
use bertscope::backend::{block_on, Backend};
use bertscope::bundle::Bert;
use bertscope::explain::head_stats::Kind;
use bertscope::infer::KEY;
use serde_json::Value;
use std::path::Path;

fn reference() -> Value {
    serde_json::from_str(&std::fs::read_to_string("tests/fixtures/head_survey_hf.json").unwrap()).unwrap()
}

fn close(got: &Value, want: &Value, what: &str) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!((g - w).abs() <= 1e-4, "{what}: {g} vs HF {w}");
}

#[test]
fn statistics_match_hf_on_three_models() {
    let r = reference();
    let text: Vec<&str> = r["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let text = text.join("\n");
    for (name, m) in r["models"].as_object().unwrap() {
        let bert = Bert::from_dir(Path::new(m["model"].as_str().unwrap())).unwrap();
        let mut s = HeadSurvey::new(&bert, &text, 2).unwrap();
        // in slices, as the page runs it: 4 sentences, then the last 2
        assert_eq!(block_on(s.run(&mut Backend::cpu(), &bert, KEY, 4)).unwrap(), 4);
        assert_eq!((s.progress(), s.finished()), ((4, 6), false));
        assert_eq!(block_on(s.run(&mut Backend::cpu(), &bert, KEY, 4)).unwrap(), 2);
        assert!(s.finished());
        let got = serde_json::to_value(s.report()).unwrap();
        for k in ["sentences", "queries", "truncated"] {
            assert_eq!(got[k], m[k], "{name}: {k}");
        }
        let (gh, wh) = (got["heads"].as_array().unwrap(), m["heads"].as_array().unwrap());
        assert_eq!(gh.len(), wh.len(), "{name}: heads");
        for (g, w) in gh.iter().zip(wh) {
            assert_eq!((&g["layer"], &g["head"]), (&w["layer"], &w["head"]));
            let at = format!("{name} layer {} head {}", w["layer"], w["head"]);
            for k in ["cls", "sep", "prev", "next", "self", "punct", "entropy", "entropy_share"] {
                close(&g[k], &w[k], &format!("{at} {k}"));
            }
            for k in ["mass", "prev", "next", "self", "punct", "entropy"] {
                close(&g["content"][k], &w["content"][k], &format!("{at} content.{k}"));
            }
            assert!(g["role"].is_string() && g["examples"].as_array().unwrap().len() == 2);
        }
    }
}

#[test]
fn token_kinds_match_hf() {
    let r = reference();
    let lines: Vec<&str> = r["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).filter(|l| !l.trim().is_empty()).collect();
    for (name, m) in r["models"].as_object().unwrap() {
        let bert = Bert::from_dir(Path::new(m["model"].as_str().unwrap())).unwrap();
        for (line, want) in lines.iter().zip(m["kinds"].as_array().unwrap()) {
            let (a, b) = line.split_once('\t').map_or((*line, None), |(a, b)| (a, Some(b)));
            let got: Vec<&str> = kinds(&bert, &bert.tokenizer.encode(a, b).unwrap())
                .into_iter()
                .map(|k| match k {
                    Kind::Cls => "cls",
                    Kind::Sep => "sep",
                    Kind::Special => "special",
                    Kind::Punct => "punct",
                    Kind::Word => "word",
                })
                .collect();
            let want: Vec<&str> = want.as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
            assert_eq!(got, want, "{name}: {line}");
        }
    }
}

#[test]
fn a_text_without_sentences_is_refused() {
    let bert = Bert::from_dir(Path::new("www/models/bert-tiny")).unwrap();
    for text in ["", "\n  \n\t\n"] {
        let e = HeadSurvey::new(&bert, text, 3).err().unwrap().to_string();
        assert!(e.contains("no sentences"), "{e}");
    }
}

fn bertscope(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_bertscope")).args(args).output().expect("run bertscope")
}

#[test]
fn the_cli_prints_every_head_and_names_bad_input() {
    let dir = std::env::temp_dir().join(format!("bertscope-heads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (text, empty) = (dir.join("text.txt"), dir.join("empty.txt"));
    std::fs::write(&text, "the cat sat on the mat.\n\nwhere did the dog go?\n").unwrap();
    std::fs::write(&empty, "\n\n").unwrap();
    let o = bertscope(&["heads", "--model", "www/models/bert-tiny", "--text-file", text.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((j["sentences"].as_u64(), j["heads"].as_array().unwrap().len()), (Some(2), 4), "bert-tiny: 2 x 2 heads");
    let h = &j["heads"][3];
    assert_eq!((h["layer"].as_u64(), h["head"].as_u64()), (Some(1), Some(1)));
    assert_eq!(h["examples"].as_array().unwrap().iter().map(|e| e["line"].as_u64().unwrap()).collect::<Vec<_>>().len(), 2);
    assert!(
        h["examples"].as_array().unwrap().iter().all(|e| [0, 2].contains(&e["line"].as_u64().unwrap())),
        "lines counted from 0, the empty one too"
    );
    for (args, want) in [
        (vec!["heads", "--model", "www/models/bert-tiny", "--text-file", empty.to_str().unwrap()], "no sentences"),
        (vec!["heads", "--model", "www/models/bert-tiny", "--text-file", "no/such/file.txt"], "cannot read"),
        (vec!["heads", "--model", "no/such/model", "--text-file", text.to_str().unwrap()], "cannot load the model"),
    ] {
        let o = bertscope(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want) && !err.contains("panicked"), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
