//! Tests of `head_stats` on hand-made attention whose statistics are worked out by hand.

use super::*;

const KINDS: [Kind; 5] = [Kind::Cls, Kind::Word, Kind::Word, Kind::Punct, Kind::Sep]; // [CLS] a b . [SEP]

/// Every row on the previous token (row 0 on itself).
fn previous() -> Vec<f32> {
    let mut a = vec![0f32; 25];
    a[0] = 1.0;
    for i in 1..5 {
        a[i * 5 + i - 1] = 1.0;
    }
    a
}

fn uniform() -> Vec<f32> {
    vec![0.2; 25]
}

fn close(a: f32, b: f64) {
    assert!((a as f64 - b).abs() < 1e-6, "{a} vs {b}");
}

#[test]
fn a_previous_token_head_and_a_uniform_head() {
    let (prev, uni) = (previous(), uniform());
    let mut s = Survey::new(1, 2, 2);
    s.add(0, &KINDS, |_, h| if h == 0 { &prev } else { &uni });
    assert_eq!((s.sentences(), s.queries()), (1, 5));
    let st = s.stats();
    let p = &st[0];
    // cls: rows 0 and 1 give [CLS] 1 each, over 5 rows; punct: row 4 looks at "."; self: row 0
    for (got, want) in [(p.cls, 0.4), (p.sep, 0.0), (p.prev, 1.0), (p.next, 0.0), (p.self_, 0.2), (p.punct, 0.2), (p.entropy, 0.0)] {
        close(got, want);
    }
    // ordinary rows 1, 2, 3: row 1's mass is on [CLS] (0 left); rows 2 and 3 keep all of it
    let c = &p.content;
    for (got, want) in [(c.mass, 2.0 / 3.0), (c.prev, 1.0), (c.next, 0.0), (c.self_, 0.0), (c.punct, 0.0), (c.entropy, 0.0)] {
        close(got, want);
    }
    assert_eq!(p.role, Role::PreviousToken);

    let u = &st[1];
    for got in [u.cls, u.sep, u.prev, u.next, u.self_, u.punct] {
        close(got, 0.2);
    }
    close(u.entropy, 5f64.ln());
    close(u.entropy_share, 1.0);
    let c = &u.content;
    for (got, want) in
        [(c.mass, 0.6), (c.prev, 1.0 / 3.0), (c.next, 1.0 / 3.0), (c.self_, 1.0 / 3.0), (c.punct, 1.0 / 3.0), (c.entropy, 3f64.ln())]
    {
        close(got, want);
    }
    assert_eq!(u.role, Role::Broad);
    assert_eq!((u.layer, u.head, p.layer, p.head), (0, 1, 0, 0));
}

#[test]
fn sentences_pool_by_rows_and_examples_are_the_most_peaked() {
    let (prev, uni) = (previous(), uniform());
    let mut s = Survey::new(1, 1, 2);
    s.add(0, &KINDS, |_, _| &uni);
    s.add(1, &KINDS, |_, _| &prev);
    s.add(2, &KINDS, |_, _| &uni);
    let h = &s.stats()[0];
    // prev: 4 rows of 1 and 8 rows of 0.2 over 12 rows
    close(h.prev, (4.0 + 8.0 * 0.2) / 12.0);
    close(h.cls, (2.0 + 10.0 * 0.2) / 15.0);
    assert_eq!(
        h.examples,
        vec![Example { line: 1, peak: 1.0, text: String::new() }, Example { line: 0, peak: 0.2, text: String::new() }],
        "most peaked first, ties to the earlier line"
    );
}

#[test]
fn each_role_from_its_numbers() {
    let base = || {
        let mut s = Survey::new(1, 1, 0);
        s.add(0, &KINDS, |_, _| &[0.2; 25]);
        s.stats().remove(0)
    };
    let with = |f: &dyn Fn(&mut HeadStats)| {
        let mut h = base();
        f(&mut h);
        Role::of(&h)
    };
    assert_eq!(with(&|h| h.content.next = 0.6), Role::NextToken);
    assert_eq!(with(&|h| h.content.self_ = 0.6), Role::SelfToken);
    assert_eq!(with(&|h| h.content.punct = 0.6), Role::Punctuation);
    assert_eq!(with(&|h| h.sep = 0.6), Role::Sep);
    assert_eq!(with(&|h| h.cls = 0.6), Role::Cls);
    assert_eq!(with(&|h| h.entropy_share = 0.5), Role::Other);
    // a pattern among ordinary tokens that keep almost nothing is parking, not a pattern
    assert_eq!(
        with(&|h| {
            h.content.prev = 0.9;
            h.content.mass = 0.1;
            h.sep = 0.85;
        }),
        Role::Sep
    );
    let labels: Vec<&str> = Role::ALL.iter().map(|r| r.label()).collect();
    assert_eq!(labels.len(), 8);
    assert_eq!(serde_json::to_value(Role::PreviousToken).unwrap(), "previous-token");
}

#[test]
#[should_panic(expected = "not 5 x 5")]
fn attention_of_the_wrong_size_is_refused() {
    let mut s = Survey::new(1, 1, 0);
    s.add(0, &KINDS, |_, _| &[0.25; 16]);
}
