//! Plain-text corpora: documents are blocks separated by blank lines; a document's sentences are
//! its lines, further split after `.`, `!` or `?` followed by a space.

/// Documents, each a list of sentences.
#[derive(Clone, Debug, Default)]
pub struct Corpus {
    pub docs: Vec<Vec<String>>,
}

/// Splits one line into sentences at `.`/`!`/`?` (and any closing quotes or brackets) + space.
pub fn split_sentences(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (_, c) = chars[i];
        if matches!(c, '.' | '!' | '?') {
            let mut j = i + 1;
            while j < chars.len() && matches!(chars[j].1, '"' | '\'' | ')' | ']' | '”' | '’') {
                j += 1;
            }
            // a sentence ends at the mark + space, unless a lower-case word follows ("e.g. this")
            let next_word = chars[j..].iter().map(|c| c.1).find(|c| !c.is_whitespace());
            if j < chars.len() && chars[j].1.is_whitespace() && !next_word.is_some_and(char::is_lowercase) {
                let end = chars[j].0;
                let s = line[start..end].trim();
                if !s.is_empty() {
                    out.push(s.to_string());
                }
                start = end;
                i = j;
            }
        }
        i += 1;
    }
    let s = line[start..].trim();
    if !s.is_empty() {
        out.push(s.to_string());
    }
    out
}

impl Corpus {
    pub fn parse(text: &str) -> Corpus {
        let mut docs = Vec::new();
        let mut cur: Vec<String> = Vec::new();
        for line in text.lines() {
            if line.trim().is_empty() {
                if !cur.is_empty() {
                    docs.push(std::mem::take(&mut cur));
                }
                continue;
            }
            cur.extend(split_sentences(line));
        }
        if !cur.is_empty() {
            docs.push(cur);
        }
        Corpus { docs }
    }

    pub fn sentences(&self) -> usize {
        self.docs.iter().map(Vec::len).sum()
    }

    /// Every `every`-th document (from the `offset`-th) is held out for evaluation; a corpus of
    /// one document gives its last tenth of sentences instead.
    pub fn split_held_out(&self, every: usize) -> (Corpus, Corpus) {
        if self.docs.len() >= 2 * every.max(2) {
            let (mut train, mut held) = (Vec::new(), Vec::new());
            for (i, d) in self.docs.iter().enumerate() {
                if i % every == every - 1 {
                    held.push(d.clone())
                } else {
                    train.push(d.clone())
                }
            }
            return (Corpus { docs: train }, Corpus { docs: held });
        }
        let all: Vec<String> = self.docs.concat();
        let cut = all.len() - (all.len() / 10).max(1).min(all.len().saturating_sub(1));
        (Corpus { docs: vec![all[..cut].to_vec()] }, Corpus { docs: vec![all[cut..].to_vec()] })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_and_sentences() {
        let c = Corpus::parse("The cat sat. It was \"tired.\" Then it slept!\nA new line\n\n\nSecond doc? Yes.\n");
        assert_eq!(c.docs.len(), 2);
        assert_eq!(c.docs[0], ["The cat sat.", "It was \"tired.\"", "Then it slept!", "A new line"]);
        assert_eq!(c.docs[1], ["Second doc?", "Yes."]);
        assert_eq!(split_sentences("3.14 is pi. E.g. this"), ["3.14 is pi.", "E.g. this"]);
    }

    #[test]
    fn held_out_split() {
        let text: String = (0..20).map(|i| format!("doc {i} a.\ndoc {i} b.\n\n")).collect();
        let (tr, ho) = Corpus::parse(&text).split_held_out(10);
        assert_eq!((tr.docs.len(), ho.docs.len()), (18, 2));
        let (tr, ho) = Corpus::parse("A. B. C. D. E. F. G. H. I. J. K. L.").split_held_out(10);
        assert_eq!((tr.sentences(), ho.sentences()), (11, 1));
    }
}
