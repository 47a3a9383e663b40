"""A corpus's documents as `bertscope train` reads them (src/train/corpus.rs `Corpus::parse`): runs of
lines between blank lines, a line blank when it is all Unicode White_Space (Rust's
char::is_whitespace, which str::trim uses). Shared by scripts/make_pretrain_corpus.sh and
scripts/make_survey_sample.py, so both count documents as the trainer does."""

WS = set("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {chr(c) for c in range(0x2000, 0x200B)}


def documents(text):
    """Documents as `Corpus::parse` sees them: runs of lines between blank lines (str::lines)."""
    docs, cur = [], []
    for line in text.split("\n"):
        line = line[:-1] if line.endswith("\r") else line
        if all(c in WS for c in line):
            if cur:
                docs.append(cur)
                cur = []
        else:
            cur.append(line)
    if cur:
        docs.append(cur)
    return docs
