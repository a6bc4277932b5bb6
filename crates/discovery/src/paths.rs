//! Path arithmetic on the host's absolute, `/`-separated paths (no filesystem access).

/// Normalises `path`: one leading `/`, no empty, `.` or `..` components, no trailing `/`.
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `base` joined with `rel` (absolute `rel` wins), normalised.
pub fn join(base: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        normalize(rel)
    } else {
        normalize(&format!("{base}/{rel}"))
    }
}

/// The parent directory, or `None` for `/`.
pub fn parent(path: &str) -> Option<&str> {
    if path == "/" || path.is_empty() {
        return None;
    }
    match path.rfind('/') {
        Some(0) => Some("/"),
        Some(i) => Some(&path[..i]),
        None => None,
    }
}

/// The last component.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `path` relative to `base` (`None` when it is not inside `base`); `""` for `base` itself.
pub fn relative_to<'a>(path: &'a str, base: &str) -> Option<&'a str> {
    if base == "/" {
        return Some(path.trim_start_matches('/'));
    }
    let rest = path.strip_prefix(base)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// `path` and its ancestors, nearest first, ending at `/`.
pub fn ancestors(path: &str) -> Vec<&str> {
    let mut out = vec![path];
    let mut current = path;
    while let Some(p) = parent(current) {
        out.push(p);
        current = p;
    }
    out
}

/// The directories from `top` down to `bottom` inclusive (`bottom` must be inside `top`).
pub fn chain<'a>(top: &str, bottom: &'a str) -> Vec<&'a str> {
    let mut out: Vec<&str> = ancestors(bottom).into_iter().take_while(|p| relative_to(p, top).is_some()).collect();
    out.reverse();
    out
}

/// True when the name could escape its directory (`..`, `/`, `\`, absolute, empty).
pub fn is_unsafe_name(name: &str) -> bool {
    name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\\') || name.contains('\0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        assert_eq!(normalize("/a//b/./c/../d/"), "/a/b/d");
        assert_eq!(normalize("/../.."), "/");
        assert_eq!(join("/a/b", "../c"), "/a/c");
        assert_eq!(join("/a/b", "/x"), "/x");
        assert_eq!(parent("/a/b"), Some("/a"));
        assert_eq!(parent("/a"), Some("/"));
        assert_eq!(parent("/"), None);
        assert_eq!(relative_to("/a/b/c", "/a"), Some("b/c"));
        assert_eq!(relative_to("/ab", "/a"), None);
        assert_eq!(relative_to("/a", "/a"), Some(""));
        assert_eq!(relative_to("/x/y", "/"), Some("x/y"));
        assert_eq!(ancestors("/a/b"), vec!["/a/b", "/a", "/"]);
        assert_eq!(chain("/a", "/a/b/c"), vec!["/a", "/a/b", "/a/b/c"]);
        assert!(is_unsafe_name("../x") && is_unsafe_name("") && !is_unsafe_name("pdf-tools"));
    }
}
