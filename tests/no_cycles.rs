//! The layering holds: no import cycle between the files of each crate (scripts/check_file_cycles.py,
//! Python 3's standard library). A new cycle fails here, naming the files.

#[test]
fn no_import_cycle_between_files() {
    for dir in ["src", "crates/view/src", "crates/ui/src"] {
        let o = std::process::Command::new("python3").args(["scripts/check_file_cycles.py", dir]).output().expect("python3 runs");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success() && out.trim_end().ends_with("0 file cycles"), "{dir}: {out}{}", String::from_utf8_lossy(&o.stderr));
    }
}
