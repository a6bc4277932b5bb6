//! Times as text, to seconds since the epoch — the core has no clock, so the times it reasons
//! about come as text: the host's RFC 3339 stamps on records, and an HTTP date a server writes
//! in `retry-after`.

/// Seconds since the epoch of an RFC 3339 time (`2026-12-04T10:00:00Z`, `…+01:00`, fractions
/// dropped); `None` when it is not one.
pub fn epoch_seconds(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> { ts.get(r)?.parse().ok() };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (y, m, d, hh, mm, ss) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    let mut rest = &ts[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && matches!(rest.as_bytes()[0], b'+' | b'-') && rest.as_bytes()[3] == b':' => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (rest[1..3].parse::<i64>().ok()? * 3600 + rest[4..6].parse::<i64>().ok()? * 60)
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss - offset)
}

/// Seconds since the epoch of an HTTP date in the form servers write (RFC 9110's IMF-fixdate,
/// `Sun, 06 Nov 1994 08:49:37 GMT`); `None` for anything else.
pub fn http_date_seconds(date: &str) -> Option<i64> {
    let mut words = date.trim().split(' ');
    let (_weekday, day, month, year, time, zone) = (words.next()?, words.next()?, words.next()?, words.next()?, words.next()?, words.next()?);
    if words.next().is_some() || zone != "GMT" || day.len() != 2 || year.len() != 4 || time.len() != 8 {
        return None;
    }
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.iter().position(|m| *m == month)? + 1;
    epoch_seconds(&format!("{year}-{month:02}-{day}T{time}Z"))
}

/// The RFC 3339 time (UTC, milliseconds) of milliseconds since the epoch — how agents that keep
/// `Date.now()` stamps (Cline, Roo Code, OpenCode) date their messages; `None` outside years
/// 0–9999.
pub fn rfc3339_of_millis(ms: i64) -> Option<String> {
    let (secs, millis) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // The civil date from days (Howard Hinnant's algorithm, the inverse of the one above).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    if !(0..=9999).contains(&y) {
        return None;
    }
    Some(format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z", rest / 3600, rest % 3600 / 60, rest % 60))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn http_dates_as_servers_write_them() {
        assert_eq!(http_date_seconds("Sun, 06 Nov 1994 08:49:37 GMT"), epoch_seconds("1994-11-06T08:49:37Z"));
        assert_eq!(http_date_seconds("Thu, 01 Jan 1970 00:16:45 GMT"), Some(1005));
        assert_eq!(http_date_seconds(" Wed, 21 Oct 2015 07:28:00 GMT "), Some(1_445_412_480));
        for bad in ["", "soon", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT"] {
            assert_eq!(http_date_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn milliseconds_as_rfc3339() {
        assert_eq!(rfc3339_of_millis(0).as_deref(), Some("1970-01-01T00:00:00.000Z"));
        assert_eq!(rfc3339_of_millis(1_760_000_004_500).as_deref(), Some("2025-10-09T08:53:24.500Z"));
        assert_eq!(rfc3339_of_millis(951_782_400_000).as_deref(), Some("2000-02-29T00:00:00.000Z"));
        assert_eq!(rfc3339_of_millis(-1).as_deref(), Some("1969-12-31T23:59:59.999Z"));
        assert_eq!(rfc3339_of_millis(i64::MAX), None);
        for ms in [0i64, 86_399_999, 1_700_000_000_123, 4_102_444_800_000] {
            let text = rfc3339_of_millis(ms).unwrap();
            assert_eq!(epoch_seconds(&text), Some(ms.div_euclid(1000)), "{text}");
        }
    }
}
