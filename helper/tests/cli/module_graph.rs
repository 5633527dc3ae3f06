//! The helper's areas form no cycle (issue 27, point 2): each top-level
//! module of `helper/src/` may use the ones below it, never one that uses
//! it back, so an area can be read, tested and moved into a crate of its
//! own from the bottom up. The graph is read from the source as text: a
//! `crate::AREA` path outside comments and test modules is an edge.

// A failed unwrap or index in a test is a failed assertion with its location.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Edges still to be taken apart, each with why it is there (none now:
/// the plan's reports get the criteria's screening from their caller, a
/// `plan::CriteriaScreen`).
const KNOWN: &[(&str, &str)] = &[];

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The areas of `src` and the areas each one uses.
fn areas(src: &Path) -> Graph {
    let mut graph = Graph::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            let first = rel
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy();
            let area = first.trim_end_matches(".rs").to_owned();
            let text = fs::read_to_string(&path).unwrap();
            let product = text
                .split("\n#[cfg(test)]\nmod tests {")
                .next()
                .unwrap_or_default();
            let uses = graph.entry(area.clone()).or_default();
            for line in product
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
            {
                for (at, _) in line.match_indices("crate::") {
                    let name: String = line[at + "crate::".len()..]
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != area {
                        uses.insert(name);
                    }
                }
            }
        }
    }
    graph
}

/// The cycles of `graph`: its strongly connected parts of two or more.
fn cycles(graph: &Graph) -> Vec<BTreeSet<String>> {
    // Two areas are in one cycle when each reaches the other.
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(at) = todo.pop() {
            for next in graph.get(&at).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|a| (a, reach(a))).collect();
    let mut found: Vec<BTreeSet<String>> = Vec::new();
    for (a, from_a) in &reached {
        let part: BTreeSet<String> = from_a
            .iter()
            .filter(|b| reached.get(b).is_some_and(|r| r.contains(*a)))
            .cloned()
            .collect();
        if part.len() > 1 && !found.contains(&part) {
            found.push(part);
        }
    }
    found
}

#[test]
fn the_areas_of_the_helper_form_no_cycle() {
    let mut graph = areas(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    for (from, to) in KNOWN {
        assert!(
            graph.get(*from).is_some_and(|u| u.contains(*to)),
            "{from} -> {to} is gone: take it off KNOWN"
        );
        graph.get_mut(*from).unwrap().remove(*to);
    }
    let found = cycles(&graph);
    let shown: Vec<String> = found
        .iter()
        .map(|c| {
            let edges: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    graph[a]
                        .iter()
                        .filter(|b| c.contains(*b))
                        .map(move |b| format!("{a} -> {b}"))
                })
                .collect();
            edges.join(", ")
        })
        .collect();
    assert!(found.is_empty(), "areas in a cycle: {shown:?}");
}

#[test]
fn a_cycle_is_found_however_long() {
    let graph: Graph = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a", "d"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    let found = cycles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0],
        ["a", "b", "c"].into_iter().map(str::to_owned).collect()
    );
    let acyclic: Graph = [("a", vec!["b"]), ("b", vec![])]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
        .collect();
    assert!(cycles(&acyclic).is_empty());
}
