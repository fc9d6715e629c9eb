//! Reading a link or a typed query string into the page's state.

use coalescing_lab::model::permalink::{decode, escape, warnings, State};

/// A permalink or query string as the page's state; its problems go to standard error.
///
/// A link (`https://…/?v=1&…`) or a query starting with `?` is read as the page writes it,
/// percent-encoded. Anything else is a query as a person types it: `key=value` pairs split at
/// each `&` that starts another `key=`, values taken literally, so
/// `idx=t<16 ? t : 1000+64*(t-16)` and `active=t>2 && t<9` mean what they say.
pub(crate) fn state_of(link: &str) -> State {
    let link = link.trim();
    let query = if link.contains("://") || link.starts_with('?') {
        let query = link.split_once('?').map_or("", |(_, q)| q);
        query.split('#').next().unwrap_or("").to_string()
    } else {
        literal_query(link)
    };
    for w in warnings(&query) {
        eprintln!("note: {w}");
    }
    decode(&query)
}

/// A typed query with literal values, percent-encoded as a link carries it.
fn literal_query(text: &str) -> String {
    let starts_pair = |rest: &str| {
        let key: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
            .collect();
        !key.is_empty() && rest[key.len()..].starts_with('=')
    };
    let mut pairs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        let (head, tail) = rest.split_at(at);
        current.push_str(head);
        if starts_pair(&tail[1..]) {
            pairs.push(std::mem::take(&mut current));
        } else {
            current.push('&');
        }
        rest = &tail[1..];
    }
    current.push_str(rest);
    pairs.push(current);
    pairs
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => format!("{k}={}", escape(v)),
            None => escape(p),
        })
        .collect::<Vec<_>>()
        .join("&")
}
