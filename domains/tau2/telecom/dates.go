package telecom

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// tau2's telecom clock is fixed (domains-spec.md 5.1): today is 2025-02-25.
const today = Date("2025-02-25")

// Date is a date field (pydantic datetime.date), held as Python's str() of
// it, YYYY-MM-DD, which is also how tau2 hashes and writes it. Its order is
// the order of its text.
type Date string

// parseDate reads a date the way pydantic does from a string: YYYY-MM-DD.
func parseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Year() < 1 {
		return "", fmt.Errorf("invalid date %q: want YYYY-MM-DD", s)
	}
	return Date(t.Format(time.DateOnly)), nil
}

// UnmarshalJSON reads a date string, checking it.
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("date: %w", err)
	}
	v, err := parseDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// DateTime is a datetime field (pydantic datetime.datetime), held as
// Python's str() of it, "YYYY-MM-DD HH:MM:SS" (with ".ffffff" and a UTC
// offset when it has them), which is how tau2 hashes and writes it. One
// value is a bare date: a customer's default created_at, a date that
// pydantic does not validate into a datetime.
type DateTime string

// parseDateTime reads a datetime the way pydantic does from a string: ISO
// 8601 with a "T" or a space between date and time, seconds and fraction
// optional, an optional Z or ±HH:MM offset; a bare date is midnight.
func parseDateTime(s string) (DateTime, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil && t.Year() >= 1 {
		return DateTime(t.Format(time.DateTime)), nil
	}
	norm := strings.Replace(s, " ", "T", 1)
	for _, layout := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, norm); err == nil && t.Year() >= 1 {
			return DateTime(pyDateTime(t, true)), nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, norm); err == nil && t.Year() >= 1 {
			return DateTime(pyDateTime(t, false)), nil
		}
	}
	return "", fmt.Errorf("invalid datetime %q: want YYYY-MM-DDTHH:MM:SS", s)
}

// pyDateTime is Python's str() of a datetime: microseconds (truncated, as
// pydantic keeps six digits) only when not zero, the offset only when the
// datetime is aware.
func pyDateTime(t time.Time, aware bool) string {
	s := t.Format(time.DateTime)
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if aware {
		_, off := t.Zone()
		sign := '+'
		if off < 0 {
			sign, off = '-', -off
		}
		s += fmt.Sprintf("%c%02d:%02d", sign, off/3600, off/60%60)
		if sec := off % 60; sec != 0 {
			s += fmt.Sprintf(":%02d", sec)
		}
	}
	return s
}

// UnmarshalJSON reads a datetime string, checking it.
func (d *DateTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("datetime: %w", err)
	}
	v, err := parseDateTime(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// dateOrNil is a dump value of an optional date.
func dateOrNil[T ~string](d *T) any {
	if d == nil {
		return nil
	}
	return string(*d)
}

// strOrNil is a dump value of an optional string.
func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
