//! Every file the repository's code and docs name is in the repository,
//! and every phase number they cite has its row in the phase map
//! (the rules: `voyage_tests::references`; its unit tests show it failing
//! on planted broken references).

use voyage_tests::{references, repo_root};

#[test]
fn every_reference_to_a_file_names_a_file_of_the_repository() {
    let broken = references::check(&repo_root()).unwrap_or_else(|e| panic!("reading: {e}"));
    let list: Vec<String> = broken.iter().map(ToString::to_string).collect();
    assert!(
        list.is_empty(),
        "{} references to files the repository does not hold:\n{}",
        list.len(),
        list.join("\n")
    );
}

#[test]
fn every_phase_number_the_code_cites_has_a_row_in_the_phase_map() {
    let map = std::path::Path::new("docs/maintainer/phases.md");
    let missing =
        references::unmapped_phases(&repo_root(), map).unwrap_or_else(|e| panic!("reading: {e}"));
    let list: Vec<String> = missing.iter().map(ToString::to_string).collect();
    assert!(
        list.is_empty(),
        "{} phase numbers without a row in {}:\n{}",
        list.len(),
        map.display(),
        list.join("\n")
    );
}
