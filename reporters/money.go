package reporters

import (
	"math"
	"strconv"
	"strings"
)

// dollars formats an amount as $1,234.50 (negative as -$1,234.50).
func dollars(v float64) string {
	v = cents(v)
	sign := ""
	if v < 0 {
		sign = "-"
		v = -v
	}
	return sign + "$" + groupThousands(strconv.FormatFloat(v, 'f', 2, 64))
}

// signedDollars formats a profit: +$12.00, -$3.50, $0.00.
func signedDollars(v float64) string {
	if cents(v) > 0 {
		return "+" + dollars(v)
	}
	return dollars(v)
}

func groupThousands(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(intPart) % 3
	if pre > 0 {
		b.WriteString(intPart[:pre])
	}
	for i := pre; i < len(intPart); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	return b.String() + "." + frac
}

// percent formats a fraction as a signed percentage with one decimal.
func percent(f float64) string {
	p := math.Round(f*1000) / 10
	if p > 0 {
		return "+" + strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	if p == 0 {
		return "0.0%"
	}
	return strconv.FormatFloat(p, 'f', 1, 64) + "%"
}

// oddsWords writes odds as "4.20", or "-" for none.
func oddsWords(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// cents rounds dollars to cents, half away from zero, and never yields -0.
func cents(v float64) float64 {
	r := math.Round(v*100) / 100
	if r == 0 {
		return 0
	}
	return r
}

// units rounds to hundredths of a unit and never yields -0.
func units(v float64) float64 { return cents(v) }

func unitsPtr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	u := units(*v)
	return &u
}

// unitsWords is a signed amount of units: "+5.00u", "-2.00u", "0.00u".
func unitsWords(v float64) string {
	v = units(v)
	s := strconv.FormatFloat(v, 'f', 2, 64) + "u"
	if v > 0 {
		s = "+" + s
	}
	return s
}
