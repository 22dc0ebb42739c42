//! HTTP dates as Go's `http.ParseTime` reads them, for the conditional headers.
//!
//! In: a header value. Out: Unix seconds, or `None` where Go fails. Go tries
//! `TimeFormat` (`Mon, 02 Jan 2006 15:04:05 GMT`), RFC 850 and ANSI C in turn;
//! it ignores the weekday's agreement with the date, accepts years before 1970,
//! maps two-digit years 69–99 to 19xx and 00–68 to 20xx, treats runs of spaces in
//! the layout as equivalent, and takes an unknown zone abbreviation as UTC.
//! Written by hand because `httpdate` differs on each of those points, and a
//! client would see a different 304/200 from catalogd.

/// Unix seconds of `value`, or `None` if no Go layout reads it.
pub fn parse(value: &str) -> Option<i64> {
    const LAYOUTS: [&[Token]; 3] = [IMF_FIXDATE, RFC850, ANSIC];
    LAYOUTS
        .iter()
        .find_map(|layout| parse_layout(value, layout))
}

#[derive(Clone, Copy)]
enum Token {
    Lit(&'static str),
    ShortWeekday,
    LongWeekday,
    ZeroDay,
    UnderDay,
    ShortMonth,
    LongYear,
    TwoDigitYear,
    Hour,
    ZeroMinute,
    ZeroSecond,
    Zone,
}

use Token::*;

const IMF_FIXDATE: &[Token] = &[
    ShortWeekday,
    Lit(", "),
    ZeroDay,
    Lit(" "),
    ShortMonth,
    Lit(" "),
    LongYear,
    Lit(" "),
    Hour,
    Lit(":"),
    ZeroMinute,
    Lit(":"),
    ZeroSecond,
    Lit(" GMT"),
];
const RFC850: &[Token] = &[
    LongWeekday,
    Lit(", "),
    ZeroDay,
    Lit("-"),
    ShortMonth,
    Lit("-"),
    TwoDigitYear,
    Lit(" "),
    Hour,
    Lit(":"),
    ZeroMinute,
    Lit(":"),
    ZeroSecond,
    Lit(" "),
    Zone,
];
const ANSIC: &[Token] = &[
    ShortWeekday,
    Lit(" "),
    ShortMonth,
    Lit(" "),
    UnderDay,
    Lit(" "),
    Hour,
    Lit(":"),
    ZeroMinute,
    Lit(":"),
    ZeroSecond,
    Lit(" "),
    LongYear,
];

const SHORT_DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

#[derive(Default)]
struct Fields {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
}

fn parse_layout(mut value: &str, layout: &[Token]) -> Option<i64> {
    let mut f = Fields::default();
    for token in layout {
        value = match *token {
            Lit(text) => skip(value, text)?,
            ShortWeekday => lookup(value, &SHORT_DAYS)?.1,
            LongWeekday => lookup(value, &LONG_DAYS)?.1,
            ShortMonth => {
                let (i, rest) = lookup(value, &MONTHS)?;
                f.month = i as i64 + 1;
                rest
            }
            ZeroDay => number(value, 2, 2, &mut f.day)?,
            UnderDay => number(value.strip_prefix(' ').unwrap_or(value), 1, 2, &mut f.day)?,
            LongYear => number(value, 4, 4, &mut f.year)?,
            TwoDigitYear => {
                let rest = number(value, 2, 2, &mut f.year)?;
                f.year += if f.year >= 69 { 1900 } else { 2000 };
                rest
            }
            Hour => number(value, 1, 2, &mut f.hour)?,
            ZeroMinute => number(value, 2, 2, &mut f.minute)?,
            ZeroSecond => fraction(number(value, 2, 2, &mut f.second)?),
            Zone => zone(value)?,
        };
    }
    if !value.is_empty() || f.hour > 23 || f.minute > 59 || f.second > 59 {
        return None;
    }
    if f.day < 1 || f.day > days_in_month(f.year, f.month) {
        return None;
    }
    let days = days_from_civil(f.year, f.month, f.day);
    Some(days * 86_400 + f.hour * 3600 + f.minute * 60 + f.second)
}

/// Go's `skip`: the literal, with any run of spaces matching any run of spaces.
fn skip<'a>(mut value: &'a str, mut prefix: &str) -> Option<&'a str> {
    while let Some(c) = prefix.chars().next() {
        if c == ' ' {
            if !value.is_empty() && !value.starts_with(' ') {
                return None;
            }
            prefix = prefix.trim_start_matches(' ');
            value = value.trim_start_matches(' ');
            continue;
        }
        value = value.strip_prefix(c)?;
        prefix = &prefix[c.len_utf8()..];
    }
    Some(value)
}

