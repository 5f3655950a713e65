package plan

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/go-playground/validator/v10"
)

var (
	validate  = newValidator()
	nameRe    = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	betIDRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	runnerRe  = regexp.MustCompile(`^[1-9][0-9]*$`)
	srmRe     = regexp.MustCompile(`^[1-9][0-9]*:[1-9][0-9]*(,[1-9][0-9]*:[1-9][0-9]*)*$`)
	selRe     = regexp.MustCompile(`^[0-9]+(:[0-9]+(,[0-9]+:[0-9]+)*)?$`)
	nonSlugRe = regexp.MustCompile(`[^a-z0-9]+`)
)

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		return name
	})
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	str := func(fn func(string) bool) validator.Func {
		return func(fl validator.FieldLevel) bool { return fn(fl.Field().String()) }
	}
	must(v.RegisterValidation("planname", str(nameRe.MatchString)))
	must(v.RegisterValidation("betid", str(betIDRe.MatchString)))
	must(v.RegisterValidation("selection", str(selRe.MatchString)))
	must(v.RegisterValidation("bettype", str(func(s string) bool { return slices.Contains(types, s) })))
	must(v.RegisterValidation("market", str(func(s string) bool { return slices.Contains(markets, s) })))
	must(v.RegisterValidation("racecode", str(func(s string) bool { return slices.Contains(codes, s) })))
	must(v.RegisterValidation("cents", func(fl validator.FieldLevel) bool { return isCents(fl.Field().Float()) }))
	return v
}

// maxAmount bounds every amount a plan writes, far above any stake, so that
// a typo such as 1e308 reads as out of range rather than as cents gone
// wrong (a float64 no longer holds cents exactly near 2^53/100).
const maxAmount = 1e9

const amountRange = "amounts are dollars and cents below $1,000,000,000"

// MaxBetAmount is the most one bet's stake or target profit may be, in
// dollars: far above any bet a plan means, far below where a float64
// stops holding cents. A static amount above it is a validate error, a
// computed one fails its bet with the value it gave.
const MaxBetAmount = 1_000_000

const betAmountRange = "a bet's stake or target profit is at most $1,000,000"

// isCents reports whether v has at most two decimals.
func isCents(v float64) bool {
	c := v * 100
	return math.Abs(c-math.Round(c)) < 1e-6
}

// validateStruct runs the struct rules of one piece of the plan and turns
// each failure into a sentence at the field's position; it returns the
// paths of the fields it reported.
func (p *parser) validateStruct(s any, path, what string) (reported []string) {
	err := validate.Struct(s)
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return nil
	}
	for _, fe := range ves {
		ns := fe.Namespace()
		if i := strings.IndexByte(ns, '.'); i >= 0 {
			ns = ns[i+1:]
		}
		full := ns
		if path != "" {
			full = path + "." + ns
		}
		if p.d.failed[full] {
			continue // its value was reported when it could not be read
		}
		reported = append(reported, full)
		field := fe.Field()
		val := fe.Value()
		if rv := reflect.ValueOf(val); rv.Kind() == reflect.Pointer && !rv.IsNil() {
			val = rv.Elem().Interface()
		}
		var msg string
		switch fe.Tag() {
		case "required":
			if written, ok := p.d.pos[full]; ok {
				if fe.Kind() == reflect.Int {
					p.d.errorf(written, "%s must be at least 1, got %v", field, val)
				} else {
					p.d.errorf(written, "%s cannot be empty", field)
				}
				continue
			}
			n := p.at(path)
			if path == "" {
				n = p.rootNode()
			}
			p.d.errorf(n, "%s is missing %s", what, field)
			continue
		case "planname":
			s := val.(string)
			slug := strings.Trim(nonSlugRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
			msg = fmt.Sprintf("name %q must be lowercase letters, digits and '-' (it is part of every bet's label)", s)
			if slug != "" {
				msg += fmt.Sprintf(`; for example "%s"`, slug)
			}
		case "betid":
			msg = fmt.Sprintf("id %q may hold only letters, digits, '-' and '_', starting with a letter or digit (it is part of the bet's label)", val)
		case "selection":
			msg = fmt.Sprintf(`selection %q must be a runner number such as "3", or R:P pairs such as "2:1,6:3" for Same Race Multi`, val)
		case "bettype":
			msg = fmt.Sprintf("unknown type %q%s (types: %s)", val, didYouMean(val.(string), types), strings.Join(types, ", "))
		case "market":
			msg = fmt.Sprintf("unknown market %q%s", val, orList(val.(string), markets))
		case "racecode":
			msg = fmt.Sprintf("unknown code %q%s (codes: %s)", val, didYouMean(val.(string), codes), strings.Join(codes, ", "))
		case "cents":
			if f, ok := val.(float64); ok && math.Abs(f) >= maxAmount {
				written := fmt.Sprint(val)
				if n := p.d.pos[full]; n != nil {
					written = n.Value
				}
				msg = fmt.Sprintf("%s %s is out of range: %s", field, written, amountRange)
				break
			}
			msg = fmt.Sprintf("%s %v has more than two decimals: amounts are dollars and cents", field, val)
		case "gt":
			msg = fmt.Sprintf("%s must be more than %s, got %v", field, fe.Param(), val)
		case "min", "gte":
			if fe.Kind() == reflect.String {
				msg = fmt.Sprintf("%s must have at least %s characters", field, fe.Param())
			} else {
				msg = fmt.Sprintf("%s must be at least %s, got %v", field, fe.Param(), val)
			}
		case "max", "lte":
			if fe.Kind() == reflect.String {
				msg = fmt.Sprintf("%s is longer than %s characters", field, fe.Param())
			} else {
				msg = fmt.Sprintf("%s must be at most %s, got %v", field, fe.Param(), val)
			}
		default:
			msg = fmt.Sprintf("%s is not valid (%s)", field, fe.Tag())
		}
		p.d.errorf(p.at(full), "%s", msg)
	}
	return reported
}
