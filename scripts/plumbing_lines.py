#!/usr/bin/env python3
"""Lines of the long-job plumbing of the train, fine-tune and translate tabs, by layer (issue:
one shape for long jobs). Counts each file's lines before its `#[cfg(test)]` module; a file that
does not exist (at an older commit) counts 0. Usage: python3 scripts/plumbing_lines.py [REV]
(REV: read the files at that git revision instead of the working tree)."""
import subprocess
import sys

GROUPS = {
    "protocol": ["crates/view/src/protocol.rs", "crates/view/src/job.rs"],
    # before: src/worker/; after: the application layer's long jobs
    "sessions": ["src/worker/session.rs", "src/worker/tune_session.rs", "src/worker/translate_session.rs",
                 "src/app/jobs/mod.rs", "src/app/jobs/pretrain.rs", "src/app/jobs/finetune.rs", "src/app/jobs/translate.rs"],
    "engine slicing": ["src/worker/engine/train.rs", "src/worker/engine/tune.rs", "src/worker/engine/translate.rs",
                       "src/worker/engine/job.rs", "src/worker/engine/host.rs"],
    "UI state": ["crates/ui/src/train_state.rs", "crates/ui/src/tune_state.rs", "crates/ui/src/translate_state.rs",
                 "crates/ui/src/run_state.rs"],
    "tabs": ["crates/ui/src/page/train_tab.rs", "crates/ui/src/page/tune_tab.rs", "crates/ui/src/page/translate_tab.rs"],
    "panels": ["crates/ui/src/components/train/train_panel.rs", "crates/ui/src/components/tune/tune_panel.rs",
               "crates/ui/src/components/translate/translate_panel.rs", "crates/ui/src/components/shared/run_controls.rs"],
}


def text(path, rev):
    if rev is None:
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except FileNotFoundError:
            return ""
    r = subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ""


def lines(src):
    out = 0
    for line in src.splitlines():
        if line.strip() == "#[cfg(test)]":
            break
        out += 1
    return out


def main():
    rev = sys.argv[1] if len(sys.argv) > 1 else None
    total = 0
    print(f"{'layer':<16}{'files':>6}{'lines':>8}")
    for name, paths in GROUPS.items():
        counts = [lines(text(p, rev)) for p in paths]
        n = sum(counts)
        total += n
        print(f"{name:<16}{sum(c > 0 for c in counts):>6}{n:>8}")
    print(f"{'total':<16}{'':>6}{total:>8}")


if __name__ == "__main__":
    main()