/// Go's `lookup`: the first name that prefixes `value`, ASCII case-insensitively.
fn lookup<'a>(value: &'a str, names: &[&str]) -> Option<(usize, &'a str)> {
    names.iter().enumerate().find_map(|(i, name)| {
        let head = value.get(..name.len())?;
        head.eq_ignore_ascii_case(name)
            .then(|| (i, &value[name.len()..]))
    })
}

/// `min..=max` leading digits into `out`.
fn number<'a>(value: &'a str, min: usize, max: usize, out: &mut i64) -> Option<&'a str> {
    let digits = value
        .bytes()
        .take(max)
        .take_while(u8::is_ascii_digit)
        .count();
    if digits < min {
        return None;
    }
    *out = value[..digits].parse().ok()?;
    Some(&value[digits..])
}

/// Go accepts a fractional second the layout does not name (`05.123`).
fn fraction(value: &str) -> &str {
    match value.strip_prefix(['.', ',']) {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => {
            rest.trim_start_matches(|c: char| c.is_ascii_digit())
        }
        _ => value,
    }
}

/// Go's `parseTimeZone` for abbreviations: `UTC`, three upper-case letters, or
/// four or five ending in `T` (`ChST`/`MeST` too). Every one reads as offset 0.
fn zone(value: &str) -> Option<&str> {
    for special in ["ChST", "MeST"] {
        if let Some(rest) = value.strip_prefix(special) {
            return Some(rest);
        }
    }
    let upper = value.bytes().take_while(u8::is_ascii_uppercase).count();
    let ok = match upper {
        3 => true,
        4 | 5 => value.as_bytes()[upper - 1] == b'T',
        _ => false,
    };
    ok.then(|| &value[upper..])
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 784_111_777; // Sun, 06 Nov 1994 08:49:37 GMT

    #[test]
    fn the_three_layouts_of_rfc_9110() {
        assert_eq!(parse("Sun, 06 Nov 1994 08:49:37 GMT"), Some(T));
        assert_eq!(parse("Sunday, 06-Nov-94 08:49:37 GMT"), Some(T));
        assert_eq!(parse("Sun Nov  6 08:49:37 1994"), Some(T));
    }

    #[test]
    fn go_laxities() {
        // the weekday is not checked against the date
        assert_eq!(parse("Mon, 06 Nov 1994 08:49:37 GMT"), Some(T));
        // names in any case, runs of spaces, one-digit hours, fractions
        assert_eq!(parse("sun, 06 NOV 1994  8:49:37 GMT"), Some(T));
        assert_eq!(parse("Sun, 06 Nov 1994 08:49:37.250 GMT"), Some(T));
        // before 1970; two-digit years
        assert_eq!(parse("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(parse("Wed, 31 Dec 1969 23:59:59 GMT"), Some(-1));
        assert_eq!(parse("Thursday, 01-Jan-70 00:00:00 GMT"), Some(0));
        assert_eq!(parse("Saturday, 01-Jan-00 00:00:00 PST"), Some(946_684_800));
        assert_eq!(parse("Fri Feb 29 12:00:00 2008"), Some(1_204_286_400));
    }

    #[test]
    fn what_go_refuses() {
        for bad in [
            "",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT junk",
            "Sun, 31 Nov 1994 08:49:37 GMT",
            "Sun, 29 Feb 1900 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Xyz, 06 Nov 1994 08:49:37 GMT",
            "1994-11-06T08:49:37Z",
            "Sunday, 06-Nov-94 08:49:37 gmt",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }
}
