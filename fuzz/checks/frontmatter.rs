//! Frontmatter: any text splits and parses within its budgets (checked on what it read),
//! problems as diagnostics.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut diagnostics = Vec::new();
    let parsed = contextview_discovery::frontmatter::parse(&text, "/r/.cursor/rules/x.mdc", &mut diagnostics);
    // The body is what follows the frontmatter: always a suffix of the text, the whole text
    // when there is no frontmatter.
    assert!(text.ends_with(parsed.body.as_str()));
    let (yaml, body) = contextview_discovery::frontmatter::split(&text);
    assert_eq!(parsed.body, body);
    match (&parsed.fields, yaml) {
        (None, None) => {}
        (Some(_), Some(_)) => {}
        (fields, yaml) => panic!("frontmatter {yaml:?} read as {fields:?}"),
    }
    // What it read is within its budgets: no deeper, no more nodes than they allow.
    if let Some(Ok(fields)) = &parsed.fields {
        let (mut nodes, mut deepest) = (0usize, 0usize);
        let mut stack: Vec<(&serde_json::Value, usize)> = fields.values().map(|v| (v, 1)).collect();
        while let Some((v, depth)) = stack.pop() {
            nodes += 1;
            deepest = deepest.max(depth);
            match v {
                serde_json::Value::Array(a) => stack.extend(a.iter().map(|x| (x, depth + 1))),
                serde_json::Value::Object(o) => stack.extend(o.values().map(|x| (x, depth + 1))),
                _ => {}
            }
        }
        assert!(nodes <= contextview_discovery::yaml::MAX_NODES, "{nodes} nodes");
        assert!(deepest <= contextview_discovery::yaml::MAX_DEPTH + 1, "depth {deepest}");
    }
    for d in &diagnostics {
        assert!(!d.code.is_empty());
    }
}
